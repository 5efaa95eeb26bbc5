/**
 * The job's input opened and its header checked against every column the job uses, before any
 * row is read or any call made: a missing column stops the job with every problem listed.
 */
import type { Job } from '../../config/job-types.js';
import { assertHeader } from './header-check.js';
import { readSource, type Source } from './source.js';

export async function openCheckedSource(job: Job): Promise<Source> {
  const source = await readSource(job.input);
  try {
    assertHeader(job, source.header, job.input.label ?? job.input.path);
  } catch (error) {
    await source.close();
    throw error;
  }
  return source;
}
