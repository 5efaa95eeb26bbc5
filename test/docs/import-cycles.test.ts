/**
 * No import cycle in src/ (issue 27): two modules that import each other, directly or around a
 * longer circle, cannot be understood, tested or moved one at a time, and a circle of runtime
 * imports can see a module before it is initialised. `import type` counts too, as it does for the
 * room boundaries (eslint.boundaries.mjs). The imports are resolved by the TypeScript compiler
 * the build uses, as the build resolves them.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('../..', import.meta.url).pathname;

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file of src/ and the files of src/ it imports (static imports and re-exports, types included). */
function importGraph(): Map<string, string[]> {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const host = ts.createCompilerHost(options);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, false);
    const targets = importedFiles
      .map((imported) => ts.resolveModuleName(imported.fileName, file, options, host).resolvedModule?.resolvedFileName)
      .filter((target): target is string => target !== undefined && target.startsWith(join(root, 'src')) && !target.endsWith('.d.ts'));
    graph.set(relative(root, file), [...new Set(targets.map((target) => relative(root, target)))]);
  }
  return graph;
}

/** The import circles of a graph: its strongly connected components of more than one file (Tarjan), or a file importing itself. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('finds a circle of two, of three, and none in a tree', () => {
    expect(importCycles(new Map([['a', ['b']], ['b', ['a']]]))).toEqual([['a', 'b']]);
    expect(importCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(importCycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });

  it('src/ has none', () => {
    const graph = importGraph();
    // The walk saw the code: the CLI's entry imports something of src/.
    expect(graph.get('src/cli/main.ts')?.length).toBeGreaterThan(3);
    expect(importCycles(graph)).toEqual([]);
  });
});
