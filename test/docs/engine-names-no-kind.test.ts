/**
 * The run engine (src/pipeline/run/) asks no kind what it is (issue 35): no file of it imports a
 * kind's module or names one, so a new kind (the v2 surface's, another command's) is a new
 * `RunKind`, not a branch in the engine. The kinds are src/pipeline/kinds/ (`run`, `reconcile`),
 * undo/run-undo.ts and departed/settle-departed.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const engine = new URL('../../src/pipeline/run/', import.meta.url).pathname;
const files = readdirSync(engine).filter((name) => name.endsWith('.ts'));

/** A kind named in code or prose: its folder or module, or its word. */
const KIND = /kinds\/|\/undo\/|\/departed\/|\breconcil\w*|\bundo\w*|\bdeparted\b|\bsync(?:ing)?\b|syncRow|SyncKind/iu;

describe('the run engine names no kind', () => {
  it('has files to look at', () => {
    expect(files).toEqual(expect.arrayContaining(['run-engine.ts', 'stop-policy.ts', 'unit-loop.ts']));
  });

  it.each(files)('%s', (name) => {
    const lines = readFileSync(join(engine, name), 'utf8').split('\n');
    expect(lines.map((line, index) => [index + 1, line]).filter(([, line]) => KIND.test(String(line)))).toEqual([]);
  });
});
