/** `contact-sync validate`: its options; the check itself is `../validate-command.ts`. */
import { commandModule, type CommandContext } from './command-context.js';

export const validateDefinition = (context: CommandContext) =>
  commandModule({
    command: 'validate <jobsFile>',
    describe: 'check the config and every row through the mapper, with no API call',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', array: true, default: [] as string[], describe: 'check only this job (repeatable)' })
        .option('input', { type: 'string', requiresArg: true, describe: 'FILE, or - for standard input (a pipe): replaces the input of the one job named with --job' })
        .option('problems', { type: 'string', requiresArg: true, describe: 'FILE: every row problem as CSV (job,input,line,error_code,error_message,key), not only the first 50' }),
    handler: async (args) => {
      const { validateCommand } = await import('../validate-command.js');
      context.exit(await validateCommand({ jobsFile: args.jobsFile, job: args.job, ...(args.input === undefined ? {} : { input: args.input }), ...(args.problems === undefined ? {} : { problems: args.problems }) }, context.io, context.logger(args)));
    },
  });
