/**
 * `contact-sync undo`: its options. The undo is a run session with the pipeline's undo in place
 * of the rows (`../undo-command.ts`: the same lock, limits, signals and report folder as a run;
 * docs/undo.md).
 */
import { UsageError } from '../usage-error.js';
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';
import { withJobsFile, withSessionOptions } from './run-options.js';

export const undoDefinition = (context: CommandContext) =>
  commandModule({
    command: 'undo <jobsFile>',
    describe: 'put back what one run of a job changed, from its change journal (fields changed since are left as conflicts)',
    builder: (y) =>
      withSessionOptions(
        withJobsFile(y)
          .option('job', { type: 'string', demandOption: true, describe: 'the job whose run is undone' })
          .option('run', { type: 'string', demandOption: true, coerce: wholeNumber('run', 'a run id (state show lists them; summary.json has runId)', 42), describe: 'RUN_ID: the run to undo, as state show and summary.json name it' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'read each contact and report what would be put back; write nothing' })
          .option('force', { type: 'boolean', default: false, describe: 'put back fields changed on the platform since the run, and values before the run did not read, too (conflicts and unverified otherwise)' })
          .option('key', { type: 'string', array: true, describe: 'KEY: undo only this key\'s contacts (repeatable); the run\'s other changes stand' })
          .option('keep-created', { type: 'boolean', default: false, describe: 'leave the contacts the run created alone (not tagged for deletion)' })
          .option('delete-created', { type: 'boolean', default: false, describe: 'delete the contacts the run created (API v2), each read first: one changed since is kept, a conflict; undoing this undo creates them again' }),
        {
          reportDir: 'folder of <job>.undo.csv and <job>.undo.json; a new reports/<timestamp>/ by default',
          maxDuration: 'DURATION (90s, 45m, 6h): stop taking contacts in time; exit 4, running undo again goes on',
        },
      ),
    handler: async (args) => {
      const log = context.logger(args);
      // One after the other: see commands/run.ts.
      const { parseMaxDurationFlag } = await import('../run-flags.js');
      const { undoCommand } = await import('../undo-command.js');
      const runId = args.run;
      if (runId === undefined || runId === 0) throw new UsageError('--run: a run id is 1 or more; state show lists the runs of the job');
      if (args.keepCreated && args.deleteCreated) throw new UsageError('--keep-created and --delete-created: give one of them (leave the contacts the run created alone, or delete them)');
      const keys = args.key?.map(String);
      if (keys?.some((key) => key.trim() === '') === true) throw new UsageError('--key: an empty key was given; name each key as the input has it (e.g. --key C0042)');
      context.exit(
        await undoCommand(
          {
            jobsFile: args.jobsFile,
            job: args.job,
            runId,
            force: args.force,
            keepCreated: args.keepCreated,
            deleteCreated: args.deleteCreated,
            ...(keys === undefined ? {} : { keys }),
            dryRun: args.dryRun,
            reportDir: args.reportDir,
            maxDuration: args.maxDuration === undefined ? undefined : parseMaxDurationFlag(args.maxDuration),
          },
          context.io,
          log,
        ),
      );
    },
  });
