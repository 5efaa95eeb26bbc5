/**
 * The hard stop after a first signal (issue 42 item 5): when the run has not ended within the
 * grace, the process stops with the signal's code, and the message does not blame rows in flight
 * for what may be a report or a notice still going. The grace is injected (10 ms).
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { RunInterrupt } from '../../src/cli/run-interrupt.js';
import type { CliIo } from '../../src/cli/cli-io.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

describe('RunInterrupt', () => {
  it('stops at once with 143 when the run has not ended within the grace of a SIGTERM, naming what may still run', async () => {
    const signals = new EventEmitter();
    const log = new Capture();
    const exits: number[] = [];
    const io = { signals, exit: (code: number) => void exits.push(code) } as unknown as CliIo;
    const interrupt = new RunInterrupt(io, pino({ level: 'warn' }, log), 10);
    interrupt.listen();
    try {
      signals.emit('SIGTERM');
      for (let waited = 0; exits.length === 0 && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(exits).toEqual([143]);
      expect(log.text).toContain('the run did not end within');
      expect(log.text).toContain('of the SIGTERM (rows in flight, reports or notices): stopping at once');
    } finally {
      interrupt.stop();
    }
  });
});
