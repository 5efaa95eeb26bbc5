/**
 * `npm run test:jest`: the `main` jest project in parallel, then the `timing` project in band (see
 * jest.config.js). Arguments are passed to both (a path runs in whichever project holds it). With
 * JEST_JSON_OUTPUT set, the two JSON results are merged into that file, so `.ci/run` reads one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const output = process.env.JEST_JSON_OUTPUT;
const scratch = mkdtempSync(join(tmpdir(), 'contact-sync-jest-'));
const args = process.argv.slice(2);

function run(project, extra) {
  const json = join(scratch, `${project}.json`);
  const result = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, '--selectProjects', project, '--passWithNoTests', ...extra, ...(output ? ['--json', `--outputFile=${json}`] : []), ...args],
    { cwd: root, stdio: 'inherit' },
  );
  return { status: result.status ?? 1, json };
}

const main = run('main', []);
const timing = run('timing', ['--runInBand']);

if (output) {
  const parts = [main.json, timing.json].filter((file) => existsSync(file)).map((file) => JSON.parse(readFileSync(file, 'utf8')));
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
    ...(parts.length < 2 ? { numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites') + 2 - parts.length } : {}),
    success: parts.length === 2 && parts.every((part) => part.success),
    testResults: parts.flatMap((part) => part.testResults ?? []),
  };
  writeFileSync(output, JSON.stringify(merged));
}
process.exitCode = main.status !== 0 ? main.status : timing.status;
