/**
 * Runs the real CLI in-process against the real emulator: `main(argv, io)` with captured output,
 * a temp working folder and an EventEmitter standing in for the process's signals.
 */
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { main } from '../../src/cli/main.js';
import { splitLine } from '../../src/pipeline/source/line-split.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir } from './temp-dir.js';

/**
 * The emulator's channel token. One per test process: a job's lock is keyed by its token
 * (src/lock/lock-target.ts), and in Redis (`rateLimits.redis`) it is seen by every process on the
 * machine, so tests running side by side must not name one job.
 */
export const TOKEN = `test-token-5f2a9c-${process.pid}`;

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString('utf8');
    callback();
  }
}

export interface Workspace {
  dir: string;
  /** Writes a file in the workspace; returns its path. */
  write(name: string, text: string | Uint8Array): string;
  /** Runs `contact-sync <argv>` with the workspace as the working folder. */
  run(argv: string[], options?: { env?: Record<string, string>; signals?: EventEmitter; stdin?: Buffer | string }): Promise<CliRun>;
  /** Rows of a report CSV of the last runs, as objects keyed by header. */
  results(job: string, reportDir?: string): Array<Record<string, string>>;
  rejected(job: string, reportDir?: string): Array<Record<string, string>>;
  summary(job: string, reportDir?: string): Record<string, unknown> & { rows: Record<string, number>; apiCalls: { total: number; byOperation: Record<string, number> } };
}

/** A workspace in a temporary folder, removed after the test file. */
export function workspace(): Workspace {
  const dir = tempDir('contact-sync-');
  // `longer`: rejected.csv keeps a long row's cells beyond the header after error_message (issue 34);
  // read by column name they are not there (tests that look at them read the lines).
  const readCsv = (file: string, longer = false) => parse<Record<string, string>>(readFileSync(file, 'utf8'), { columns: true, bom: true, relax_column_count_more: longer });
  // rejected.csv keeps an unclosed quote's text open after error_message (issue 41), so it is not
  // strict CSV: such a file is read line by line, each split as the reader splits a faulty row.
  const readRejected = (file: string): Array<Record<string, string>> => {
    try {
      return readCsv(file, true);
    } catch {
      const [header = [], ...rows] = readFileSync(file, 'utf8')
        .replace(/^\uFEFF/, '')
        .split(/\r\n|\n|\r/)
        .filter((line) => line !== '')
        .map((line) => splitLine(line, ',').cells);
      return rows.map((cells) => Object.fromEntries(header.map((name, index) => [name, cells[index] ?? ''])));
    }
  };
  return {
    dir,
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    async run(argv, options = {}) {
      const stdout = new Capture();
      const stderr = new Capture();
      const exitCode = await main(argv, {
        stdout,
        stderr,
        // HOME and the host's lock folder (src/lock/lock-target.ts) in the workspace: removed with it.
        env: { HOME: dir, CONTACT_SYNC_LOCK_DIR: join(options.env?.HOME ?? dir, '.contact-sync-locks'), ...options.env },
        cwd: dir,
        isTTY: false,
        signals: options.signals ?? new EventEmitter(),
        ...(options.stdin === undefined ? {} : { stdin: () => Readable.from([Buffer.from(options.stdin as Buffer | string)]) }),
      });
      return { exitCode, stdout: stdout.text, stderr: stderr.text };
    },
    results: (job, reportDir = 'reports') => readCsv(join(dir, reportDir, `${job}.results.csv`)),
    rejected: (job, reportDir = 'reports') => readRejected(join(dir, reportDir, `${job}.rejected.csv`)),
    summary: (job, reportDir = 'reports') => JSON.parse(readFileSync(join(dir, reportDir, `${job}.summary.json`), 'utf8')) as ReturnType<Workspace['summary']>,
  };
}

/** An emulator with limits high enough that tests are not paced by them. */
export function fastEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({
    channels: [{ token: TOKEN }],
    rateLimits: { contacts: { limit: 60_000, periodMs: 60_000 }, messages: { limit: 1000, periodMs: 1000 } },
    ...options,
  });
}

export interface JobYamlOptions {
  url: string;
  token?: string;
  /** YAML of the job's keys after `name`, `connection` (indented by 4 spaces). */
  job: string;
  name?: string;
  connectionExtra?: string;
}

/** A jobs.yaml with one connection `main` (rates matching fastEmulator) and one job. */
export function jobsYaml(options: JobYamlOptions): string {
  return [
    'connections:',
    '  main:',
    `    baseUrl: ${options.url}`,
    `    token: \${CHANNEL_TOKEN:-${options.token ?? TOKEN}}`,
    '    rateLimits: { contacts: 60000/min, messages: 1000/s }',
    ...(options.connectionExtra === undefined ? [] : [options.connectionExtra]),
    'jobs:',
    `  - name: ${options.name ?? 'import'}`,
    '    connection: main',
    options.job.replace(/^/gm, '    '),
    '',
  ].join('\n');
}

/** A CSV of `rows` customers: customer_id C0001.., first/last name, email, plan, segments. */
export function customersCsv(rows: number, change: (index: number, cells: string[]) => string[] = (_i, cells) => cells): string {
  const lines = ['customer_id,first_name,last_name,email,plan,segments'];
  for (let i = 1; i <= rows; i++) {
    const id = `C${String(i).padStart(4, '0')}`;
    lines.push(change(i, [id, `First${i}`, `Last${i}`, `user${i}@example.com`, i % 2 === 0 ? 'pro' : 'basic', i % 3 === 0 ? 'vip;newsletter' : 'newsletter']).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** The job keys for customersCsv. */
export const CUSTOMERS_JOB = `input: customers.csv
key: { column: customer_id, field: customerid }
fields:
  firstName: first_name
  lastName: last_name
  email: { column: email, transform: [email] }
  plan: plan
tags: { column: segments, static: [crm], remove: [lead] }
state: false`;
