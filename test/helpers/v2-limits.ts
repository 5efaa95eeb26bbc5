/**
 * A minimal `EndpointLimits` for the v2 client's tests: every attempt runs at once (no pacing),
 * and each endpoint and what its answer said are kept, so a test asserts what the client told the
 * limits. The learnt limiter has tests of its own.
 */
import type { EndpointAnswer, EndpointLimits, LearntLimit } from '../../src/api/v2/endpoint-limits.js';

export class RecordingLimits implements EndpointLimits {
  readonly scheduled: Array<{ endpoint: string; answer: EndpointAnswer }> = [];

  async schedule<T>(endpoint: string, attempt: () => Promise<{ value: T; answer: EndpointAnswer }>): Promise<T> {
    const { value, answer } = await attempt();
    this.scheduled.push({ endpoint, answer });
    return value;
  }

  learnt(): LearntLimit[] {
    return [];
  }

  /** The endpoints scheduled, in order. */
  endpoints(): string[] {
    return this.scheduled.map((entry) => entry.endpoint);
  }
}
