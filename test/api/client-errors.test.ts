/** Every error kind, produced by a real server: the emulator, or a raw server where it cannot. */
import {
  ApiError,
  ForbiddenError,
  InvalidTokenError,
  MalformedResponseError,
  MethodNotAllowedError,
  NetworkError,
  NoSuchContactError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnexpectedStatusError,
  UnmatchedFileTypeError,
} from '../../src/api/errors.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { closedPort, sendJson, startHttpTestServer, type Handler } from './support/http-test-server.js';
import { testClient } from './support/test-client.js';

const TOKEN = 'demo-token';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ rateLimits: false, allowedFields: [] });
});
afterAll(() => emulator.close());
beforeEach(() => emulator.reset());

async function failure(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function withRawServer<T>(handler: Handler, use: (url: string) => Promise<T>): Promise<T> {
  const server = await startHttpTestServer(handler);
  try {
    return await use(server.url);
  } finally {
    await server.close();
  }
}

describe('errors from the emulator', () => {
  it('401 with a wrong token is InvalidTokenError', async () => {
    const error = await failure(() => testClient({ baseUrl: emulator.url, token: 'wrong-token' }).getContact('1'));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ code: 'INVALID_TOKEN', status: 401, operation: 'getContact', method: 'GET', path: '/api/v1/contact/1' });
    expect(error.message).toContain('getContact GET /api/v1/contact/1');
  });

  it('403 "no such contact" is NoSuchContactError carrying the id', async () => {
    const error = await failure(() => testClient({ baseUrl: emulator.url }).updateContact('404404', { firstName: 'x' }));
    expect(error).toBeInstanceOf(NoSuchContactError);
    expect(error).toMatchObject({ code: 'NO_SUCH_CONTACT', status: 403, contactId: '404404' });
  });

  it('403 on an attachment of the wrong type is UnmatchedFileTypeError', async () => {
    const [stored] = emulator.loadContacts(TOKEN, [{}]);
    const error = await failure(() => testClient({ baseUrl: emulator.url }).sendAttachment(stored!.id, 'image', 'https://x.io/doc.pdf'));
    expect(error).toBeInstanceOf(UnmatchedFileTypeError);
    expect(error).toMatchObject({ code: 'UNMATCHED_FILE_TYPE', status: 403, attachmentType: 'image' });
    expect(error.message).toMatch(/file type/);
    expect(emulator.messages(TOKEN)).toEqual([]);
  });

  it('another 403 is ForbiddenError with the platform message', async () => {
    const error = await failure(() => testClient({ baseUrl: emulator.url }).createContact({ favouriteColour: 'blue' }));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.code).toBe('FORBIDDEN');
    expect(error.serverMessage).toContain('favouriteColour');
    expect(error.message).toContain('favouriteColour');
  });

  it('a 500 is ServerError once retries are spent', async () => {
    emulator.setFaults({ serverError: 1 });
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 1 } });
    const error = await failure(() => client.getContact('1'));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ code: 'SERVER_ERROR', status: 500 });
    expect(client.stats.byOperation.getContact).toEqual({ requests: 2, retries: 1, rateLimited: 0 });
  });

  it('a 429 is RateLimitedError with the Retry-After in milliseconds once retries are spent', async () => {
    emulator.setFaults({ rateLimited: 1 });
    const client = testClient({ baseUrl: emulator.url, retry: { limit: 0 } });
    const error = await failure(() => client.addTags('1', ['a']));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterMs: 1_000 });
    expect(client.stats.byOperation.addTags).toEqual({ requests: 1, retries: 0, rateLimited: 1 });
  });

  it('a reset connection is NetworkError, not refused', async () => {
    emulator.setFaults({ resetConnection: 1 });
    const error = await failure(() => testClient({ baseUrl: emulator.url, retry: { limit: 0 } }).getContact('1'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK', connectionRefused: false });
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('errors from raw servers', () => {
  it('a refused connection is NetworkError with connectionRefused', async () => {
    const port = await closedPort();
    const client = testClient({ baseUrl: `http://127.0.0.1:${port}/api`, retry: { limit: 0 } });
    const error = await failure(() => client.getContact('1'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK', connectionRefused: true, systemCode: 'ECONNREFUSED' });
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a server that never answers is TimeoutError after timeoutMs', async () => {
    const error = await withRawServer(
      () => undefined,
      (url) => failure(() => testClient({ baseUrl: url, timeoutMs: 100, retry: { limit: 0 } }).getContact('1')),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeoutMs: 100 });
  });

  it('405 is MethodNotAllowedError', async () => {
    const error = await withRawServer(
      (_request, response) => sendJson(response, 405, { status: 'error', message: '405 Method Not Allowed', data: [] }),
      (url) => failure(() => testClient({ baseUrl: url }).removeTags('1', ['a'])),
    );
    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect(error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });

  it('a 403 whose message is a list of strings is ForbiddenError with the list joined', async () => {
    const error = await withRawServer(
      (_request, response) => sendJson(response, 403, { status: 'error', message: ['Field x is invalid', 'Try again'], data: [] }),
      (url) => failure(() => testClient({ baseUrl: url }).updateContact('1', { x: '1' })),
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.serverMessage).toBe('Field x is invalid; Try again');
  });

  it('a 404 on a contact is NoSuchContactError, on create UnexpectedStatusError', async () => {
    const errors = await withRawServer(
      (_request, response) => sendJson(response, 404, { status: 'error', message: 'Not Found', data: [] }),
      async (url) => [await failure(() => testClient({ baseUrl: url }).getContact('9')), await failure(() => testClient({ baseUrl: url }).createContact({ a: '1' }))],
    );
    expect(errors.map((e) => e.code)).toEqual(['NO_SUCH_CONTACT', 'UNEXPECTED_STATUS']);
    expect(errors[1]).toBeInstanceOf(UnexpectedStatusError);
  });

  it.each([
    ['a body that is not JSON', 'text/html', '<html>oops</html>'],
    ['JSON without the documented envelope', 'application/json', '{"contact":{"id":"1"}}'],
    ['a contact with a numeric id', 'application/json', '{"data":{"id":1,"custom_fields":{},"tags":[],"created_at":1}}'],
  ])('%s is MalformedResponseError', async (_name, type, body) => {
    const error = await withRawServer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': type });
        response.end(body);
      },
      (url) => failure(() => testClient({ baseUrl: url }).getContact('1')),
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', status: 200 });
  });

  it('a search page without meta.last_page is MalformedResponseError', async () => {
    const error = await withRawServer(
      (_request, response) => sendJson(response, 200, { data: [], links: {} }),
      (url) => failure(() => testClient({ baseUrl: url }).searchContactsPage('email', 'a@b.c')),
    );
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('meta');
  });
});
