/**
 * `contact-sync reconcile`: its options. The reconcile is a run session with the pipeline's
 * reconcile work (`../reconcile-command.ts`): the same source, mapping, lock, limits and progress
 * as a run (docs/reconcile.md).
 */
import type { LogFormat } from '../logger.js';
import { commandModule, type CommandContext } from './command-context.js';
import { withRowOptions } from './run-options.js';

export const reconcileDefinition = (context: CommandContext) =>
  commandModule({
    command: 'reconcile <jobsFile>',
    describe: 'compare each job\'s CSV with the platform, field by field, both ways; write nothing to the platform',
    builder: (y) =>
      withRowOptions(y, {
        verb: 'reconcile',
        limit: 'compare at most N data rows of each job (the contacts the file lacks are then not listed)',
        reportDir: 'folder of <job>.diff.csv, <job>.reconcile.json and <job>.reconcile.html; a new reports/<timestamp>/ by default',
        maxErrors: 'abort (exit 3) when more than N rows, or N% of rows, could not be compared',
        maxDuration: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4',
      }),
    handler: async (args) => {
      const log = context.logger(args);
      // One after the other: two graphs that share modules, loaded at once, are not linked by jest's
      // ESM runtime on Node 22 ("a module not been linked"); Node itself would not mind.
      const flags = await import('../run-flags.js');
      const { reconcileCommand } = await import('../reconcile-command.js');
      context.exit(await reconcileCommand({ ...flags.rowCommandFlags(args), logFormat: args.logFormat as LogFormat }, context.io, log));
    },
  });
