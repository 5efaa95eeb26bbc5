/**
 * Two runs that step into the lock at the same instant (two cron entries firing together): exactly
 * one holds it and the other is refused, naming it; never both refused. Real processes told one
 * instant to step in at, each round on a fresh lock file. Before the fix, 7 rounds in 100 ended
 * with both refused. In the in-band timing project: the race is met only when both processes get
 * a core at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LockIdentity } from '../../src/lock/job-lock.js';
import { stateLockTarget } from '../../src/lock/lock-target.js';
import { REPO_ROOT } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROUNDS = 40;

interface Contender {
  child: ChildProcess;
  /** 'ready' once polling the barrier, then 'held' or 'refused: <message>'. */
  lines: string[];
  next(): Promise<string>;
}

function contender(id: LockIdentity): Contender {
  // Reads the instant to step in at (the same for both; an existing file polled for was not
  // tight enough to meet the race), takes the lock then, says which, and holds it until its
  // standard input ends, so the other's outcome is decided while it holds.
  const script = `
    const { createInterface } = await import('node:readline');
    const { acquireJobLock } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'lock', 'job-lock.js'))});
    const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    console.log('ready');
    const at = Number((await input.next()).value);
    while (Date.now() < at);
    try {
      const lock = acquireJobLock(${JSON.stringify(id)}, { command: 'run jobs.yaml' });
      console.log('held');
      await input.next();
      lock.release();
    } catch (error) {
      console.log('refused: ' + error.message);
    }
    process.exit(0);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffered = '';
  let read = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      waiting.shift()?.(line);
    }
  });
  return {
    child,
    lines,
    next: () =>
      new Promise((resolve, reject) => {
        if (read < lines.length) resolve(lines[read++]!);
        else {
          const timer = setTimeout(() => reject(new Error(`no line from pid ${child.pid} in 30 s; it said: ${lines.join(' | ')}`)), 30_000);
          waiting.push((line) => {
            clearTimeout(timer);
            read += 1;
            resolve(line);
          });
        }
      }),
  };
}

describe('job lock: two runs stepping in together', () => {
  it(`one holds the lock and the other is refused naming it, in each of ${ROUNDS} rounds`, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = tempDir('lock-race-');
      const id: LockIdentity = { jobsFile: join(dir, 'jobs.yaml'), job: 'import', target: stateLockTarget(join(dir, 'import.db')) };
      const pair = [contender(id), contender(id)];
      try {
        expect(await Promise.all(pair.map((one) => one.next()))).toEqual(['ready', 'ready']);
        const at = Date.now() + 50;
        for (const one of pair) one.child.stdin!.write(`${at}\n`);
        const said = await Promise.all(pair.map((one) => one.next()));
        outcomes.push([...said].map((line) => line.replace(/: .*/, '')).sort().join(' + '));
        const holder = pair[said.indexOf('held')];
        const refusal = said.find((line) => line.startsWith('refused'));
        if (holder !== undefined && refusal !== undefined) expect(refusal).toContain(`is already running: ${id.target.what} is in use by job "import": pid ${holder.child.pid} on `);
      } finally {
        await Promise.all(
          pair.map(
            (one) =>
              new Promise<void>((resolve) => {
                if (one.child.exitCode !== null) resolve();
                else {
                  one.child.on('exit', () => resolve());
                  one.child.stdin!.end();
                }
              }),
          ),
        );
      }
    }
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, () => 'held + refused'));
  }, 300_000);
});
