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
import { UsageError, UsageErrorFromYargs } from './usage-error.js';

export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode: number = EXIT.ok;
  let logger: Logger | undefined;
  let logFormat = 'text' as LogFormat;
  const loggerFor = (args: { logFormat: string; logLevel: string }): Logger => {
    logFormat = args.logFormat as LogFormat;
    return (logger = createLogger({ format: logFormat, level: args.logLevel as LogLevel, destination: io.stderr }));
  };

  const parser = yargs([...argv])
    .scriptName('contact-sync')
    .usage('$0 <command> [options]\n\nKeep a chat platform\'s contacts in step with CSV files, in the fewest API calls.')
    .option('log-format', { choices: ['text', 'json'], default: 'text', describe: 'text for people and cron mail, json (pino) for log collectors' })
    .option('log-level', { choices: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info' })
    .command(
      'run <jobsFile>',
      'make the platform\'s contacts match the CSV of each job',
      (y) =>
        y
          .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
          .option('job', { type: 'string', array: true, default: [] as string[], describe: 'run only this job (repeatable); all jobs by default' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'search and plan, write nothing; the reports say what would happen' })
          .option('limit', { type: 'number', describe: 'take at most N data rows of each job' })
          .option('report-dir', { type: 'string', describe: 'folder of the reports; a new reports/<timestamp>/ by default' })
          .option('emulator', { type: 'boolean', default: false, describe: 'run against an emulator of the API started in this process' })
          .option('emulator-seed', { type: 'string', describe: 'with --emulator: JSON file of contacts to load first, keyed by connection' })
          .option('max-errors', { type: 'string', describe: 'abort (exit 3) when more than N rows, or N% of rows, failed' })
          .option('full', { type: 'boolean', default: false, describe: 'ignore the state store\'s hashes: compare every row with the platform and refresh the state' })
          .option('shard', { type: 'string', describe: 'I/N: handle only the rows whose key hashes to shard I of N (N workers cover the file once)' }),
      async (args) => {
        const log = loggerFor(args);
        if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 0)) {
          throw new UsageError(`--limit: expected a whole number of rows from 0 up, got ${String(args.limit)}`);
        }
        const { parseMaxErrorsFlag, parseShardFlag, runCommand } = await import('./run-command.js');
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
          .positional('jobsFile', { type: 'string', demandOption: true })
          .option('job', { type: 'string', array: true, default: [] as string[], describe: 'check only this job (repeatable)' }),
      async (args) => {
        const { validateCommand } = await import('./validate-command.js');
        exitCode = await validateCommand({ jobsFile: args.jobsFile, job: args.job }, io, loggerFor(args));
      },
    )
    .command(
      'emulator',
      'serve the local emulator of the Contacts and Messaging API v1 until interrupted',
      (y) =>
        y
          .option('port', { type: 'number', default: 4010 })
          .option('host', { type: 'string', default: '127.0.0.1' })
          .option('token', { type: 'string', array: true, default: ['demo-token'], describe: 'a channel token, TOKEN or TOKEN:viber (repeatable)' })
          .option('contacts-rate', { type: 'string', default: '100/min', describe: 'contacts API limit per channel, e.g. 100/min, or off' })
          .option('messages-rate', { type: 'string', default: '25/s', describe: 'messages API limit per channel, or off' })
          .option('admin-key', { type: 'string', describe: 'key of the admin API (x-admin-key); random and printed by default' }),
      async (args) => {
        const { emulatorCommand } = await import('./emulator-command.js');
        exitCode = await emulatorCommand(
          { port: args.port, host: args.host, token: args.token, contactsRate: args.contactsRate, messagesRate: args.messagesRate, adminKey: args.adminKey },
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
          .option('keys', { type: 'number', describe: 'with show: list the first N keys and their contact ids' }),
      async (args) => {
        const { stateCommand } = await import('./state-command.js');
        exitCode = await stateCommand(
          { action: args.action, jobsFile: args.jobsFile, job: args.job, ...(args.keys === undefined ? {} : { keys: args.keys }) },
          io,
          loggerFor(args),
        );
      },
    )
    .command('schema', false, () => undefined, async () => {
      const { schemaCommand } = await import('./schema-command.js');
      exitCode = schemaCommand(io);
    })
    .demandCommand(1, 'name a command: run, validate, state or emulator')
    .strict()
    .help()
    .version(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((message, error) => {
      if (error !== undefined && error !== null) throw error;
      throw new UsageErrorFromYargs(message);
    });

  try {
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    const failure = describeFailure(error);
    if (failure.showUsage) io.stderr.write(`${await parser.getHelp()}\n\n`);
    // JSON logs carry every failure with its code, for collectors; in text, an input error is a
    // plain line a person reads (its message names the file, the place and the fix).
    if (logger !== undefined && (failure.exitCode !== EXIT.usage || logFormat === 'json')) logger.error({ code: failure.code, exitCode: failure.exitCode }, failure.message);
    else io.stderr.write(`contact-sync: ${failure.message}\n`);
    return failure.exitCode;
  }
}
