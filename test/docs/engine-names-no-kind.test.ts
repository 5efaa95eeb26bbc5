/**
 * The run engine (src/pipeline/run/, the whole room: the loop, the dispatcher and its key lanes,
 * the stop policy, the deadline, the error threshold, the exit code, the unit report's life, the
 * journal lines) asks no kind what it is (issue 35, issue 43): no line of any file in it, code or
 * comment, imports a kind's module or names one, so a new kind (the v2 surface's, another command's) is a new
 * `RunKind`, not a branch in the engine. The kinds are src/pipeline/kinds/ (`run`, `reconcile`),
 * undo/run-undo.ts and departed/settle-departed.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const engine = new URL('../../src/pipeline/run/', import.meta.url).pathname;
const files = readdirSync(engine, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));

/** A kind named in code or prose: its folder or module, or its word. */
const KIND = /kinds\/|\/undo\/|\/departed\/|\breconcil\w*|\bundo\w*|\bdeparted\b|\bsync(?:ing)?\b|syncRow|SyncKind/iu;

describe('the run engine names no kind', () => {
  it('has files to look at', () => {
    expect(files).toEqual(expect.arrayContaining(['run-engine.ts', 'stop-policy.ts', 'unit-loop.ts', 'row-dispatcher.ts', 'key-lanes.ts', 'deadline.ts', 'error-threshold.ts', 'exit-code.ts']));
  });

  it.each(files)('%s', (name) => {
    const lines = readFileSync(join(engine, name), 'utf8').split('\n');
    expect(lines.map((line, index) => [index + 1, line]).filter(([, line]) => KIND.test(String(line)))).toEqual([]);
  });
});
