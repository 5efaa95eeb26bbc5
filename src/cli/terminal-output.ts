/**
 * stderr on a terminal, shared by the log lines and the progress bar: while a bar is up, what is
 * written here goes to it (to be printed above the bar at its next redraw), so a log line never
 * merges into the bar or loses its tail; otherwise it goes straight to the terminal.
 */
import { Writable } from 'node:stream';

export class TerminalOutput extends Writable {
  #sink: ((text: string) => void) | undefined;

  constructor(readonly target: NodeJS.WritableStream) {
    super();
  }

  /** From now on, lines go to `sink` (the bar's log) instead of the terminal. */
  attach(sink: (text: string) => void): void {
    this.#sink = sink;
  }

  detach(): void {
    this.#sink = undefined;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = chunk.toString();
    if (this.#sink === undefined) {
      this.target.write(text);
    } else {
      this.#sink(text);
    }
    done();
  }
}
