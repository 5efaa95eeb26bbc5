/**
 * `npm run test:jest`: the `main` jest project in parallel, then the `timing` project in band (see
 * jest.config.js). Arguments are passed to both (a path runs in whichever project holds it). With
 * JEST_JSON_OUTPUT set, the two JSON results are merged into that file, so `.ci/run` reads one.
 * With JEST_MAIN_ONLY=1 only the `main` project runs (`.ci/run`'s second Node.js).
 *
 * The tests get a temporary folder of their own (TMPDIR, which os.tmpdir() and every child process
 * read): whatever a test leaves in it is named at the end and fails the run, since every test must
 * remove what it makes; the folder itself is removed either way, so the machine's stays clean.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const output = process.env.JEST_JSON_OUTPUT;
const scratch = mkdtempSync(join(tmpdir(), 'contact-sync-jest-'));
const args = process.argv.slice(2);
const testTmp = join(scratch, 'tmp');
// jest's transform cache would otherwise follow TMPDIR into the scratch folder and start cold.
const cache = join(root, 'node_modules', '.cache', 'jest');
// Likewise Node's module compile cache, which tools turn on (module.enableCompileCache) in TMPDIR.
const compileCache = join(root, 'node_modules', '.cache', 'node-compile-cache');
mkdirSync(testTmp);

function run(project, extra) {
  const json = join(scratch, `${project}.json`);
  const result = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--selectProjects', project, `--cacheDirectory=${cache}`, '--passWithNoTests', ...extra, ...(output ? ['--json', `--outputFile=${json}`] : []), ...args],
    { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: testTmp, TMP: testTmp, TEMP: testTmp, NODE_COMPILE_CACHE: compileCache } },
  );
  return { status: result.status ?? 1, json };
}

const mainOnly = process.env.JEST_MAIN_ONLY === '1';
const main = run('main', []);
const timing = mainOnly ? undefined : run('timing', ['--runInBand']);
const leftovers = readdirSync(testTmp);

if (output) {
  const projects = mainOnly ? [main] : [main, timing];
  const parts = projects.map((project) => project.json).filter((file) => existsSync(file)).map((file) => JSON.parse(readFileSync(file, 'utf8')));
  const sum = (key) => parts.reduce((total, part) => total + (part[key] ?? 0), 0);
  const merged = {
    numTotalTests: sum('numTotalTests'),
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numPendingTests: sum('numPendingTests'),
    numTodoTests: sum('numTodoTests'),
    numTotalTestSuites: sum('numTotalTestSuites'),
    numPassedTestSuites: sum('numPassedTestSuites'),
    numFailedTestSuites: sum('numFailedTestSuites'),
    numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites'),
    // A project whose run wrote no JSON (it crashed) counts as a failed suite.
    ...(parts.length < projects.length ? { numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites') + projects.length - parts.length } : {}),
    success: parts.length === projects.length && parts.every((part) => part.success),
    testResults: parts.flatMap((part) => part.testResults ?? []),
  };
  writeFileSync(output, JSON.stringify(merged));
}
rmSync(scratch, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.error(`The tests left ${leftovers.length} temporary file(s) or folder(s) behind (removed now): ${leftovers.slice(0, 20).join(', ')}${leftovers.length > 20 ? ', ...' : ''}. Every test must remove what it makes.`);
}
process.exitCode = main.status !== 0 ? main.status : (timing?.status ?? 0) !== 0 ? timing.status : leftovers.length > 0 ? 1 : 0;
