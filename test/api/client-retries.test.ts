/**
 * Retries under injected faults, following the idempotency table: repeatable calls retry to
 * success; a create or a send whose outcome is unknown is never repeated.
 */
import { NetworkError, OutcomeUnknownError, RateLimitedError, ServerError, TimeoutError } from '../../src/api/errors.js';
import { startEmulator, type FaultOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { closedPort } from './support/http-test-server.js';
import { recordingSleep, testClient } from './support/test-client.js';

const TOKEN = 'demo-token';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ rateLimits: false });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.reset());

/** A sleep that lifts the faults: the first attempt meets them, the retry does not. */
function faultsOnFirstAttemptOnly(faults: FaultOptions): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  emulator.setFaults(faults);
  const recorder = recordingSleep();
  return {
    delays: recorder.delays,
    sleep: async (ms) => {
      emulator.setFaults({});
      await recorder.sleep(ms);
    },
  };
}

describe('repeatable calls retry', () => {
  it.each<[string, FaultOptions]>([
    ['a 500', { serverError: 1 }],
    ['a dropped connection', { dropConnection: 1 }],
    ['a reset connection', { resetConnection: 1 }],
    ['a 429', { rateLimited: 1 }],
  ])('update is retried to success after %s', async (_name, faults) => {
    const [stored] = emulator.loadContacts(TOKEN, [{ custom_fields: { firstName: 'Ann' } }]);
    const { sleep, delays } = faultsOnFirstAttemptOnly(faults);
    const client = testClient({ baseUrl: emulator.url, sleep });
    await client.updateContact(stored!.id, { firstName: 'Anna' });
    expect(emulator.contacts(TOKEN)[0]?.custom_fields.firstName).toBe('Anna');
    expect(delays).toHaveLength(1);
    expect(client.stats.byOperation.updateContact).toMatchObject({ requests: 2, retries: 1 });
    expect(emulator.counters(TOKEN).byOperation.updateContact).toMatchObject({ received: 2, faulted: 1 });
  });

  it('a get that times out is retried to success', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    const { sleep } = faultsOnFirstAttemptOnly({ latency: { minMs: 500, maxMs: 500 } });
    const client = testClient({ baseUrl: emulator.url, sleep, timeoutMs: 100 });
    await expect(client.getContact(stored!.id)).resolves.toMatchObject({ id: stored!.id });
    expect(client.stats.byOperation.getContact).toMatchObject({ requests: 2, retries: 1 });
  });

  it('honours Retry-After of a 429 before retrying', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    const { sleep, delays } = faultsOnFirstAttemptOnly({ rateLimited: 1 });
    const client = testClient({ baseUrl: emulator.url, sleep });
    await client.addTags(stored!.id, ['a']);
    expect(delays).toEqual([1_000]);
    expect(client.stats.byOperation.addTags).toEqual({ requests: 2, retries: 1, rateLimited: 1 });
  });

  it('with seeded random faults, every update ends well and each fault costs exactly one retry', async () => {
    const contacts = emulator.loadContacts(
      TOKEN,
      Array.from({ length: 15 }, (_, i) => ({ custom_fields: { customerid: String(i) } })),
    );
    emulator.setFaults({ serverError: 0.25, dropConnection: 0.15, resetConnection: 0.1, rateLimited: 0.1 }, 7);
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 10, baseDelayMs: 0, maxDelayMs: 0 } });
    for (const contact of contacts) await client.updateContact(contact.id, { email: `${contact.id}@x.io` });
    expect(emulator.contacts(TOKEN).map((c) => c.custom_fields.email)).toEqual(contacts.map((c) => `${c.id}@x.io`));
    const counters = emulator.counters(TOKEN).byOperation.updateContact;
    expect(counters.faulted).toBeGreaterThan(0);
    expect(client.stats.byOperation.updateContact.retries).toBe(counters.faulted);
    expect(client.stats.byOperation.updateContact.requests).toBe(counters.received);
  });

  it('gives up after retry.limit retries', async () => {
    emulator.setFaults({ serverError: 1 });
    const { sleep, delays } = recordingSleep();
    const client = testClient({ baseUrl: emulator.url, sleep, retry: { limit: 3, baseDelayMs: 10, maxDelayMs: 40 }, random: () => 0 });
    await expect(client.getContact('1')).rejects.toBeInstanceOf(ServerError);
    expect(delays).toEqual([5, 10, 20]);
    expect(emulator.counters(TOKEN).byOperation.getContact.received).toBe(4);
  });
});

describe('create and send are never repeated once they may have taken effect', () => {
  it('a create whose answer is dropped after the commit is OutcomeUnknownError, sent once', async () => {
    emulator.setFaults({ createCommitThenDrop: 1 });
    const { sleep, delays } = recordingSleep();
    const client = testClient({ baseUrl: emulator.url, sleep, retry: { limit: 5 } });
    const error = await client.createContact({ customerid: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(NetworkError);
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(1);
    expect(delays).toEqual([]);
  });

  it('a create answered 500 is OutcomeUnknownError, sent once', async () => {
    emulator.setFaults({ serverError: 1 });
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 5 } });
    const error = await client.createContact({ customerid: '1' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'OUTCOME_UNKNOWN', operation: 'createContact' });
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ServerError);
    expect(emulator.counters(TOKEN).byOperation.createContact.received).toBe(1);
  });

  it('a create refused with a 429 is retried: it cannot have taken effect', async () => {
    const { sleep } = faultsOnFirstAttemptOnly({ rateLimited: 1 });
    const client = testClient({ baseUrl: emulator.url, sleep });
    await client.createContact({ customerid: '1' });
    expect(emulator.contacts(TOKEN)).toHaveLength(1);
    expect(client.stats.byOperation.createContact).toEqual({ requests: 2, retries: 1, rateLimited: 1 });
  });

  it('a send whose answer is dropped after delivery is OutcomeUnknownError, sent once', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    emulator.setFaults({ sendCommitThenDrop: 1 });
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 5 } });
    await expect(client.sendText(stored!.id, 'hi')).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(emulator.messages(TOKEN, stored!.id)).toHaveLength(1);
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(1);
  });

  it('a send that times out is OutcomeUnknownError with the TimeoutError as cause, sent once', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    emulator.setFaults({ latency: { minMs: 400, maxMs: 400 } });
    const client = testClient({ baseUrl: emulator.url, timeoutMs: 100, retry: { limit: 5 } });
    const error = await client.sendText(stored!.id, 'hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(TimeoutError);
    expect(emulator.counters(TOKEN).byOperation.sendMessage.received).toBe(1);
  });

  it('a send that keeps meeting 429s ends as RateLimitedError, not OutcomeUnknownError', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    emulator.setFaults({ rateLimited: 1 });
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 2 } });
    await expect(client.sendText(stored!.id, 'hi')).rejects.toBeInstanceOf(RateLimitedError);
    expect(emulator.messages(TOKEN)).toEqual([]);
    expect(client.stats.byOperation.sendMessage).toEqual({ requests: 3, retries: 2, rateLimited: 3 });
  });

  it('a create to a closed port is retried, then fails as NetworkError, not OutcomeUnknownError', async () => {
    const port = await closedPort();
    const { sleep, delays } = recordingSleep();
    const client = testClient({ baseUrl: `http://127.0.0.1:${port}/api`, sleep, retry: { limit: 2 } });
    const error = await client.createContact({ a: '1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).connectionRefused).toBe(true);
    expect(delays).toHaveLength(2);
    expect(client.stats.byOperation.createContact).toMatchObject({ requests: 3, retries: 2 });
  });
});
