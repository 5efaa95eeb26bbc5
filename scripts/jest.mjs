/**
 * `npm run test:jest`: the `main` jest project in parallel, then the `timing` project in band (see
 * jest.config.js). Arguments are passed to both (a path runs in whichever project holds it). With
 * JEST_JSON_OUTPUT set, the two JSON results are merged into that file, so `.ci/run` reads one.
 * With JEST_MAIN_ONLY=1 only the `main` project runs (`.ci/run`'s second Node.js).
 *
 * A project whose tests have ended but whose jest does not exit (a test left a handle open: a server,
 * a timer, a child process holding jest's pipes) is stopped a minute later and fails the run, so a
 * leak never holds CI until its deadline; so is a project still running after PROJECT_DEADLINE_MS.
 * Processes the tests started and left running are found by the TMPDIR they inherited, killed, and
 * named: they fail the run too.
 *
 * The tests get a temporary folder of their own (TMPDIR, which os.tmpdir() and every child process
 * read): whatever a test leaves in it is named at the end and fails the run, since every test must
 * remove what it makes; the folder itself is removed either way, so the machine's stays clean.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { clearInterval, setInterval } from 'node:timers';
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

/** Far above a project's usual few minutes on a busy machine, far below CI's 90. */
const PROJECT_DEADLINE_MS = 30 * 60_000;
/** How long jest may take to exit once it has written its results. */
const EXIT_GRACE_MS = 60_000;
const problems = [];

async function run(project, extra) {
  const json = join(scratch, `${project}.json`);
  const child = spawn(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--selectProjects', project, `--cacheDirectory=${cache}`, '--passWithNoTests', ...extra, '--json', `--outputFile=${json}`, ...args],
    { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: testTmp, TMP: testTmp, TEMP: testTmp, NODE_COMPILE_CACHE: compileCache } },
  );
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  const started = Date.now();
  let finishedAt;
  let stopped;
  const watch = setInterval(() => {
    if (finishedAt === undefined && existsSync(json)) finishedAt = Date.now();
    if (finishedAt !== undefined && Date.now() - finishedAt > EXIT_GRACE_MS) stopped = `its tests ended but jest did not exit within ${EXIT_GRACE_MS / 1000} s: a test left something open (see jest's note above)`;
    else if (Date.now() - started > PROJECT_DEADLINE_MS) stopped = `it ran past ${PROJECT_DEADLINE_MS / 60_000} minutes`;
    if (stopped !== undefined) {
      clearInterval(watch);
      child.kill('SIGKILL');
    }
  }, 1000);
  const status = await exited;
  clearInterval(watch);
  if (stopped !== undefined) problems.push(`The ${project} jest project was stopped: ${stopped}.`);
  const strays = killStrayProcesses();
  if (strays.length > 0) problems.push(`The ${project} tests left ${strays.length} process(es) running (killed now): ${strays.join('; ')}. Every test must stop what it starts.`);
  return { status: stopped !== undefined || strays.length > 0 ? status || 1 : status, json };
}

/** Processes that inherited the tests' TMPDIR and still run: started by a test, never stopped. */
function killStrayProcesses() {
  if (!existsSync('/proc/self/environ')) return [];
  const marker = `TMPDIR=${testTmp}`;
  const strays = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker)) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 160);
      process.kill(Number(entry), 'SIGKILL');
      strays.push(`pid ${entry}: ${command}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return strays;
}

const mainOnly = process.env.JEST_MAIN_ONLY === '1';
const main = await run('main', []);
const timing = mainOnly ? undefined : await run('timing', ['--runInBand']);
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
    // A project whose run wrote no JSON (it crashed), that had to be stopped, or that left processes
    // running counts as a failed suite.
    numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites') + projects.length - parts.length + problems.length,
    success: parts.length === projects.length && problems.length === 0 && parts.every((part) => part.success),
    testResults: parts.flatMap((part) => part.testResults ?? []),
  };
  writeFileSync(output, JSON.stringify(merged));
}
rmSync(scratch, { recursive: true, force: true });
for (const problem of problems) console.error(problem);
if (leftovers.length > 0) {
  console.error(`The tests left ${leftovers.length} temporary file(s) or folder(s) behind (removed now): ${leftovers.slice(0, 20).join(', ')}${leftovers.length > 20 ? ', ...' : ''}. Every test must remove what it makes.`);
}
process.exitCode = main.status !== 0 ? main.status : (timing?.status ?? 0) !== 0 ? timing.status : leftovers.length > 0 ? 1 : 0;
