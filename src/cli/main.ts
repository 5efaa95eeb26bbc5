/**
 * The command line: argv -> command -> exit code. The launcher (bin/contact-sync.js) sets the
 * process's exit code from what `main` returns; nothing else in the code ends the process. Each
 * command's module is loaded when it runs, so `validate` does not pay for the HTTP client, the
 * limiter or SQLite in memory and start-up.
 */
import yargs from 'yargs';
import type { Logger } from 'pino';
import { processIo, type CliIo } from './cli-io.js';
import { EXIT } from './exit-codes.js';
import { describeFailure } from './failure.js';
import { createLogger, type LogFormat, type LogLevel } from './logger.js';
import { packageVersion } from './package-version.js';
import { TerminalOutput } from './terminal-output.js';
import { explainUsage, usageFooter } from './usage-hints.js';
import { UsageError, UsageErrorFromYargs } from './usage-error.js';

/** A whole number from 0 up for `--name`, from the text as typed (yargs' number type says NaN). */
function wholeNumber(name: string, what: string, example: number): (value: string | number | undefined) => number | undefined {
  return (value) => {
    if (value === undefined) return undefined;
    const text = String(value).trim();
    if (!/^\d+$/.test(text)) throw new UsageError(`--${name}: "${text}" is not a whole number; write ${what}, e.g. --${name} ${example}`);
    return Number(text);
  };
}

export async function main(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  // On a terminal, log lines and the progress bar share stderr: the bar prints the lines above it.
  const io: CliIo = given.isTTY ? { ...given, stderr: new TerminalOutput(given.stderr) } : given;
  let exitCode: number = EXIT.ok;
  let logger: Logger | undefined;
  let logFormat = 'text' as LogFormat;
  const loggerFor = (args: { logFormat: string; logLevel: string; quiet: boolean }): Logger => {
    logFormat = args.logFormat as LogFormat;
    // --quiet (cron): warnings, errors and the final summary; the progress is info, so it goes too.
    const level = args.quiet && (args.logLevel === 'debug' || args.logLevel === 'info') ? 'warn' : args.logLevel;
    return (logger = createLogger({ format: logFormat, level: level as LogLevel, destination: io.stderr }));
  };

  if (argv.includes('--version') || (argv.length === 1 && argv[0] === '-V')) {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }

  const parser = yargs([...argv])
    .scriptName('contact-sync')
    .usage('$0 <command> [options]\n\nKeep a chat platform\'s contacts in step with CSV files, in the fewest API calls.')
    .option('log-format', { choices: ['text', 'json'], default: 'text', describe: 'text for people and cron mail, json (pino) for log collectors' })
    .option('log-level', { choices: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info', describe: 'the least severe log lines shown' })
    .option('quiet', { type: 'boolean', default: false, describe: 'for cron: only warnings, errors and the final summary (no progress)' })
    .command(
      'run <jobsFile>',
      'make the platform\'s contacts match the CSV of each job',
      (y) =>
        y
          .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
          .option('job', { type: 'string', array: true, default: [] as string[], describe: 'run only this job (repeatable); all jobs by default' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'search and plan, write nothing; the reports say what would happen' })
          .option('limit', { type: 'string', coerce: wholeNumber('limit', 'a number of rows', 100), describe: 'take at most N data rows of each job' })
          .option('report-dir', { type: 'string', describe: 'folder of the reports; a new reports/<timestamp>/ by default' })
          .option('emulator', { type: 'boolean', default: false, describe: 'run against an emulator of the API started in this process' })
          .option('emulator-seed', { type: 'string', describe: 'with --emulator: JSON file of contacts to load first, keyed by connection' })
          .option('max-errors', { type: 'string', describe: 'abort (exit 3) when more than N rows, or N% of rows, failed' })
          .option('max-duration', { type: 'string', describe: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4, the next run goes on' })
          .option('max-missing', { type: 'string', describe: 'SHARE (30%): onMissing.maxShare for this run, when that many keys really left the file' })
          .option('check', { type: 'boolean', default: false, describe: 'check each connection first (one call each); exit 3 before any row when one fails' })
          .option('full', { type: 'boolean', default: false, describe: 'ignore the state store\'s hashes: compare every row with the platform and refresh the state' })
          .option('shard', { type: 'string', describe: 'I/N: handle only the rows whose key hashes to shard I of N (N workers cover the file once)' }),
      async (args) => {
        const log = loggerFor(args);
        const { parseMaxDurationFlag, parseMaxErrorsFlag, parseMaxMissingFlag, parseShardFlag, runCommand } = await import('./run-command.js');
        exitCode = await runCommand(
          {
            jobsFile: args.jobsFile,
            job: args.job,
            dryRun: args.dryRun,
            limit: args.limit,
            reportDir: args.reportDir,
            emulator: args.emulator,
            emulatorSeed: args.emulatorSeed,
            maxErrors: args.maxErrors === undefined ? undefined : parseMaxErrorsFlag(args.maxErrors),
            full: args.full,
            check: args.check,
            ...(args.maxDuration === undefined ? {} : { maxDuration: parseMaxDurationFlag(args.maxDuration) }),
            ...(args.maxMissing === undefined ? {} : { maxMissing: parseMaxMissingFlag(args.maxMissing) }),
            logFormat: args.logFormat as LogFormat,
            shard: args.shard === undefined ? undefined : parseShardFlag(args.shard),
          },
          io,
          log,
        );
      },
    )
    .command(
      'validate <jobsFile>',
      'check the config and every row through the mapper, with no API call',
      (y) =>
        y
          .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
          .option('job', { type: 'string', array: true, default: [] as string[], describe: 'check only this job (repeatable)' }),
      async (args) => {
        const { validateCommand } = await import('./validate-command.js');
        exitCode = await validateCommand({ jobsFile: args.jobsFile, job: args.job }, io, loggerFor(args));
      },
    )
    .command(
      'check <jobsFile>',
      'check each connection the jobs use: it answers, the token is accepted, it is not throttled (one call each)',
      (y) =>
        y
          .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
          .option('job', { type: 'string', array: true, default: [] as string[], describe: 'check only the connections of this job (repeatable)' }),
      async (args) => {
        const { checkCommand } = await import('./check-command.js');
        exitCode = await checkCommand({ jobsFile: args.jobsFile, job: args.job }, io, loggerFor(args));
      },
    )
    .command(
      'emulator',
      'serve the local emulator of the Contacts and Messaging API v1 until interrupted',
      (y) =>
        y
          .option('port', { type: 'string', default: '4010', coerce: wholeNumber('port', 'a TCP port', 4010), describe: 'the port to listen on (0: any free port)' })
          .option('host', { type: 'string', default: '127.0.0.1', describe: 'the address to listen on (0.0.0.0 for every interface)' })
          .option('token', { type: 'string', array: true, default: ['demo-token'], describe: 'a channel token, TOKEN or TOKEN:viber (repeatable)' })
          .option('contacts-rate', { type: 'string', default: '100/min', describe: 'contacts API limit per channel, e.g. 100/min, or off' })
          .option('messages-rate', { type: 'string', default: '25/s', describe: 'messages API limit per channel, or off' })
          .option('admin-key', { type: 'string', describe: 'key of the admin API (x-admin-key); random and printed by default' }),
      async (args) => {
        const { emulatorCommand } = await import('./emulator-command.js');
        exitCode = await emulatorCommand(
          { port: args.port ?? 4010, host: args.host, token: args.token, contactsRate: args.contactsRate, messagesRate: args.messagesRate, adminKey: args.adminKey },
          io,
          loggerFor(args),
        );
      },
    )
    .command(
      'state <action> <jobsFile>',
      'show or reset the state store of a job',
      (y) =>
        y
          .positional('action', { choices: ['show', 'reset'] as const, demandOption: true, describe: 'show: what the state holds; reset: delete it' })
          .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
          .option('job', { type: 'string', demandOption: true, describe: 'the job whose state is meant' })
          .option('keys', { type: 'string', coerce: wholeNumber('keys', 'a number of keys', 20), describe: 'with show: list the first N keys and their contact ids' })
          .option('yes', { type: 'boolean', default: false, describe: 'with reset: reset without asking' })
          .option('keep-messages', { type: 'boolean', default: false, describe: 'with reset: keep the journal of messages sent, so none is sent twice' }),
      async (args) => {
        const { stateCommand } = await import('./state-command.js');
        exitCode = await stateCommand(
          { action: args.action, jobsFile: args.jobsFile, job: args.job, yes: args.yes, keepMessages: args.keepMessages, ...(args.keys === undefined ? {} : { keys: args.keys }) },
          io,
          loggerFor(args),
        );
      },
    )
    .command('schema', false, () => undefined, async () => {
      const { schemaCommand } = await import('./schema-command.js');
      exitCode = schemaCommand(io);
    })
    .demandCommand(1, 'name a command: run, validate, check, state or emulator')
    .strict()
    .help()
    // Shown in the help; `--version` itself is answered above, on the CLI's own stdout.
    .version('version', 'print the version', packageVersion())
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((message, error) => {
      // A coerce function's UsageError arrives wrapped by yargs (a YError with the same message).
      if (error?.name === 'YError' && message !== null && message !== undefined) throw new UsageError(message);
      if (error !== undefined && error !== null) throw error;
      // getOptions() is yargs' own (untyped) view of the options known where parsing stopped.
      const known = Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
      throw new UsageErrorFromYargs(explainUsage(message ?? '', argv, known));
    });

  try {
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    const failure = describeFailure(error);
    // A usage error is one line, then the command's usage and where the help is: not the whole help.
    if (failure.showUsage) {
      io.stderr.write(`contact-sync: ${failure.message}\n${usageFooter(argv)}\n`);
      return failure.exitCode;
    }
    // JSON logs carry every failure with its code, for collectors; in text, an input error is a
    // plain line a person reads (its message names the file, the place and the fix).
    if (logger !== undefined && (failure.exitCode !== EXIT.usage || logFormat === 'json')) logger.error({ code: failure.code, exitCode: failure.exitCode }, failure.message);
    else io.stderr.write(`contact-sync: ${failure.message}\n`);
    return failure.exitCode;
  }
}
