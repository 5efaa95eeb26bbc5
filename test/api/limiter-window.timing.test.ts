/**
 * The limiter against a strict sliding-window server, with and without network delay on the way
 * in: counted by the server (429s, and the most calls that reached its check in any window),
 * never by the clock. Real time: the slots free one window after each answer.
 */
import Bottleneck from 'bottleneck';
import { LimiterRegistry } from '../../src/api/limiter.js';
import type { FaultOptions } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Rate } from '../../src/limits.js';
import { testClient } from './support/test-client.js';

const CONTACTS: Rate = { limit: 10, periodMs: 1_000 };
const MESSAGES: Rate = { limit: 25, periodMs: 1_000 };
const JITTER: FaultOptions = { inboundJitter: { minMs: 0, maxMs: 300 } };

async function run(options: { faults?: FaultOptions; calls: number; group: 'contacts' | 'messages'; limiters?: (url: string) => { contacts: Bottleneck; messages: Bottleneck } }) {
  const emulator = await startEmulator({ rateLimits: { contacts: CONTACTS, messages: MESSAGES }, ...(options.faults === undefined ? {} : { faults: options.faults }), seed: 7 });
  const registry = new LimiterRegistry();
  try {
    const [stored] = emulator.loadContacts('demo-token', [{}]);
    const limiters =
      options.limiters?.(emulator.url) ?? {
        contacts: registry.get(emulator.url, 'demo-token', 'contacts', CONTACTS),
        messages: registry.get(emulator.url, 'demo-token', 'messages', MESSAGES),
      };
    // Two clients on one token share the registry's limiters, as two jobs of a run do.
    const clients = [0, 1].map(() => testClient({ baseUrl: emulator.url, limiters, retry: { limit: 0 } }));
    const results = await Promise.allSettled(
      Array.from({ length: options.calls }, (_, i) => (options.group === 'contacts' ? clients[i % 2]!.getContact(stored!.id) : clients[i % 2]!.sendText(stored!.id, `hello ${i}`))),
    );
    const counters = emulator.counters('demo-token');
    return { counters, failed: results.filter((result) => result.status === 'rejected').length };
  } finally {
    await registry.stop();
    await emulator.close();
  }
}

describe('limiter slots against a strict sliding window', () => {
  it('35 contact calls at 10 a second, no network delay: no 429, never more than 10 in any window', async () => {
    const { counters, failed } = await run({ calls: 35, group: 'contacts' });
    expect([counters.total.received, counters.total.rateLimited, failed]).toEqual([35, 0, 0]);
    expect(counters.mostInAnyWindow.contacts).toBeLessThanOrEqual(CONTACTS.limit);
  });

  it('35 contact calls at 10 a second with 0 to 300 ms of delay on the way in: no 429, never more than 10 in any window', async () => {
    const { counters, failed } = await run({ calls: 35, group: 'contacts', faults: JITTER });
    expect([counters.total.received, counters.total.rateLimited, failed]).toEqual([35, 0, 0]);
    expect(counters.mostInAnyWindow.contacts).toBeLessThanOrEqual(CONTACTS.limit);
  });

  it('80 sends at 25 a second with 0 to 300 ms of delay on the way in: no 429, never more than 25 in any window', async () => {
    const { counters, failed } = await run({ calls: 80, group: 'messages', faults: JITTER });
    expect([counters.total.received, counters.total.rateLimited, failed]).toEqual([80, 0, 0]);
    expect(counters.mostInAnyWindow.messages).toBeLessThanOrEqual(MESSAGES.limit);
  });

  it('control: the same delays push calls spaced exactly window / limit (no slots) over the window', async () => {
    const spaced = (): Bottleneck => new Bottleneck({ minTime: CONTACTS.periodMs / CONTACTS.limit, maxConcurrent: null });
    const { counters } = await run({ calls: 35, group: 'contacts', faults: { inboundJitter: { minMs: 0, maxMs: 400 } }, limiters: () => ({ contacts: spaced(), messages: spaced() }) });
    expect(counters.mostInAnyWindow.contacts).toBeGreaterThan(CONTACTS.limit);
    expect(counters.total.rateLimited).toBeGreaterThan(0);
  });
});
