/** Loads jobs.yaml and picks the jobs named by `--job` (all of them when none is named). */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadJobsFile } from '../config/index.js';
import type { Job } from '../config/job-types.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './usage-error.js';


export async function loadJobs(file: string, names: readonly string[], io: CliIo, logger: Logger, options: { tokenOptional?: boolean } = {}): Promise<Job[]> {
  const { jobsFile, warnings } = await loadJobsFile(resolve(io.cwd, file), { env: io.env, ...options });
  for (const warning of warnings) logger.warn(warning);
  if (names.length === 0) return jobsFile.jobs;
  const known = new Map(jobsFile.jobs.map((job) => [job.name, job]));
  const missing = names.filter((name) => !known.has(name));
  if (missing.length > 0) {
    throw new UsageError(
      `${file}: no job named ${missing.map((n) => `"${n}"`).join(', ')}; the jobs are ${[...known.keys()].map((n) => `"${n}"`).join(', ')}`,
    );
  }
  return [...new Set(names)].map((name) => known.get(name) as Job);
}
