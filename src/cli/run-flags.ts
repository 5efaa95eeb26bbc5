/**
 * The flags of the commands that run jobs (`run`, `reconcile`, `undo`), read from the command
 * line: each flag's form checked once here, with an error naming the flag and the fix (exit 2),
 * and the command line as the run journal and the lock's holder file record it. Loaded when such
 * a command runs, not by `commands/*.ts` (a cold start pays only for what it uses).
 */
import { urlOriginOnly } from '../api/strip-url-auth.js';
import { DURATION_FORMS, parseDuration } from '../config/duration.js';
import { parseMaxErrors, type MaxErrors } from '../config/max-errors.js';
import { parseMissingShare } from '../config/missing-share.js';
import { urlProblem } from '../config/schema.js';
import { parseAllow, type AllowFlag, type GuardName } from '../pipeline/guards/guard-verdict.js';
import { didYouMean } from '../config/did-you-mean.js';
import { parseShard, type Shard } from '../pipeline/kinds/shard.js';
import type { RowCommandArgs } from './commands/run-options.js';
import type { RowFlags } from './rows-job.js';
import type { SessionFlags } from './run-session.js';
import { UsageError } from './usage-error.js';

/** The options `run` and `reconcile` share, as flags (their form checked). */
export function rowCommandFlags(args: RowCommandArgs): SessionFlags & RowFlags {
  return {
    jobsFile: args.jobsFile,
    job: args.job,
    limit: args.limit,
    reportDir: args.reportDir,
    emulator: args.emulator,
    emulatorSeed: args.emulatorSeed,
    maxErrors: args.maxErrors === undefined ? undefined : parseMaxErrorsFlag(args.maxErrors),
    maxDuration: args.maxDuration === undefined ? undefined : parseMaxDurationFlag(args.maxDuration),
    check: args.check,
    input: args.input,
  };
}

/** `--allow minRows --allow crm-nightly:maxChange`: the guards' names, as jobs.yaml writes them, each for every job or one. */
export function parseAllowFlags(texts: readonly string[]): AllowFlag[] {
  return texts.map((text) => {
    const parsed = parseAllow(text);
    if ('problem' in parsed) throw new UsageError(`--allow: ${parsed.problem}`);
    return parsed;
  });
}

/** The guards `--allow` lets `job` go past. */
export function allowedFor(allow: readonly AllowFlag[] | undefined, job: string): GuardName[] {
  return [...new Set((allow ?? []).filter((flag) => flag.job === undefined || flag.job === job).map((flag) => flag.guard))];
}

/** `--allow JOB:NAME` must name a job the command runs: a typo would let no job past, silently. */
export function refuseAllowOfOtherJobs(allow: readonly AllowFlag[] | undefined, jobs: readonly string[]): void {
  for (const flag of allow ?? []) {
    if (flag.job === undefined || jobs.includes(flag.job)) continue;
    const suggestion = didYouMean(flag.job, jobs);
    throw new UsageError(
      `--allow ${flag.job}:${flag.guard}: no job "${flag.job}" runs in this command (${jobs.join(', ')})${suggestion === undefined ? '' : `; did you mean "${suggestion}"?`}; name one of them, or write --allow ${flag.guard} for every job`,
    );
  }
}

/** `--allow` as the command line records it. */
export function describeAllow(flag: AllowFlag): string {
  return `--allow ${flag.job === undefined ? '' : `${flag.job}:`}${flag.guard}`;
}

/** `I/N` for --shard. */
export function parseShardFlag(text: string): Shard {
  try {
    return parseShard(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--max-errors N` or `N%`: the same forms as `maxErrors` in jobs.yaml. */
export function parseMaxErrorsFlag(text: string): MaxErrors {
  const parsed = parseMaxErrors(text);
  if ('problem' in parsed) throw new UsageError(`--max-errors: "${text}" ${parsed.problem}`);
  return parsed.ok;
}

/** `--max-missing 30%`: the same form as `onMissing.maxShare` in jobs.yaml. */
export function parseMaxMissingFlag(text: string): number {
  const parsed = parseMissingShare(text);
  if ('problem' in parsed) throw new UsageError(`--max-missing: "${text}" ${parsed.problem}`);
  return parsed.ok;
}

/** `--pushgateway URL`: an http(s) URL, its credentials never echoed. */
export function parsePushgatewayFlag(text: string): string {
  const problem = urlProblem(text, ['http:', 'https:'], 'an http:// or https:// URL, e.g. --pushgateway http://pushgateway:9091');
  if (problem !== undefined) throw new UsageError(`--pushgateway: "${urlOriginOnly(text)}" ${problem}`);
  return text;
}

/** `--max-duration 90s | 45m | 6h`. */
export function parseMaxDurationFlag(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw new UsageError(`--max-duration: "${text}" is not a duration; write ${DURATION_FORMS.replace('500ms, ', '')}, e.g. --max-duration 6h`);
  return ms;
}

/**
 * The run as the state store's journal and the lock's holder file record it: the command, the
 * jobs file and the flags that change what it does, in the command's order; never a secret.
 */
export function describeRun(command: 'run' | 'reconcile' | 'undo', jobsFile: string, flags: ReadonlyArray<string | false | undefined>): string {
  return [command, jobsFile, ...flags.filter((flag): flag is string => typeof flag === 'string')].join(' ');
}
