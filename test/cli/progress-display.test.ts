import { Writable } from 'node:stream';
import { ApiCallStats } from '../../src/api/call-stats.js';
import { createProgressDisplay } from '../../src/cli/progress-display.js';
import { TerminalOutput } from '../../src/cli/terminal-output.js';

const tally = (total: number, failed = 0) => ({ total, created: total - failed, updated: 0, unchanged: 0, skipped: 0, failed });
const RATE = { limit: 100, periodMs: 60_000 };

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** A timer the test fires by hand: no real time passes. */
function manualTimer(): { every: (ms: number, tick: () => void) => () => void; fire: () => void; cancelled: () => boolean } {
  let tick: (() => void) | undefined;
  let cancelled = false;
  return {
    every: (_ms, fn) => {
      tick = fn;
      return () => {
        cancelled = true;
      };
    },
    fire: () => tick?.(),
    cancelled: () => cancelled,
  };
}

describe('progress', () => {
  it('the first ETA counts the calls of finished rows, not those of the rows still in flight', () => {
    const stream = new Capture();
    const stats = new ApiCallStats();
    const timer = manualTimer();
    const display = createProgressDisplay({ mode: 'lines', expectedRows: 361, stats, rate: RATE, stream, every: timer.every });
    // Eight rows in flight have searched; one finished with its search and its create.
    for (let i = 0; i < 9; i++) stats.recordRequest('searchContacts', false);
    display.update(tally(1), { apiCalls: 2, outcome: 'created' });
    timer.fire();
    // 360 rows left at 2 calls a row, at 100 calls a minute: 7m12s (the 9 calls / 1 row of all
    // calls so far would say 32m24s).
    expect(stream.text).toMatch(/ETA 7m12s\n$/);
  });

  it('counts one call and one row in the singular (issue 41: "1 API calls")', () => {
    const stream = new Capture();
    const stats = new ApiCallStats();
    const timer = manualTimer();
    const display = createProgressDisplay({ mode: 'lines', expectedRows: undefined, stats, rate: RATE, stream, every: timer.every });
    stats.recordRequest('createContact', false);
    display.update(tally(1), { apiCalls: 1, outcome: 'created' });
    timer.fire();
    display.stop();
    expect(stream.text).toMatch(/^progress: 1 row \(created 1, updated 0, unchanged 0, skipped 0, failed 0\), 1 call \(/);
  });

  it('asks the pace at each tick (v2 learns its limits as it runs): the ETA follows it, and is unknown while it is', () => {
    const stream = new Capture();
    const stats = new ApiCallStats();
    const timer = manualTimer();
    const learnt: { pace?: { limit: number; periodMs: number } } = {};
    const display = createProgressDisplay({ mode: 'lines', expectedRows: 361, stats, rate: () => learnt.pace, stream, every: timer.every });
    display.update(tally(1), { apiCalls: 2, outcome: 'created' });
    timer.fire();
    expect(stream.text).toMatch(/ETA \?\n$/);
    // Learnt: 20 calls a second. 360 rows left at 2 calls a row: 36 s, not v1's 7m12s.
    learnt.pace = { limit: 20, periodMs: 1_000 };
    timer.fire();
    expect(stream.text).toMatch(/ETA 36s\n$/);
  });

  it('off a terminal, prints a progress line at each tick with the counts, calls and ETA', () => {
    const stream = new Capture();
    const stats = new ApiCallStats();
    const timer = manualTimer();
    const display = createProgressDisplay({ mode: 'lines', expectedRows: 10, stats, rate: RATE, stream, every: timer.every });
    stats.recordRequest('searchContacts', false);
    stats.recordRequest('createContact', false);
    display.update(tally(1), { apiCalls: 2, outcome: 'created' });
    display.update(tally(2, 1), { apiCalls: 0, outcome: 'failed' });
    timer.fire();
    display.stop();
    expect(stream.text).toMatch(/^progress: 2\/10 rows \(created 1, updated 0, unchanged 0, skipped 0, failed 1\), 2 calls \([\d.]+\/min\), ETA 5s\n$/);
    expect(timer.cancelled()).toBe(true);
  });

  it('with JSON logs, progress is a log event with the counts, not a plain line', () => {
    const stream = new Capture();
    const events: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const stats = new ApiCallStats();
    const timer = manualTimer();
    const display = createProgressDisplay({ mode: 'log', expectedRows: 10, stats, rate: RATE, stream, every: timer.every, log: (fields, message) => events.push({ fields, message }) });
    stats.recordRequest('searchContacts', false);
    display.update(tally(1), { apiCalls: 1, outcome: 'created' });
    timer.fire();
    expect(stream.text).toBe('');
    expect(events).toEqual([
      { message: 'progress', fields: { progress: { rows: tally(1), expectedRows: 10, calls: 1, callsPerMinute: expect.any(Number), etaSeconds: 5 } } },
    ]);
  });

  it('on a terminal, a line logged while the bar is up is printed above the bar, whole', () => {
    // A terminal as cli-progress sees one (it draws nothing on a stream that is not a TTY).
    const screen = Object.assign(new Capture(), { isTTY: true, columns: 300 });
    const terminal = new TerminalOutput(screen);
    const stats = new ApiCallStats();
    const display = createProgressDisplay({ mode: 'bar', expectedRows: 10, stats, rate: RATE, stream: terminal });
    display.update(tally(1), { apiCalls: 2, outcome: 'created' });
    terminal.write('warn: interrupted: finishing the rows in flight, then writing the reports\n');
    display.update(tally(2), { apiCalls: 2, outcome: 'created' });
    display.stop();
    terminal.write('after the bar\n');
    // The log line is whole on a line of its own, before the final bar; the bar shows every outcome
    // and an ETA with its unit.
    const ESC = String.fromCharCode(27);
    const lines = screen.text
      .split(/\r|\n/)
      .map((line) => line.split(ESC).map((part, index) => (index === 0 ? part : part.replace(/^\[[0-9;?]*[A-Za-z]/, ''))).join(''))
      .filter((line) => line !== '');
    expect(lines).toContain('warn: interrupted: finishing the rows in flight, then writing the reports');
    const final = lines.filter((line) => line.startsWith('rows ')).at(-1);
    expect(final).toMatch(/2\/10 \| created 2 updated 0 unchanged 0 skipped 0 failed 0 \| calls 0 \([\d.]+\/min\) \| ETA \d+s$/);
    expect(lines.at(-1)).toBe('after the bar');
  });
});

describe('progress: the ETA weighs the rows left by their kind (issue 29)', () => {
  it('after 71 unchanged rows of a file with 1,900 new keys, says ? until a new row finished, then the new keys\' calls', () => {
    const stream = new Capture();
    const timer = manualTimer();
    const display = createProgressDisplay({ mode: 'lines', expectedRows: 1971, knownKeys: 71, stats: new ApiCallStats(), rate: RATE, stream, every: timer.every });
    const unchanged = { total: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
    for (let i = 1; i <= 71; i++) display.update({ ...unchanged, total: i, unchanged: i }, { apiCalls: 0, outcome: 'unchanged' });
    timer.fire();
    expect(stream.text).toMatch(/ETA \?\n$/);
    display.update({ ...unchanged, total: 72, unchanged: 71, created: 1 }, { apiCalls: 3, outcome: 'created' });
    timer.fire();
    // 1,899 new keys at 3 calls, at 100/min (the old rule said 47s).
    expect(stream.text).toMatch(/ETA 56m58s\n$/);
    display.stop();
  });
});
