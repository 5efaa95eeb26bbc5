/** `contact-sync history`: its options; the reading is `../history-command.ts` (docs/undo.md). */
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';

export const historyDefinition = (context: CommandContext) =>
  commandModule({
    command: 'history <jobsFile>',
    describe: 'show the change journal: one key\'s changes run by run (--key), or everything one run changed (--run)',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', demandOption: true, describe: 'the job whose journal is read' })
        .option('key', { type: 'string', requiresArg: true, describe: 'KEY: that key\'s changes, run by run' })
        .option('run', { type: 'string', coerce: wholeNumber('run', 'a run id (state show lists them)', 42), describe: 'RUN_ID: every change of that run' })
        .option('csv', { type: 'boolean', default: false, describe: 'write CSV (run_id, recorded_at, key, contact_id, operation, field, before, after), one line per field or tag; before and after are personal values: keep the file owner-only' }),
    handler: async (args) => {
      const { historyCommand } = await import('../history-command.js');
      context.exit(
        await historyCommand(
          { jobsFile: args.jobsFile, job: args.job, csv: args.csv, ...(args.key === undefined ? {} : { key: args.key }), ...(args.run === undefined ? {} : { run: args.run }) },
          context.io,
          context.logger(args),
        ),
      );
    },
  });
