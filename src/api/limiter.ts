/**
 * One Bottleneck limiter per (base URL, token, API group), shared by every client in the process:
 * the platform counts calls per channel token, so two jobs on one token share one budget.
 */
import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { ApiGroup, Rate } from '../limits.js';

/**
 * Spacing between two request starts for a rate, in milliseconds. Requests are spread evenly
 * (no reservoir, so no burst at the start of a window). The 2% margin is there because the
 * server counts arrivals in a strict sliding window: at exactly periodMs / limit, a request
 * delayed on the way by a millisecond and its successor on time would put limit + 1 arrivals
 * in one window and earn a 429, which costs far more than 2% of throughput.
 */
export function minTimeFor(rate: Rate): number {
  return Math.ceil((rate.periodMs / rate.limit) * 1.02);
}

function checkRate(rate: Rate, group: ApiGroup): void {
  const { limit, periodMs } = rate;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Rate of the ${group} API: \`limit\` must be a whole number of calls from 1 up, got \`${String(limit)}\``);
  }
  if (!Number.isFinite(periodMs) || periodMs <= 0) {
    throw new RangeError(`Rate of the ${group} API: \`periodMs\` must be a positive number of milliseconds, got \`${String(periodMs)}\``);
  }
}

export class LimiterRegistry {
  readonly #entries = new Map<string, { limiter: Bottleneck; minTime: number }>();

  /**
   * The limiter of this base URL, token and group, created on first use. When callers ask for
   * different rates on one key, the strictest one wins: the budget is the server's, not theirs.
   */
  get(baseUrl: string, token: string, group: ApiGroup, rate: Rate): Bottleneck {
    checkRate(rate, group);
    const key = LimiterRegistry.key(baseUrl, token, group);
    const minTime = minTimeFor(rate);
    const existing = this.#entries.get(key);
    if (existing) {
      if (minTime > existing.minTime) {
        existing.limiter.updateSettings({ minTime });
        existing.minTime = minTime;
      }
      return existing.limiter;
    }
    const limiter = new Bottleneck({ minTime, maxConcurrent: null, id: group });
    this.#entries.set(key, { limiter, minTime });
    return limiter;
  }

  /** The registry key: the token enters only as a SHA-256 digest, so no dump or log of keys shows it. */
  static key(baseUrl: string, token: string, group: ApiGroup): string {
    const digest = createHash('sha256').update(token, 'utf8').digest('hex');
    return `${baseUrl.replace(/\/+$/, '')}|${digest}|${group}`;
  }

  /** Limiters created so far. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Stops every limiter and forgets it. Queued jobs are rejected when `dropWaitingJobs` is true
   * (an interrupted run), otherwise they run first.
   */
  async stop(options: { dropWaitingJobs?: boolean } = {}): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map(({ limiter }) => limiter.stop({ dropWaitingJobs: options.dropWaitingJobs ?? false })));
  }
}
