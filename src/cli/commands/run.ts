/** `contact-sync run`: its options; the run itself is `../run-command.ts`. */
import type { LogFormat } from '../logger.js';
import { commandModule, type CommandContext } from './command-context.js';
import { withRowOptions } from './run-options.js';

export const runDefinition = (context: CommandContext) =>
  commandModule({
    command: 'run <jobsFile>',
    describe: 'make the platform\'s contacts match the CSV of each job',
    builder: (y) =>
      withRowOptions(y, {
        verb: 'run',
        limit: 'take at most N data rows of each job',
        reportDir: 'folder of the reports; a new reports/<timestamp>/ by default',
        maxErrors: 'abort (exit 3) when more than N rows, or N% of rows, failed',
        maxDuration: 'DURATION (90s, 45m, 6h): stop taking rows in time to finish those in flight within it; exit 4, the next run goes on',
      })
        .option('dry-run', { type: 'boolean', default: false, describe: 'search and plan, write nothing; the reports say what would happen' })
        .option('max-missing', { type: 'string', describe: 'SHARE (30%): onMissing.maxShare for this run, when that many keys really left the file' })
        .option('allow', { type: 'string', array: true, requiresArg: true, describe: '[JOB:]NAME (minRows, maxChange): let this run past that guard, of every job it runs or of JOB only (repeatable)' })
        .option('partial', { type: 'boolean', default: false, describe: 'the input is a part of the export (a slice, a file of fixed rows): the departed step (onMissing) does not run' })
        .option('full', { type: 'boolean', default: false, describe: 'ignore the state store\'s hashes: compare every row with the platform and refresh the state' })
        .option('shard', { type: 'string', describe: 'I/N: handle only the rows whose key hashes to shard I of N (N workers cover the file once)' })
        .option('metrics-file', { type: 'string', requiresArg: true, describe: 'PATH: after each job, its figures for node_exporter\'s textfile collector (replaces metrics.textfile)' })
        .option('pushgateway', { type: 'string', requiresArg: true, describe: 'URL: after each job, its figures pushed to this Prometheus Pushgateway (replaces metrics.pushgateway)' }),
    handler: async (args) => {
      const log = context.logger(args);
      // One after the other: two graphs that share modules, loaded at once, are not linked by jest's
      // ESM runtime on Node 22 ("a module not been linked"); Node itself would not mind.
      const flags = await import('../run-flags.js');
      const { runCommand } = await import('../run-command.js');
      context.exit(
        await runCommand(
          {
            ...flags.rowCommandFlags(args),
            dryRun: args.dryRun,
            full: args.full,
            partial: args.partial,
            allow: args.allow === undefined ? undefined : flags.parseAllowFlags(args.allow),
            maxMissing: args.maxMissing === undefined ? undefined : flags.parseMaxMissingFlag(args.maxMissing),
            logFormat: args.logFormat as LogFormat,
            shard: args.shard === undefined ? undefined : flags.parseShardFlag(args.shard),
            watchFlags: {
              ...(args.metricsFile === undefined ? {} : { metricsFile: args.metricsFile }),
              ...(args.pushgateway === undefined ? {} : { pushgateway: flags.parsePushgatewayFlag(args.pushgateway) }),
            },
          },
          context.io,
          log,
        ),
      );
    },
  });
