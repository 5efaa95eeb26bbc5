/**
 * A run of one job exactly as `contact-sync run` wires it (client, limiter, state store, runJob),
 * except that the limiter's spacing is given instead of derived from the rate: `minTimeFor`
 * rounds it up to a whole millisecond, which at a scaled-up limit costs a visible share of the
 * budget. The bench runs this as a child next to the real command to measure that share.
 * Not a product entry point.
 *
 *   node dist/bench/spaced-run.js <jobs.yaml> <minTimeMs> <reportDir>
 */
import { resolve } from 'node:path';
import Bottleneck from 'bottleneck';
import { ApiCallStats } from '../src/api/call-stats.js';
import { ApiClient } from '../src/api/client.js';
import { loadJobsFile } from '../src/config/index.js';
import { runJob } from '../src/pipeline/run-job.js';
import { StateStore } from '../src/state/state-store.js';

async function main(argv: readonly string[]): Promise<number> {
  const [jobsFile, minTimeText, reportDir] = argv;
  const minTime = Number(minTimeText);
  if (jobsFile === undefined || reportDir === undefined || !(minTime > 0)) {
    throw new Error('usage: node dist/bench/spaced-run.js <jobs.yaml> <minTimeMs> <reportDir>');
  }
  const { jobsFile: loaded } = await loadJobsFile(resolve(jobsFile), { env: process.env });
  const [job] = loaded.jobs;
  if (job === undefined) throw new Error(`${jobsFile}: no job`);
  const contacts = new Bottleneck({ minTime, maxConcurrent: null });
  const messages = new Bottleneck({ minTime: 1, maxConcurrent: null });
  const api = new ApiClient({
    baseUrl: job.connection.baseUrl,
    token: job.connection.token,
    limiters: { contacts, messages },
    stats: new ApiCallStats(),
  });
  const state = job.state === false ? undefined : StateStore.open(job.state, { job: job.name, keyField: job.key.field });
  try {
    const run = await runJob({ job, api, reportDir: resolve(reportDir), dryRun: false, ...(state === undefined ? {} : { state }) });
    return run.exitCode;
  } finally {
    state?.close();
    await Promise.all([contacts.stop(), messages.stop()]);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
