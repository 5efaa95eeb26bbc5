/**
 * The rows that need the API: each runs in its key's lane (rows of one key one after the other,
 * `key-lanes.ts`) through one queue of `concurrency` rows at a time, so latency is hidden while
 * the limiter sets the pace. The reader is held back while twice that many rows wait
 * (backpressure), and the run drains them before its reports close.
 */
import PQueue from 'p-queue';
import { KeyLanes } from './key-lanes.js';

export class RowDispatcher {
  readonly #queue: PQueue;
  readonly #lanes = new KeyLanes();
  #inFlight = 0;
  #wake: (() => void) | undefined;

  constructor(private readonly concurrency: number) {
    this.#queue = new PQueue({ concurrency });
  }

  /** Rows dispatched and not finished. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Whether a row of `key` is running or waiting (the lookahead reads no such key's state). */
  busy(key: string): boolean {
    return this.#lanes.has(key);
  }

  /** Resolves once fewer than twice `concurrency` rows are waiting for the API. */
  async room(): Promise<void> {
    while (this.#inFlight >= this.concurrency * 2) await this.#sleep();
  }

  /** Runs `work` for a row of `key` in its lane, through the queue; `done` gets what it returns. */
  dispatch<T>(key: string, work: () => Promise<T>, done: (outcome: T) => void): void {
    this.#inFlight++;
    void this.#lanes
      .run(key, () => this.#queue.add(work))
      .then(done)
      .finally(() => {
        this.#inFlight--;
        this.#wake?.();
        this.#wake = undefined;
      });
  }

  /** Resolves once every dispatched row has finished. */
  async drain(): Promise<void> {
    while (this.#inFlight > 0) await this.#sleep();
  }

  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => (this.#wake = resolve));
  }
}
