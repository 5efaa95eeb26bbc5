/**
 * The channel token never appears in an error (message, String, JSON, cause chain) nor in a log
 * line, even when a server echoes it back.
 */
import { pino } from 'pino';
import { ApiClient } from '../../src/api/v1/client.js';
import { ApiError } from '../../src/api/errors.js';
import type { ApiLogger } from '../../src/api/logger.js';
import { startEmulator } from '../../src/emulator/index.js';
import { closedPort, sendJson, startHttpTestServer, type Handler } from './support/http-test-server.js';
import { testClient, unlimitedLimiters } from './support/test-client.js';

const TOKEN = 'SeCrEt-Token-4242';

function capturingPino(): { logger: ApiLogger & { error: (obj: object, msg: string) => void }; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** Every text an error can be turned into, its causes included. */
function renderings(error: ApiError): string[] {
  const texts = [error.message, String(error), JSON.stringify(error), error.stack ?? ''];
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    texts.push(cause.message, String(cause), JSON.stringify(cause), cause.stack ?? '');
    cause = cause.cause;
  }
  return texts;
}

/** A server that puts the Authorization header it received in everything it answers. */
function echoing(status: number, extra: Record<string, string> = {}): Handler {
  return (request, response) => {
    const echo = String(request.headers.authorization);
    if (status === 200) {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`${echo} is not JSON`);
      return;
    }
    const headers: Record<string, string> = status >= 300 && status < 400 ? { location: `https://evil.example/?t=${encodeURIComponent(echo)}` } : {};
    sendJson(response, status, { status: 'error', message: [`you sent ${echo}`], data: [] }, { ...headers, ...extra });
  };
}

async function failure(call: () => Promise<unknown>): Promise<ApiError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

/**
 * The token is in none of the errors' renderings, none of the client's log lines, and none of the
 * lines pino writes for the errors serialised as {err}, causes included.
 */
function expectNoToken(errors: readonly ApiError[], clientLines: readonly string[]): void {
  const serialised = capturingPino();
  for (const error of errors) serialised.logger.error({ err: error }, 'call failed');
  expect(serialised.lines).toHaveLength(errors.length);
  const texts = [...errors.flatMap(renderings), ...clientLines, ...serialised.lines];
  expect(texts.filter((text) => text.includes(TOKEN))).toEqual([]);
}

describe('the token stays secret', () => {
  it.each([
    ['403', echoing(403), 'FORBIDDEN'],
    ['405', echoing(405), 'METHOD_NOT_ALLOWED'],
    ['404', echoing(404), 'NO_SUCH_CONTACT'],
    ['429', echoing(429, { 'retry-after': '1' }), 'RATE_LIMITED'],
    ['500', echoing(500), 'SERVER_ERROR'],
    ['a malformed 200', echoing(200), 'MALFORMED_RESPONSE'],
    ['a redirect', echoing(302), 'MALFORMED_RESPONSE'],
  ])('in the error of a server echoing it in %s', async (_name, handler, code) => {
    const server = await startHttpTestServer(handler);
    const log = capturingPino();
    try {
      const client = testClient({ baseUrl: server.url, token: TOKEN, logger: log.logger, retry: { limit: 1 } });
      const error = await failure(() => client.getContact('1'));
      expect(error.code).toBe(code);
      expectNoToken([error], log.lines);
      expect(log.lines.length).toBeGreaterThan(0);
      expect(error.message).toContain('getContact GET /api/v1/contact/1');
    } finally {
      await server.close();
    }
  });

  it('in OutcomeUnknownError of a create answered 500 with the token echoed', async () => {
    const server = await startHttpTestServer(echoing(500));
    const log = capturingPino();
    try {
      const client = testClient({ baseUrl: server.url, token: TOKEN, logger: log.logger });
      const error = await failure(() => client.createContact({ a: '1' }));
      expect(error.code).toBe('OUTCOME_UNKNOWN');
      expectNoToken([error], log.lines);
    } finally {
      await server.close();
    }
  });

  it('in InvalidTokenError, TimeoutError and NetworkError', async () => {
    const emulator = await startEmulator({ rateLimits: false });
    const silent = await startHttpTestServer(() => undefined);
    const port = await closedPort();
    const log = capturingPino();
    try {
      const errors = [
        await failure(() => testClient({ baseUrl: emulator.url, token: TOKEN, logger: log.logger }).getContact('1')),
        await failure(() => testClient({ baseUrl: silent.url, token: TOKEN, logger: log.logger, timeoutMs: 50, retry: { limit: 0 } }).getContact('1')),
        await failure(() => testClient({ baseUrl: `http://127.0.0.1:${port}/api`, token: TOKEN, logger: log.logger, retry: { limit: 0 } }).getContact('1')),
      ];
      emulator.setFaults({ resetConnection: 1 });
      errors.push(await failure(() => testClient({ baseUrl: emulator.url, token: 'demo-token', logger: log.logger, retry: { limit: 0 } }).sendText('1', 'x')));
      expect(errors.map((e) => e.code)).toEqual(['INVALID_TOKEN', 'TIMEOUT', 'NETWORK', 'OUTCOME_UNKNOWN']);
      expectNoToken(errors, log.lines);
    } finally {
      await silent.close();
      await emulator.close();
    }
  });

  it('in the debug line of every request', async () => {
    const emulator = await startEmulator({ rateLimits: false, channels: [{ token: TOKEN }] });
    const { logger, lines } = capturingPino();
    try {
      const client = testClient({ baseUrl: emulator.url, token: TOKEN, logger });
      const { id } = await client.createContact({ email: 'a@b.c' });
      await client.searchContactsPage('email', 'a@b.c');
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(entries).toEqual([
        expect.objectContaining({ level: 20, msg: 'api request', operation: 'createContact', method: 'POST', path: '/api/v1/contact', status: 200, attempt: 1, ms: expect.any(Number) }),
        expect.objectContaining({ level: 20, msg: 'api request', operation: 'searchContacts', method: 'GET', path: '/api/v1/contact/by_custom_field', page: 1, status: 200 }),
      ]);
      expect(id).toBeTruthy();
      for (const line of lines) expect(line).not.toContain(TOKEN);
      expect(lines.join('')).not.toContain('a@b.c');
    } finally {
      await emulator.close();
    }
  });

  it('in the constructor error of a bad token, which is not echoed', () => {
    const bad = `${TOKEN} \n`;
    expect(() => new ApiClient({ baseUrl: 'http://127.0.0.1:1/api', token: bad, limiters: unlimitedLimiters() })).toThrow(/option `token`/);
    try {
      new ApiClient({ baseUrl: 'http://127.0.0.1:1/api', token: bad, limiters: unlimitedLimiters() });
    } catch (error) {
      expect(String(error)).not.toContain(TOKEN);
    }
  });
});
