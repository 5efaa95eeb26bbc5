/**
 * The command line: argv -> command -> exit code. The launcher (bin/contact-sync.js) sets the
 * process's exit code from what `main` returns; nothing else in the code ends the process. Each
 * command is defined in its own file (`commands/<name>.ts`: options and a thin handler); its
 * module is loaded when it runs, so `validate` does not pay for the HTTP client, the limiter or
 * SQLite in memory and start-up. This file assembles them and turns a failure into its exit code.
 */
import yargs from 'yargs';
import type { Logger } from 'pino';
import { processIo, type CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';
import { describeFailure } from './failure.js';
import { createLogger, type LogFormat, type LogLevel } from './logger.js';
import { asksForVersion, packageVersion } from './package-version.js';
import { TerminalOutput } from './terminal-output.js';
import { commandList, explainUsage, usageFooter } from './usage-hints.js';
import { UsageError, UsageErrorFromYargs } from './usage-error.js';
import type { CommandContext } from './commands/command-context.js';
import { checkDefinition } from './commands/check.js';
import { emulatorDefinition } from './commands/emulator.js';
import { reconcileDefinition } from './commands/reconcile.js';
import { runDefinition } from './commands/run.js';
import { schemaDefinition } from './commands/schema.js';
import { stateDefinition } from './commands/state.js';
import { forgetDefinition } from './commands/forget.js';
import { historyDefinition } from './commands/history.js';
import { undoDefinition } from './commands/undo.js';
import { validateDefinition } from './commands/validate.js';

export async function main(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  // On a terminal, log lines and the progress bar share stderr: the bar prints the lines above it.
  const io: CliIo = given.isTTY ? { ...given, stderr: new TerminalOutput(given.stderr) } : given;
  let exitCode: number = EXIT.ok;
  let logger: Logger | undefined;
  let logFormat = 'text' as LogFormat;
  const loggerFor = (args: { logFormat: string; logLevel: string; quiet: boolean }): Logger => {
    logFormat = args.logFormat as LogFormat;
    // --quiet (cron): warnings, errors and the final summary; the progress is info, so it goes too.
    const level = args.quiet && (args.logLevel === 'debug' || args.logLevel === 'info') ? 'warn' : args.logLevel;
    return (logger = createLogger({ format: logFormat, level: level as LogLevel, destination: io.stderr }));
  };

  const context: CommandContext = { io, logger: loggerFor, exit: (code) => (exitCode = code) };

  if (asksForVersion(argv)) {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }

  const parser = yargs([...argv])
    .scriptName('contact-sync')
    .usage('$0 <command> [options]\n\nKeep a chat platform\'s contacts in step with CSV files, in the fewest API calls.')
    .option('log-format', { choices: ['text', 'json'], default: 'text', describe: 'text for people and cron mail, json (pino) for log collectors' })
    .option('log-level', { choices: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info', describe: 'the least severe log lines shown' })
    .option('quiet', { type: 'boolean', default: false, describe: 'for cron: only warnings, errors and the final summary (no progress)' })
    .command(runDefinition(context))
    .command(reconcileDefinition(context))
    .command(undoDefinition(context))
    .command(historyDefinition(context))
    .command(validateDefinition(context))
    .command(checkDefinition(context))
    .command(emulatorDefinition(context))
    .command(stateDefinition(context))
    .command(forgetDefinition(context))
    .command(schemaDefinition(context))
    .demandCommand(1, `name a command: ${commandList()}`)
    .strict()
    .help()
    // Shown in the help; `--version` itself is answered above, on the CLI's own stdout.
    .version('version', 'print the version', packageVersion())
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .exitProcess(false)
    .fail((message, error) => {
      // A coerce function's UsageError arrives wrapped by yargs (a YError with the same message).
      if (error?.name === 'YError' && message !== null && message !== undefined) throw new UsageError(message);
      if (error !== undefined && error !== null) throw error;
      // getOptions() is yargs' own (untyped) view of the options known where parsing stopped.
      const known = Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
      throw new UsageErrorFromYargs(explainUsage(message ?? '', argv, known));
    });

  try {
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    const failure = describeFailure(error);
    // A usage error is one line, then the command's usage and where the help is: not the whole help.
    if (failure.showUsage) {
      io.stderr.write(`contact-sync: ${failure.message}\n${usageFooter(argv)}\n`);
      return failure.exitCode;
    }
    // JSON logs carry every failure with its code, for collectors; in text, an input error is a
    // plain line a person reads (its message names the file, the place and the fix).
    if (logger !== undefined && (failure.exitCode !== EXIT.usage || logFormat === 'json')) logger.error({ code: failure.code, exitCode: failure.exitCode }, failure.message);
    else io.stderr.write(`contact-sync: ${failure.message}\n`);
    return failure.exitCode;
  }
}
