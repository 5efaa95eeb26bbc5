/** `contact-sync check`: its options; the checks themselves are `../check-command.ts`. */
import { commandModule, type CommandContext } from './command-context.js';

export const checkDefinition = (context: CommandContext) =>
  commandModule({
    command: 'check <jobsFile>',
    describe: 'check each connection the jobs use: it answers, the token is accepted, it is not throttled (one call each)',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', array: true, default: [] as string[], describe: 'check only the connections of this job (repeatable)' }),
    handler: async (args) => {
      const { checkCommand } = await import('../check-command.js');
      context.exit(await checkCommand({ jobsFile: args.jobsFile, job: args.job }, context.io, context.logger(args)));
    },
  });
