/**
 * Local speed and memory: `contact-sync validate` (config, header, every row through the mapper,
 * no API call) over generated files, in its own process so its peak RSS is its own.
 */
import { statSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectExit, runCli, type CliPaths } from './cli-child.js';
import { writeCustomerFile } from './customer-file.js';
import { jobsYaml } from './jobs-file.js';

export interface LocalSpeedResult {
  rows: number;
  fileMb: number;
  /** Process start to exit, start-up included. */
  wallMs: number;
  rowsPerSecond: number;
  maxRssKb: number;
  cpuMs: number;
}

export async function runLocalSpeed(context: { workDir: string; cli: CliPaths }, sizes: readonly number[], log: (line: string) => void): Promise<LocalSpeedResult[]> {
  const results: LocalSpeedResult[] = [];
  for (const rows of sizes) {
    const input = join(context.workDir, `customers-${rows}.csv`);
    await writeCustomerFile(input, rows);
    const jobsFile = join(context.workDir, `validate-${rows}.yaml`);
    writeFileSync(jobsFile, jobsYaml([{ name: `validate-${rows}`, input, state: false }]));
    log(`  validate ${rows} rows`);
    const run = await runCli(context.cli, ['validate', jobsFile, '--log-level', 'warn'], {
      cwd: context.workDir,
      // validate calls no API: the connection only has to be well-formed.
      env: { BENCH_API_URL: 'http://127.0.0.1:9/api', BENCH_CHANNEL_TOKEN: 'validate-only', BENCH_CONTACTS_RATE: '100/min' },
    });
    expectExit(run, `contact-sync validate (${rows} rows)`);
    if (!run.outputTail.includes(`${rows} rows, ${rows} valid, 0 invalid`)) {
      throw new Error(`bench: validate of ${rows} rows did not report every row valid; its last output:\n${run.outputTail}`);
    }
    const fileMb = statSync(input).size / 1024 / 1024;
    rmSync(input);
    const result = { rows, fileMb, wallMs: run.wallMs, rowsPerSecond: (rows / run.wallMs) * 1000, maxRssKb: run.maxRssKb, cpuMs: run.cpuMs };
    log(`     ${Math.round(result.rowsPerSecond)} rows/s, peak RSS ${(result.maxRssKb / 1024).toFixed(0)} MB`);
    results.push(result);
  }
  return results;
}
