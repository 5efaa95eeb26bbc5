/**
 * Preloaded into a benchmarked `contact-sync` process (`node --import`): on exit it writes the
 * process's own resource usage to `BENCH_RUSAGE_FILE`. The kernel's peak RSS of the process is
 * the figure the memory targets are about; reading it from inside needs no /usr/bin/time.
 */
import { writeFileSync } from 'node:fs';

/** What the probe writes, as JSON. */
export interface ResourceReport {
  /** Peak resident set size, in kilobytes. */
  maxRssKb: number;
  /** User plus system CPU time, in milliseconds. */
  cpuMs: number;
}

const target = process.env.BENCH_RUSAGE_FILE;
if (target !== undefined && target !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const report: ResourceReport = { maxRssKb: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
    writeFileSync(target, JSON.stringify(report));
  });
}
