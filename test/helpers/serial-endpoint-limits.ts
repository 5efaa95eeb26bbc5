/**
 * The simplest `EndpointLimits`: one request at a time per endpoint, no pacing, and the limit each
 * endpoint's last answer stated. What a v2 connection uses until the learnt limiter
 * (learnt-limits.ts) is plugged in through `connectionClient`'s `endpointLimits`; tests use it
 * against an emulator without v2 limits, or with generous ones.
 */
import type { EndpointAnswer, EndpointLimits, LearntLimit } from '../../src/api/v2/endpoint-limits.js';

/** v2's window until an answer says otherwise (spec/api-v2-notes.md, "Access and limits"). */
const ASSUMED_WINDOW_MS = 1000;

export class SerialEndpointLimits implements EndpointLimits {
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #limits = new Map<string, number>();

  async schedule<T>(endpoint: string, attempt: () => Promise<{ value: T; answer: EndpointAnswer }>): Promise<T> {
    const previous = this.#tails.get(endpoint) ?? Promise.resolve();
    const run = previous.then(attempt, attempt);
    this.#tails.set(endpoint, run.catch(() => undefined));
    const { value, answer } = await run;
    if (answer.limit !== undefined) this.#limits.set(endpoint, answer.limit);
    return value;
  }

  learnt(): LearntLimit[] {
    return [...this.#limits].map(([endpoint, limit]) => ({ endpoint, limit, windowMs: ASSUMED_WINDOW_MS }));
  }
}
