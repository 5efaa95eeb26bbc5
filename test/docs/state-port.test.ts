/**
 * The state store is a port (src/state/state-port.ts): the pipeline uses it through the role each
 * user is given, never the SQLite adapter (only the CLI opens one); and "an id is trusted only on
 * its own surface" has one home, `trustedOn` (src/state/known-contact.ts): no other file of the
 * pipeline or the state store compares a recorded surface with a run's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const src = new URL('../../src/', import.meta.url).pathname;

function filesUnder(folder: string): string[] {
  return readdirSync(join(src, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

const pipeline = filesUnder('pipeline');
const state = filesUnder('state');

/** A comparison of two surfaces: `x.surface === y`, `a !== b.surface` (not one with a literal or undefined). */
const SURFACE_COMPARED = /surface(?:\.name)?\s*[!=]==\s*(?![\s'"]|undefined\b)|[!=]==\s*[\w.]*surface(?:\.name)?\b/u;

describe('the state port', () => {
  it('has files to look at', () => {
    expect(pipeline).toEqual(expect.arrayContaining([join('pipeline', 'row', 'sync-row.ts')]));
    expect(state).toEqual(expect.arrayContaining([join('state', 'state-port.ts'), join('state', 'known-contact.ts')]));
  });

  it.each(pipeline)('%s uses the store through its roles, not the SQLite adapter', (file) => {
    const text = readFileSync(join(src, file), 'utf8');
    expect(text.match(/from '[./]*\/state\/state-store\.js'/gu) ?? []).toEqual([]);
  });

  it.each([...pipeline, ...state].filter((file) => file !== join('state', 'known-contact.ts')))('%s leaves the surface rule to trustedOn', (file) => {
    const lines = readFileSync(join(src, file), 'utf8').split('\n');
    const found = lines.map((line, index) => `${relative('.', file)}:${index + 1}: ${line.trim()}`).filter((_, index) => SURFACE_COMPARED.test(lines[index] ?? ''));
    expect(found).toEqual([]);
  });
});
