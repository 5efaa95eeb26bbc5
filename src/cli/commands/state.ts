/** `contact-sync state show|reset|prune|copy`: its options; the actions are `../state-command.ts`. */
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';

export const stateDefinition = (context: CommandContext) =>
  commandModule({
    command: 'state <action> <jobsFile>',
    describe: 'show, reset, prune or copy the state store of a job',
    builder: (y) =>
      y
        .positional('action', { choices: ['show', 'reset', 'prune', 'copy'] as const, demandOption: true, describe: 'show: what the state holds; reset: delete it; prune: drop the change journal of older runs (--keep-runs N) and expire what retention.journal says; copy: copy it from another store (--from)' })
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', demandOption: true, describe: 'the job whose state is meant' })
        .option('keys', { type: 'string', coerce: wholeNumber('keys', 'a number of keys', 20), describe: 'with show: list the first N keys and their contact ids' })
        .option('yes', { type: 'boolean', default: false, describe: 'with reset: reset without asking' })
        .option('keep-messages', { type: 'boolean', default: false, describe: 'with reset: keep the journal of messages sent, so none is sent twice' })
        .option('keep-runs', { type: 'string', coerce: wholeNumber('keep-runs', 'a number of runs', 30), describe: 'with prune: keep the change journal of the newest N runs (older runs can then not be undone)' })
        .option('include-creating-runs', { type: 'boolean', default: false, describe: 'with prune: drop the journal of older runs that created contacts too (a migration\'s: kept otherwise, so its undo can tag them for deletion)' })
        .option('from', { type: 'string', requiresArg: true, describe: 'with copy: PATH|URL, the store to copy the job\'s state from: a SQLite file (relative to this folder) or postgres://USER:PASSWORD@HOST:PORT/DATABASE' })
        .option('from-schema', { type: 'string', requiresArg: true, describe: 'with copy and a --from URL: the schema its tables are in (default contact_sync)' })
        .option('replace', { type: 'boolean', default: false, describe: 'with copy: replace the state the job\'s store already holds (refused otherwise)' }),
    handler: async (args) => {
      const { stateCommand } = await import('../state-command.js');
      context.exit(
        await stateCommand(
          {
            action: args.action,
            jobsFile: args.jobsFile,
            job: args.job,
            yes: args.yes,
            keepMessages: args.keepMessages,
            includeCreatingRuns: args.includeCreatingRuns,
            ...(args.keys === undefined ? {} : { keys: args.keys }),
            ...(args.keepRuns === undefined ? {} : { keepRuns: args.keepRuns }),
            ...(args.from === undefined ? {} : { from: args.from }),
            ...(args.fromSchema === undefined ? {} : { fromSchema: args.fromSchema }),
            replace: args.replace,
          },
          context.io,
          context.logger(args),
        ),
      );
    },
  });
