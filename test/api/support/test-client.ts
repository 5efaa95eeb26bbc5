/** Builds clients for tests: no waiting between retries, unlimited limiters unless given. */
import Bottleneck from 'bottleneck';
import { ApiClient, type ApiClientOptions } from '../../../src/api/v1/client.js';

export function unlimitedLimiters(): ApiClientOptions['limiters'] {
  return { contacts: new Bottleneck({ maxConcurrent: null, minTime: 0 }), messages: new Bottleneck({ maxConcurrent: null, minTime: 0 }) };
}

export interface TestClientOptions extends Partial<ApiClientOptions> {
  baseUrl: string;
}

/** Delays asked for between attempts, in order; the test never waits for them. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}

export function testClient(options: TestClientOptions): ApiClient {
  return new ApiClient({
    token: 'demo-token',
    limiters: unlimitedLimiters(),
    timeoutMs: 2_000,
    retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 5 },
    sleep: () => Promise.resolve(),
    ...options,
  });
}
