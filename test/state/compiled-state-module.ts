/**
 * The real src/state modules compiled to JavaScript in a temporary directory, so that a child
 * `node` process (which cannot load TypeScript) runs the same StateStore code as the tests.
 */
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The rooms of src/ the state store's modules import (its own, and the failure base). */
const ROOMS = ['state', 'failure'];

/** Writes `<dir>/<room>/*.js` for ROOMS and a node_modules link; returns the path of state-store.js. */
export function compileStateModule(dir: string): string {
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const room of ROOMS) {
    const source = join(repoRoot, 'src', room);
    const target = join(dir, room);
    mkdirSync(target, { recursive: true });
    for (const file of readdirSync(source).filter((name) => name.endsWith('.ts'))) {
      const output = ts.transpileModule(readFileSync(join(source, file), 'utf8'), {
        fileName: file,
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(target, file.replace(/\.ts$/, '.js')), output.outputText);
    }
  }
  return join(dir, 'state', 'state-store.js');
}
