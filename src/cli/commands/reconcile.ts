/**
 * `contact-sync reconcile`: its options. The reconcile is a run (`../run-command.ts`) with the
 * pipeline's reconcile work: the same source, mapping, lock, limits and progress (docs/reconcile.md).
 */
import type { LogFormat } from '../logger.js';
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';

export const reconcileDefinition = (context: CommandContext) =>
  commandModule({
    command: 'reconcile <jobsFile>',
    describe: 'compare each job\'s CSV with the platform, field by field, both ways; write nothing to the platform',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', array: true, default: [] as string[], describe: 'reconcile only this job (repeatable); all jobs by default' })
        .option('limit', { type: 'string', coerce: wholeNumber('limit', 'a number of rows', 100), describe: 'compare at most N data rows of each job (the contacts the file lacks are then not listed)' })
        .option('input', { type: 'string', requiresArg: true, describe: 'FILE, or - for standard input (a pipe): replaces the input of the one job named with --job' })
        .option('report-dir', { type: 'string', describe: 'folder of <job>.diff.csv, <job>.reconcile.json and <job>.reconcile.html; a new reports/<timestamp>/ by default' })
        .option('emulator', { type: 'boolean', default: false, describe: 'reconcile against an emulator of the API started in this process' })
        .option('emulator-seed', { type: 'string', describe: 'with --emulator: JSON file of contacts to load first, keyed by connection' })
        .option('max-errors', { type: 'string', describe: 'abort (exit 3) when more than N rows, or N% of rows, could not be compared' })
        .option('max-duration', { type: 'string', describe: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4' })
        .option('check', { type: 'boolean', default: false, describe: 'check each connection first (one call each); exit 3 before any row when one fails' }),
    handler: async (args) => {
      const log = context.logger(args);
      const { parseMaxDurationFlag, parseMaxErrorsFlag, runCommand } = await import('../run-command.js');
      context.exit(
        await runCommand(
          {
            command: 'reconcile',
            jobsFile: args.jobsFile,
            job: args.job,
            dryRun: false,
            limit: args.limit,
            reportDir: args.reportDir,
            emulator: args.emulator,
            emulatorSeed: args.emulatorSeed,
            maxErrors: args.maxErrors === undefined ? undefined : parseMaxErrorsFlag(args.maxErrors),
            full: false,
            check: args.check,
            ...(args.maxDuration === undefined ? {} : { maxDuration: parseMaxDurationFlag(args.maxDuration) }),
            logFormat: args.logFormat as LogFormat,
            ...(args.input === undefined ? {} : { input: args.input }),
            shard: undefined,
          },
          context.io,
          log,
        ),
      );
    },
  });
