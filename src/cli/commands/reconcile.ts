/**
 * `contact-sync reconcile`: its options. The reconcile is a run session with the pipeline's
 * reconcile work (`../reconcile-command.ts`): the same source, mapping, lock, limits and progress
 * as a run (docs/reconcile.md).
 */
import type { LogFormat } from '../logger.js';
import { commandModule, type CommandContext } from './command-context.js';
import { withRowOptions } from './run-options.js';
import { UsageError } from '../usage-error.js';

export const reconcileDefinition = (context: CommandContext) =>
  commandModule({
    command: 'reconcile <jobsFile>',
    describe: 'compare each job\'s CSV with the platform, field by field, both ways; write nothing to the platform',
    builder: (y) =>
      withRowOptions(
        y
          .option('merge-duplicates', { type: 'boolean', default: false, describe: 'merge the contacts of a key held by several into one (API v2): the one the state knows, else the oldest, holding the row\'s values and every contact\'s tags' })
          .option('tag-extras', { type: 'string', describe: 'TAG: give TAG to the contacts of the job\'s match.prefetch set whose key the file lacks (undo of the reconcile takes it away)' })
          .option('dry-run', { type: 'boolean', default: false, describe: 'with --merge-duplicates or --tag-extras: list the merges and tags, write none to the platform' }),
        {
        verb: 'reconcile',
        limit: 'compare at most N data rows of each job (the contacts the file lacks are then not listed)',
        reportDir: 'folder of <job>.diff.csv, <job>.reconcile.json and <job>.reconcile.html; a new reports/<timestamp>/ by default',
        maxErrors: 'abort (exit 3) when more than N rows, or N% of rows, could not be compared',
        maxDuration: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4',
        },
      ),
    handler: async (args) => {
      const log = context.logger(args);
      // One after the other: two graphs that share modules, loaded at once, are not linked by jest's
      // ESM runtime on Node 22 ("a module not been linked"); Node itself would not mind.
      const flags = await import('../run-flags.js');
      const { reconcileCommand } = await import('../reconcile-command.js');
      const tagExtras = args.tagExtras === undefined ? undefined : String(args.tagExtras);
      if (tagExtras !== undefined && (tagExtras.trim() === '' || [...tagExtras].length > 255)) throw new UsageError('--tag-extras: give a tag of 1 to 255 characters (e.g. --tag-extras not-in-crm)');
      if (args.dryRun && !args.mergeDuplicates && tagExtras === undefined) throw new UsageError('--dry-run: a reconcile writes nothing to the platform but with --merge-duplicates or --tag-extras; give one of them, or leave --dry-run out');
      context.exit(
        await reconcileCommand(
          { ...flags.rowCommandFlags(args), logFormat: args.logFormat as LogFormat, finish: { dryRun: args.dryRun, mergeDuplicates: args.mergeDuplicates, tagExtras } },
          context.io,
          log,
        ),
      );
    },
  });
