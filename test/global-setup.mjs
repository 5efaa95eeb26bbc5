/**
 * jest globalSetup: builds dist/ once, before any test file runs, when it is older than src/.
 * Tests that start the real CLI as a child process (bin/contact-sync.js loads dist/) then find it
 * built, instead of two workers racing to compile it from inside their tests.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiledMain = join(root, 'dist', 'src', 'cli', 'main.js');

function mtimeOrZero(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : mtimeOrZero(path));
  }
  return newest;
}

export default function globalSetup() {
  if (newestMtime(join(root, 'src')) < mtimeOrZero(compiledMain)) return;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    // As `npm run build` does (build mode), so that each sees the other's output as up to date.
    execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe', timeout: 300_000 });
  } catch (error) {
    // Type errors do not stop tsc from emitting (npm test's typecheck reports them); a missing
    // output does.
    if (mtimeOrZero(compiledMain) === 0) throw new Error(`the build wrote no ${compiledMain}:\n${String(error.stdout ?? error)}`);
  }
}
