/**
 * The connection's health as the client sees it (src/api/connection-health.ts): a Retry-After
 * pauses every call of the connection, a longer one than allowed stops it, and the circuit breaker
 * stops it after attempts in a row or a time without an answer. Clock and sleep are injected.
 */
import { ApiUnavailableError, OutcomeUnknownError } from '../../src/api/errors.js';
import { RetryAfterTooLongError, formatWait } from '../../src/api/connection-health.js';
import { tokenRedactor } from '../../src/api/redact-token.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { testClient } from './support/test-client.js';

const TOKEN = 'health-token-7d1e';

describe('connection health', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ channels: [{ token: TOKEN }], rateLimits: false });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('after a 429 with Retry-After, a call started later waits for the same pause before it leaves', async () => {
    emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 30 });
    const delays: number[] = [];
    let second: Promise<unknown> | undefined;
    const client = testClient({
      baseUrl: emulator.url,
      token: TOKEN,
      now: () => 1_000_000,
      sleep: (ms) => {
        delays.push(ms);
        // The first pause: the platform recovers, and another call starts meanwhile.
        if (delays.length === 1) {
          emulator.setFaults({});
          second = client.getContact('1').catch((error: unknown) => error);
        }
        return Promise.resolve();
      },
    });
    await expect(client.getContact('2')).rejects.toMatchObject({ code: 'NO_SUCH_CONTACT' });
    await second;
    expect(delays).toEqual([30_000, 30_000]);
    // One 429, then one call each: the second call never met the 429.
    expect(emulator.counters(TOKEN).total).toMatchObject({ received: 3, rateLimited: 1 });
  });

  it('a Retry-After past retry.maxRetryAfterMs stops the connection: no further call is made', async () => {
    emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 3600 });
    const client = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 4, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 120_000 } });
    const error = await client.getContact('1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryAfterTooLongError);
    expect((error as Error).message).toContain('wait 60 min');
    expect((error as Error).message).toContain('2 min');
    await expect(client.createContact({ customerid: 'C1' })).rejects.toBe(error);
    expect(emulator.counters(TOKEN).total.received).toBe(1);
  });

  it('the breaker trips after unavailableAfter.attempts failed attempts in a row; a create that may have happened stays unknown', async () => {
    emulator.setFaults({ serverError: 1 });
    const client = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 10, baseDelayMs: 1, maxDelayMs: 5 }, unavailableAfter: { attempts: 4 } });
    const first = await client.getContact('1').catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(ApiUnavailableError);
    expect((first as Error).message).toContain('4 attempts in a row failed');
    await expect(client.createContact({ customerid: 'C1' })).rejects.toBeInstanceOf(ApiUnavailableError);
    expect(emulator.counters(TOKEN).total.received).toBe(4);
  });

  it('the breaker trips after unavailableAfter.ms without an answer, counted from the first failure', async () => {
    emulator.setFaults({ serverError: 1 });
    let now = 0;
    const client = testClient({
      baseUrl: emulator.url,
      token: TOKEN,
      now: () => now,
      sleep: () => {
        now += 60_000;
        return Promise.resolve();
      },
      retry: { limit: 100, baseDelayMs: 1, maxDelayMs: 5 },
      unavailableAfter: { attempts: 1000, ms: 300_000 },
    });
    const create = await client.createContact({ customerid: 'C1' }).catch((caught: unknown) => caught);
    // A create answered 500 may have happened: it is unknown, whatever the breaker says next.
    expect(create).toBeInstanceOf(OutcomeUnknownError);
    const error = await client.getContact('1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiUnavailableError);
    expect((error as Error).message).toContain('no call succeeded for 5 min');
    // The create at 0 s, then gets at 0, 60, 120, 180, 240 and 300 s: the last is 5 min after the first failure.
    expect(emulator.counters(TOKEN).total.received).toBe(7);
  });

  it('a 429 storm trips the same breaker: every attempt answered 429 counts as one without a success', async () => {
    emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 0 });
    const client = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 10, baseDelayMs: 1, maxDelayMs: 5 }, unavailableAfter: { attempts: 4 } });
    const error = await client.getContact('1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiUnavailableError);
    expect((error as Error).message).toContain('4 attempts in a row failed');
    expect((error as Error).message).toContain('the last with RATE_LIMITED');
    await expect(client.getContact('2')).rejects.toBeInstanceOf(ApiUnavailableError);
    expect(emulator.counters(TOKEN).total).toMatchObject({ received: 4, rateLimited: 4 });
  });

  it('a 429 between successes trips nothing: the next success resets the count', async () => {
    const client = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 0, baseDelayMs: 1, maxDelayMs: 5 }, unavailableAfter: { attempts: 2 } });
    for (let round = 0; round < 5; round++) {
      emulator.setFaults({ rateLimited: 1, retryAfterSeconds: 0 });
      await expect(client.getContact('1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      emulator.setFaults({});
      await expect(client.getContact('1')).rejects.toMatchObject({ code: 'NO_SUCH_CONTACT' });
    }
  });

  it('an answer, even a refusal, resets the breaker', async () => {
    const client = testClient({ baseUrl: emulator.url, token: TOKEN, retry: { limit: 0, baseDelayMs: 1, maxDelayMs: 5 }, unavailableAfter: { attempts: 2 } });
    for (let round = 0; round < 5; round++) {
      emulator.setFaults({ serverError: 1 });
      await expect(client.getContact('1')).rejects.toMatchObject({ code: 'SERVER_ERROR' });
      emulator.setFaults({});
      await expect(client.getContact('1')).rejects.toMatchObject({ code: 'NO_SUCH_CONTACT' });
    }
  });
});

describe('token redaction', () => {
  it.each([
    ['slashes', 'ab/cd/ef/gh/ij'],
    ['plus and equals', 'Zm9v+YmFy=Ym/F6=='],
  ])('cuts a token with %s out in every written form', (_name, token) => {
    const redact = tokenRedactor(token);
    const forms = [
      token,
      token.replace(/\//g, '\\/'),
      [...token].map((char) => (/[A-Za-z0-9]/.test(char) ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)).join(''),
      encodeURIComponent(token),
    ];
    for (const form of forms) {
      const body = `{"status":"error","message":"bad token ${form} here","data":[]}`;
      const redacted = redact(body);
      expect(redacted).toContain('[redacted]');
      expect(redacted).not.toContain(token);
      expect(JSON.parse(redacted)).toMatchObject({ status: 'error' });
      expect(JSON.stringify(JSON.parse(redacted))).not.toContain(token);
    }
    expect(redact(`<html>${token}</html>`)).toBe('<html>[redacted]</html>');
  });

  it('leaves a body without the token as it is', () => {
    const body = '{"data":{"id":"12"}}';
    expect(tokenRedactor('ab/cd/ef/gh/ij')(body)).toBe(body);
  });

  it('shows waits in seconds or minutes', () => {
    expect([formatWait(1_000), formatWait(119_000), formatWait(120_000), formatWait(3_600_000)]).toEqual(['1 s', '119 s', '2 min', '60 min']);
  });
});
