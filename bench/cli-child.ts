/**
 * Runs the real `contact-sync` command as a child process, as a user would, with the resource
 * probe preloaded: wall time, exit code, peak RSS and CPU time of that process alone.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { ResourceReport } from './rusage-probe.js';

export interface ChildRun {
  exitCode: number | null;
  wallMs: number;
  /** Peak RSS of the child, in kilobytes. */
  maxRssKb: number;
  /** User + system CPU of the child, in milliseconds. */
  cpuMs: number;
  /** The last few kilobytes of its output, for the error message of a failed run. */
  outputTail: string;
}

export interface CliPaths {
  /** `bin/contact-sync.js` of the repository. */
  bin: string;
  /** The compiled `rusage-probe.js`. */
  probe: string;
}

const TAIL_CHARS = 4000;

export async function runCli(paths: CliPaths, args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<ChildRun> {
  const rusageFile = join(options.cwd, `rusage-${process.pid}-${Math.round(performance.now() * 1000)}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', pathToFileURL(paths.probe).href, paths.bin, ...args], {
    cwd: options.cwd,
    // The host's job locks (src/lock/lock-target.ts) in the bench's own folder, removed with it, not in /var/tmp.
    env: { ...process.env, CONTACT_SYNC_LOCK_DIR: join(options.cwd, '.contact-sync-locks'), ...options.env, BENCH_RUSAGE_FILE: rusageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  const wallMs = performance.now() - started;
  let usage: ResourceReport = { maxRssKb: 0, cpuMs: 0 };
  try {
    usage = JSON.parse(readFileSync(rusageFile, 'utf8')) as ResourceReport;
    rmSync(rusageFile, { force: true });
  } catch {
    // A child killed before its exit handler leaves no report; the zeros say so in the results.
  }
  return { exitCode, wallMs, maxRssKb: usage.maxRssKb, cpuMs: usage.cpuMs, outputTail: tail };
}

/** Throws, with the child's last output, unless it exited with one of `codes`. */
export function expectExit(run: ChildRun, what: string, codes: readonly number[] = [0]): void {
  if (run.exitCode !== null && codes.includes(run.exitCode)) return;
  throw new Error(`bench: ${what} exited with ${String(run.exitCode)} (expected ${codes.join(' or ')}); its last output:\n${run.outputTail}`);
}
