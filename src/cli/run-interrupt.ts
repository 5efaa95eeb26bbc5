/**
 * SIGINT and SIGTERM during a run session (docs/operations.md): the first takes no more rows,
 * lets the rows in flight finish and the reports be written (exit 130 / 143); a second, or rows
 * that do not finish within SIGNAL_GRACE_MS, stop the process at once.
 */
import type { Logger } from 'pino';
import { EXIT } from '../exit-codes.js';
import { formatDuration } from '../pipeline/report/duration.js';
import type { CliIo } from './cli-io.js';

/**
 * After a first signal, how long the rows in flight may take before the run stops at once: with the
 * 5 s the notices of the end may take after a signal (watch/sink-request.ts), the whole exit ends
 * within Kubernetes' default 30 s grace before its SIGKILL. A row cut here is safe: its create was
 * journalled before the call, and the next run finds what it did.
 */
export const SIGNAL_GRACE_MS = 20_000;

export class RunInterrupt {
  readonly #controller = new AbortController();
  #grace: NodeJS.Timeout | undefined;
  readonly #onSigint = this.#onSignal('SIGINT');
  readonly #onSigterm = this.#onSignal('SIGTERM');

  constructor(
    private readonly io: CliIo,
    private readonly logger: Logger,
    /** The grace after a first signal (tests shorten it). */
    private readonly graceMs = SIGNAL_GRACE_MS,
  ) {}

  /** Aborted at the first signal; its reason is the signal's name. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The exit code of the signal that interrupted the run, or undefined when none did. */
  get exitCode(): number | undefined {
    if (!this.signal.aborted) return undefined;
    return this.signal.reason === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
  }

  /** From now on the signals are the run's; `stop` gives them back. */
  listen(): void {
    this.io.signals.on('SIGINT', this.#onSigint);
    this.io.signals.on('SIGTERM', this.#onSigterm);
  }

  stop(): void {
    clearTimeout(this.#grace);
    this.io.signals.off('SIGINT', this.#onSigint);
    this.io.signals.off('SIGTERM', this.#onSigterm);
  }

  #stopNow(why: string): void {
    const code = this.exitCode ?? EXIT.sigint;
    this.logger.error({ exitCode: code }, `${why}: stopping at once; the rows in flight are not in the reports, and a killed run is safe to repeat: run the same command again`);
    this.io.exit?.(code);
  }

  #onSignal(signal: 'SIGINT' | 'SIGTERM'): () => void {
    return () => {
      if (this.signal.aborted) {
        this.#stopNow(`second ${signal}`);
        return;
      }
      this.logger.warn({ signal }, `interrupted (${signal}): taking no more rows, finishing those in flight, then writing the reports; a second ${signal} stops at once`);
      this.#controller.abort(signal);
      // The wait for the rows in flight is bounded, even when the platform asks to retry after minutes.
      // What is still running then may be the rows, the reports, a release or a notice (each
      // bounded, issue 42): the message does not guess which.
      this.#grace = setTimeout(() => this.#stopNow(`the run did not end within ${formatDuration(this.graceMs)} of the ${signal} (rows in flight, reports or notices)`), this.graceMs);
      this.#grace.unref();
    };
  }
}
