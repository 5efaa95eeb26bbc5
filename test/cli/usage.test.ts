/**
 * CLI conventions: --version prints the version; a usage mistake is one error naming it (with the
 * word meant when one is close), the command's usage line and where the help is, exit 2; numbers
 * are checked as typed; --quiet leaves warnings, errors and the summary.
 */
import { readFileSync } from 'node:fs';
import { customersCsv, fastEmulator, jobsYaml, CUSTOMERS_JOB, TOKEN, workspace } from '../helpers/cli-harness.js';

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('CLI conventions', () => {
  it('--version prints the version, exit 0', async () => {
    const run = await workspace().run(['--version']);
    expect([run.exitCode, run.stdout, run.stderr]).toEqual([0, `${version}\n`, '']);
  });

  it.each([
    [['run', '--dryrun', 'jobs.yaml'], 'unknown option --dryrun; did you mean --dry-run?', 'usage: contact-sync run <jobs.yaml>'],
    [['run', 'jobs.yaml', '--repot-dir', 'x'], 'unknown option --repot-dir; did you mean --report-dir?', 'see: contact-sync run --help'],
    [['runn', 'jobs.yaml'], 'unknown command "runn"; did you mean "run"? The commands are run, reconcile, undo, history, validate, check, state, forget, emulator.', 'see: contact-sync --help'],
    [['--log-level', 'warn', 'vaildate', 'jobs.yaml'], 'unknown command "vaildate"; did you mean "validate"?', 'see: contact-sync --help'],
    [['validate'], 'validate: <jobs.yaml> is missing; the usage below shows where it goes', 'usage: contact-sync validate <jobs.yaml>'],
    [['run', 'jobs.yaml', '--limit', 'abc'], '--limit: "abc" is not a whole number; write a number of rows, e.g. --limit 100', undefined],
    [['run', 'jobs.yaml', '--limit', '-3'], '--limit: "-3" is not a whole number; write a number of rows, e.g. --limit 100', undefined],
    [['emulator', '--port', 'x'], '--port: "x" is not a whole number; write a TCP port, e.g. --port 4010', undefined],
  ])('%j: exit 2 with one error, not the whole help', async (argv, error, footer) => {
    const run = await workspace().run(argv);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.split('\n')[0]).toContain(`contact-sync: ${error}`);
    if (footer !== undefined) expect(run.stderr).toContain(footer);
    expect(run.stderr).not.toContain('Show help');
    expect(run.stderr.split('\n').length).toBeLessThanOrEqual(4);
  });

  // Issue 34: each command's missing argument names the command and what is missing, never "unknown command".
  it.each([
    [['run'], 'contact-sync: run: <jobs.yaml> is missing; the usage below shows where it goes', 'usage: contact-sync run <jobs.yaml>'],
    [['reconcile'], 'contact-sync: reconcile: <jobs.yaml> is missing; the usage below shows where it goes', 'usage: contact-sync reconcile <jobs.yaml>'],
    [['check'], 'contact-sync: check: <jobs.yaml> is missing; the usage below shows where it goes', 'usage: contact-sync check <jobs.yaml>'],
    [['undo', '--job', 'migrate', '--run', '3'], 'contact-sync: undo: <jobs.yaml> is missing; the usage below shows where it goes', 'usage: contact-sync undo <jobs.yaml> --job NAME --run RUN_ID'],
    [['undo', 'jobs.yaml', '--job', 'migrate'], 'contact-sync: undo: --run RUN_ID is missing: it is required', 'usage: contact-sync undo <jobs.yaml> --job NAME --run RUN_ID'],
    [['undo', 'jobs.yaml'], 'contact-sync: undo: --job NAME and --run RUN_ID are missing: they are required', 'see: contact-sync undo --help'],
    [['history', 'jobs.yaml', '--key', 'C0001'], 'contact-sync: history: --job NAME is missing: it is required', 'usage: contact-sync history <jobs.yaml> --job NAME'],
    [['state', 'show', 'jobs.yaml'], 'contact-sync: state: --job NAME is missing: it is required', 'usage: contact-sync state show|reset|prune|copy <jobs.yaml> --job NAME [--from PATH|URL] [--replace]'],
    [['state', '--job', 'import'], 'contact-sync: state: show|reset|prune|copy and <jobs.yaml> are missing; the usage below shows where they go', 'see: contact-sync state --help'],
    [['state', 'show', '--job', 'import'], 'contact-sync: state: <jobs.yaml> is missing; the usage below shows where it goes', 'see: contact-sync state --help'],
  ])('%j: exit 2, naming the command and what is missing', async (argv, error, footer) => {
    const run = await workspace().run(argv);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(error);
    expect(run.stderr).toContain(footer);
  });

  it('undo\'s usage line is README\'s and docs/undo.md\'s, --key and --keep-created included (issue 41 item 18)', async () => {
    const run = await workspace().run(['undo', 'jobs.yaml', '--job', 'migrate']);
    const usage = run.stderr.split('\n').find((line) => line.startsWith('usage: '))?.slice('usage: '.length);
    expect(usage).toBe('contact-sync undo <jobs.yaml> --job NAME --run RUN_ID [--key KEY]... [--keep-created] [--delete-created] [--dry-run] [--force] [--report-dir DIR] [--max-duration DURATION]');
    for (const doc of ['README.md', 'docs/undo.md']) expect(readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8')).toContain(usage);
  });

  it('no command at all names every command', async () => {
    const run = await workspace().run([]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('contact-sync: name a command: run, reconcile, undo, history, validate, check, state, forget or emulator');
  });

  it('validate runs without the channel token: an unset variable is a warning, exit 0', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: 'https://app.example.com/api', job: CUSTOMERS_JOB }).replace(/token: .*/, 'token: ${CHANNEL_TOKEN}'));

    const run = await ws.run(['validate', 'jobs.yaml'], { env: {} });

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('3 rows, 3 valid, 0 invalid');
    expect(run.stderr).toMatch(/connections\.main\.token.*CHANNEL_TOKEN.*a warning here: this command makes no call; run needs the token/);
  });

  it('run still refuses an unset token before any call: exit 2', async () => {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(3));
    ws.write('jobs.yaml', jobsYaml({ url: 'https://app.example.com/api', job: CUSTOMERS_JOB }).replace(/token: .*/, 'token: ${CHANNEL_TOKEN}'));
    const run = await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'], { env: {} });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('CHANNEL_TOKEN');
  });

  it('--quiet: no progress and no info lines, the summary still printed', async () => {
    const emulator = await fastEmulator();
    try {
      const ws = workspace();
      ws.write('customers.csv', customersCsv(5));
      ws.write('jobs.yaml', jobsYaml({ url: emulator.url, token: TOKEN, job: CUSTOMERS_JOB }));
      const loud = await ws.run(['run', 'jobs.yaml', '--report-dir', 'loud']);
      const quiet = await ws.run(['run', 'jobs.yaml', '--report-dir', 'quiet', '--quiet']);
      expect([loud.exitCode, quiet.exitCode]).toEqual([0, 0]);
      expect(loud.stderr).toContain('job started');
      expect(quiet.stderr).toBe('');
      expect(quiet.stdout).toContain('unchanged');
      expect(quiet.stdout).toContain('5');
    } finally {
      await emulator.close();
    }
  });
});
