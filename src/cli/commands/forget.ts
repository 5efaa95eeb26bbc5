/** `contact-sync forget`: its options; the erasure is `../forget-command.ts` (docs/personal-data.md). */
import { commandModule, type CommandContext } from './command-context.js';

export const forgetDefinition = (context: CommandContext) =>
  commandModule({
    command: 'forget <jobsFile>',
    describe: 'erase people from a job\'s state store (an erasure request): every value of their keys, no byte left in the file',
    builder: (y) =>
      y
        .positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' })
        .option('job', { type: 'string', demandOption: true, describe: 'the job whose state holds the keys' })
        .option('key', { type: 'string', array: true, requiresArg: true, describe: 'KEY: a key to forget, as the job\'s key column holds it (repeatable)' })
        .option('keys-file', { type: 'string', requiresArg: true, describe: 'FILE: the keys to forget, one a line (blank lines ignored), instead of --key' })
        .option('report-dir', { type: 'string', array: true, requiresArg: true, describe: 'DIR: a folder of earlier runs\' reports to search for the keys too, beside the folders the job\'s runs recorded and reports/ (repeatable; the files are listed, never edited)' })
        .option('platform', { type: 'boolean', default: false, describe: 'delete the keys\' contacts on the platform too, first (API v2; on v1 the contact ids to delete by hand are listed, exit 1)' })
        .option('dry-run', { type: 'boolean', default: false, describe: 'list what would be deleted and erased; change nothing' })
        .option('max-duration', { type: 'string', requiresArg: true, describe: 'DURATION (90s, 45m, 6h): with --platform, stop taking keys in time; exit 4, running forget again goes on' }),
    handler: async (args) => {
      const { parseMaxDurationFlag } = await import('../run-flags.js');
      const { forgetCommand } = await import('../forget-command.js');
      context.exit(
        await forgetCommand(
          {
            jobsFile: args.jobsFile,
            job: args.job,
            ...(args.key === undefined ? {} : { keys: args.key.map(String) }),
            ...(args.keysFile === undefined ? {} : { keysFile: args.keysFile }),
            ...(args.reportDir === undefined ? {} : { reportDirs: args.reportDir.map(String) }),
            platform: args.platform,
            dryRun: args.dryRun,
            ...(args.maxDuration === undefined ? {} : { maxDuration: parseMaxDurationFlag(args.maxDuration) }),
          },
          context.io,
          context.logger(args),
        ),
      );
    },
  });
