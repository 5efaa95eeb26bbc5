/**
 * What every command's definition (`commands/<name>.ts`) is given by `main.ts`: the process's
 * streams, the logger its global flags ask for, and where its exit code goes. A definition holds
 * the command's yargs options and a thin handler that loads the command's module when it runs, so
 * that `validate` never loads the HTTP client or SQLite (a cold start pays only for what it uses).
 */
import type { Argv, CommandModule } from 'yargs';
import type { Logger } from 'pino';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../usage-error.js';

/** The global options every command has, as yargs types them (`main.ts` declares them). */
export type GlobalArgs = { 'log-format': string } & { 'log-level': string } & { quiet: boolean };

/** The global options as a handler reads them (camel case). */
export interface LoggingArgs {
  logFormat: string;
  logLevel: string;
  quiet: boolean;
}

export interface CommandContext {
  readonly io: CliIo;
  /** The logger of the global options the command was run with. */
  logger(args: LoggingArgs): Logger;
  /** The exit code `main` returns. */
  exit(code: number): void;
}

/** A command's yargs module, typed from its builder so the handler sees its options. */
export function commandModule<U>(module: CommandModule<GlobalArgs, U> & { builder: (y: Argv<GlobalArgs>) => Argv<U> }): CommandModule<GlobalArgs, U> {
  return module;
}

/** A whole number from 0 up for `--name`, from the text as typed (yargs' number type says NaN). */
export function wholeNumber(name: string, what: string, example: number): (value: string | number | undefined) => number | undefined {
  return (value) => {
    if (value === undefined) return undefined;
    const text = String(value).trim();
    if (!/^\d+$/.test(text)) throw new UsageError(`--${name}: "${text}" is not a whole number; write ${what}, e.g. --${name} ${example}`);
    return Number(text);
  };
}
