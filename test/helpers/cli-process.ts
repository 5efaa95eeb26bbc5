/**
 * The real command line as a child process (`node bin/contact-sync.js ...`), for tests that must
 * kill it: a SIGKILL cannot be simulated in-process. The launcher loads dist/, which jest's
 * globalSetup builds once before the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(REPO_ROOT, 'bin', 'contact-sync.js');
const COMPILED_MAIN = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');

/**
 * dist/ is built once by jest's globalSetup (test/global-setup.mjs), before any test runs; this
 * only checks that it is there and not older than src/, so a test never runs stale code.
 */
export async function buildCli(): Promise<void> {
  if (newestMtime(join(REPO_ROOT, 'src')) < mtimeOrZero(COMPILED_MAIN)) return Promise.resolve();
  throw new Error(`${COMPILED_MAIN} is missing or older than src/: jest's globalSetup builds it (run the tests through jest), or run npx tsc -p tsconfig.build.json`);
}

function mtimeOrZero(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Output kept per stream; a run's log beyond it is not needed to explain a failure. */
const KEPT_OUTPUT = 64 * 1024;

export interface CliProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far (the last 64 KiB of each). */
  output(): string;
  /** Resolves with the exit code, or the signal that ended it; rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True once the process ended. */
  readonly ended: boolean;
}

/**
 * Starts `node bin/contact-sync.js <argv>` in `cwd` with a minimal environment, HOME in `cwd`
 * unless `env` says otherwise. The host's lock folder (CONTACT_SYNC_LOCK_DIR, src/lock/lock-target.ts)
 * is in HOME, so that a test's locks are its own: two runs that share a HOME stand for one host.
 */
export function startCli(argv: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, LANG: 'C.UTF-8', CONTACT_SYNC_LOCK_DIR: join(env.HOME ?? cwd, '.contact-sync-locks'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString('utf8')).slice(-KEPT_OUTPUT)));
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-KEPT_OUTPUT)));
  let ended = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  return {
    child,
    output: () => `stdout:\n${stdout}\nstderr:\n${stderr}`,
    exited: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`contact-sync ${argv.join(' ')} did not end within ${timeoutMs} ms`)), timeoutMs);
      });
      return Promise.race([exit, timeout]).finally(() => clearTimeout(timer));
    },
    get ended() {
      return ended;
    },
  };
}

/**
 * Polls `condition` every millisecond until it holds. Rejects after `timeoutMs`, or at once when
 * `cli` ended first (with its output, which says why).
 */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs: number, cli?: CliProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (cli?.ended === true) throw new Error(`contact-sync ended before ${what}\n${cli.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${cli === undefined ? '' : `\n${cli.output()}`}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Resolves once `received()` (the requests a platform received so far) stayed the same for
 * `quietMs`: what a killed process sent has landed. Rejects after `timeoutMs`.
 */
export async function waitForQuiet(received: () => number, quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  while (Date.now() < deadline) {
    const now = received();
    if (now === seen) return;
    seen = now;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
  throw new Error(`requests kept reaching the platform for ${timeoutMs} ms after the kill`);
}

/**
 * For a describe block that runs the CLI as child processes: builds dist/ once before the block,
 * and SIGKILLs every child still running after each test, so no test leaves one behind.
 * `track(cli)` registers a child and returns it.
 */
export function useCliChildren(): { track: (cli: CliProcess) => CliProcess } {
  const running = new Set<CliProcess>();
  beforeAll(async () => {
    await buildCli();
  }, 120_000);
  afterEach(() => {
    for (const cli of running) if (!cli.ended) cli.child.kill('SIGKILL');
    running.clear();
  });
  return {
    track(cli) {
      running.add(cli);
      return cli;
    },
  };
}
