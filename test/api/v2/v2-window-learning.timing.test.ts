/**
 * v2's window learnt from the answers (issue 41 item 8): the emulator counts 10 requests per
 * second per endpoint while the client assumes a window five times shorter. The first 429's
 * Retry-After says the window is longer; after it the client meets no other 429. Real time (slots
 * are held a window after each answer); what is asserted is counts, never durations.
 */
import { LimiterRegistry } from '../../../src/api/limiter.js';
import { V2Client } from '../../../src/api/v2/client.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';

const TOKEN = 'ws-token-window-learning';
const GET = 'GET /contact/{identifier}';

describe('the v2 window learnt from a 429', () => {
  let emulator: RunningEmulator;
  let registry: LimiterRegistry;
  beforeEach(async () => {
    emulator = await startEmulator({ workspaceTokens: [TOKEN], rateLimits: { v2: { limit: 10, periodMs: 1_000 } } });
    registry = new LimiterRegistry();
  });
  afterEach(async () => {
    await registry.stop();
    await emulator.close();
  });

  it('10 requests a second against an assumed 200 ms window: at most one 429, and the window learnt is at least the server\'s', async () => {
    const limits = registry.getV2(emulator.v2Url, 'acme', { windowMs: 200 });
    const v2 = new V2Client({ baseUrl: emulator.v2Url, token: TOKEN, limits, timeoutMs: 10_000 });
    const reads = await Promise.all(Array.from({ length: 40 }, (_, index) => v2.searchContactsPage('email', `nobody-${index}@example.com`)));
    expect(reads.every((page) => page.items.length === 0)).toBe(true);
    const counters = emulator.v2Counters();
    expect(counters.total.rateLimited).toBeLessThanOrEqual(1);
    // The one 429 reached the server's check too: 10 admitted and it.
    expect(counters.mostInAnyWindow[GET]).toBeLessThanOrEqual(11);
    const [learnt] = v2.learntLimits();
    expect(learnt?.limit).toBe(10);
    expect(learnt?.windowMs).toBeGreaterThanOrEqual(1_000);
  });
});
