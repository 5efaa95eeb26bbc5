/**
 * The options the commands that run jobs share (`run`, `reconcile`, `undo`), declared once: their
 * names, types and parsing are here, and each command says them in its own words in its help.
 * `run-flags.ts` reads them into flags when the command runs.
 */
import type { Argv } from 'yargs';
import { wholeNumber } from './command-context.js';

/** What a command says of the options it shares, in its help. */
export interface SessionOptionsHelp {
  readonly reportDir: string;
  readonly maxDuration: string;
}

export interface RowOptionsHelp extends SessionOptionsHelp {
  /** The verb of `--job`'s and `--emulator`'s help: `run only this job`, `reconcile against an emulator`. */
  readonly verb: string;
  readonly limit: string;
  readonly maxErrors: string;
}

/** The options `run` and `reconcile` share, as yargs types them (camel case). */
export interface RowCommandArgs {
  jobsFile: string;
  job: string[];
  limit: number | undefined;
  input: string | undefined;
  reportDir: string | undefined;
  emulator: boolean;
  emulatorSeed: string | undefined;
  maxErrors: string | undefined;
  maxDuration: string | undefined;
  check: boolean;
}

/** The jobs file, every such command's first argument. */
export function withJobsFile<T>(y: Argv<T>) {
  return y.positional('jobsFile', { type: 'string', demandOption: true, describe: 'the jobs file (jobs.yaml)' });
}

/** `--report-dir` and `--max-duration`: every command that runs jobs. */
export function withSessionOptions<T>(y: Argv<T>, help: SessionOptionsHelp) {
  return y.option('report-dir', { type: 'string', describe: help.reportDir }).option('max-duration', { type: 'string', describe: help.maxDuration });
}

/** The jobs file and the options of the commands that read the jobs' rows (`run`, `reconcile`). */
export function withRowOptions<T>(y: Argv<T>, help: RowOptionsHelp) {
  const selected = withJobsFile(y)
    .option('job', { type: 'string', array: true, default: [] as string[], describe: `${help.verb} only this job (repeatable); all jobs by default` })
    .option('limit', { type: 'string', coerce: wholeNumber('limit', 'a number of rows', 100), describe: help.limit })
    .option('input', { type: 'string', requiresArg: true, describe: 'FILE, or - for standard input (a pipe): replaces the input of the one job named with --job' });
  return withSessionOptions(selected, help)
    .option('emulator', { type: 'boolean', default: false, describe: `${help.verb} against an emulator of the API started in this process` })
    .option('emulator-seed', { type: 'string', describe: 'with --emulator: JSON file of contacts to load first, keyed by connection' })
    .option('max-errors', { type: 'string', describe: help.maxErrors })
    .option('check', { type: 'boolean', default: false, describe: 'check each connection first (one call each); exit 3 before any row when one fails' });
}
