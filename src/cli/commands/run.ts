/** `contact-sync run`: its options; the run itself is `../run-command.ts`. */
import type { LogFormat } from '../logger.js';
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';

export const runDefinition = (context: CommandContext) =>
  commandModule({
    command: 'run <jobsFile>',
    describe: 'make the platform\'s contacts match the CSV of each job',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', array: true, default: [] as string[], describe: 'run only this job (repeatable); all jobs by default' })
        .option('dry-run', { type: 'boolean', default: false, describe: 'search and plan, write nothing; the reports say what would happen' })
        .option('limit', { type: 'string', coerce: wholeNumber('limit', 'a number of rows', 100), describe: 'take at most N data rows of each job' })
        .option('input', { type: 'string', requiresArg: true, describe: 'FILE, or - for standard input (a pipe): replaces the input of the one job named with --job' })
        .option('report-dir', { type: 'string', describe: 'folder of the reports; a new reports/<timestamp>/ by default' })
        .option('emulator', { type: 'boolean', default: false, describe: 'run against an emulator of the API started in this process' })
        .option('emulator-seed', { type: 'string', describe: 'with --emulator: JSON file of contacts to load first, keyed by connection' })
        .option('max-errors', { type: 'string', describe: 'abort (exit 3) when more than N rows, or N% of rows, failed' })
        .option('max-duration', { type: 'string', describe: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4, the next run goes on' })
        .option('max-missing', { type: 'string', describe: 'SHARE (30%): onMissing.maxShare for this run, when that many keys really left the file' })
        .option('allow', { type: 'string', array: true, requiresArg: true, describe: 'NAME (minRows, maxChange): let this run past that guard of the job (repeatable)' })
        .option('partial', { type: 'boolean', default: false, describe: 'the input is a part of the export (a slice, a file of fixed rows): the departed step (onMissing) does not run' })
        .option('check', { type: 'boolean', default: false, describe: 'check each connection first (one call each); exit 3 before any row when one fails' })
        .option('full', { type: 'boolean', default: false, describe: 'ignore the state store\'s hashes: compare every row with the platform and refresh the state' })
        .option('shard', { type: 'string', describe: 'I/N: handle only the rows whose key hashes to shard I of N (N workers cover the file once)' })
        .option('metrics-file', { type: 'string', requiresArg: true, describe: 'PATH: after each job, its figures for node_exporter\'s textfile collector (replaces metrics.textfile)' })
        .option('pushgateway', { type: 'string', requiresArg: true, describe: 'URL: after each job, its figures pushed to this Prometheus Pushgateway (replaces metrics.pushgateway)' }),
    handler: async (args) => {
      const log = context.logger(args);
      const { parseAllowFlags, parseMaxDurationFlag, parseMaxErrorsFlag, parseMaxMissingFlag, parsePushgatewayFlag, parseShardFlag, runCommand } = await import('../run-command.js');
      context.exit(
        await runCommand(
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
            partial: args.partial,
            ...(args.allow === undefined ? {} : { allow: parseAllowFlags(args.allow) }),
            ...(args.maxDuration === undefined ? {} : { maxDuration: parseMaxDurationFlag(args.maxDuration) }),
            ...(args.maxMissing === undefined ? {} : { maxMissing: parseMaxMissingFlag(args.maxMissing) }),
            logFormat: args.logFormat as LogFormat,
            ...(args.input === undefined ? {} : { input: args.input }),
            shard: args.shard === undefined ? undefined : parseShardFlag(args.shard),
            watch: {
              ...(args.metricsFile === undefined ? {} : { metricsFile: args.metricsFile }),
              ...(args.pushgateway === undefined ? {} : { pushgateway: parsePushgatewayFlag(args.pushgateway) }),
            },
          },
          context.io,
          log,
        ),
      );
    },
  });
