import { errorFromResponse, type ReceivedResponse, type RequestContext } from '../../src/api/error-mapping.js';
import {
  ForbiddenError,
  InvalidTokenError,
  MalformedResponseError,
  MethodNotAllowedError,
  NoSuchContactError,
  RateLimitedError,
  ServerError,
  UnexpectedStatusError,
  UnmatchedFileTypeError,
} from '../../src/api/errors.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const get: RequestContext = { operation: 'getContact', method: 'GET', path: '/api/v1/contact/7', contactId: '7' };
const create: RequestContext = { operation: 'createContact', method: 'POST', path: '/api/v1/contact' };
const attachment: RequestContext = {
  operation: 'sendMessage',
  method: 'POST',
  path: '/api/v1/message/sendContent/7',
  contactId: '7',
  attachmentType: 'image',
};

function answer(status: number, message?: unknown, headers: ReceivedResponse['headers'] = {}): ReceivedResponse {
  const body = message === undefined ? '' : JSON.stringify({ status: 'error', message, data: [] });
  return { status, body, headers, url: 'http://127.0.0.1:1/api/v1/contact/7' };
}

describe('errorFromResponse: one error kind per answer', () => {
  it.each([
    ['401', get, answer(401, 'The API token is invalid'), InvalidTokenError, 'INVALID_TOKEN'],
    ['405', get, answer(405, '405 Method Not Allowed'), MethodNotAllowedError, 'METHOD_NOT_ALLOWED'],
    ['429', get, answer(429, 'Too many requests'), RateLimitedError, 'RATE_LIMITED'],
    ['403 "no such contact"', get, answer(403, 'no such contact: 7'), NoSuchContactError, 'NO_SUCH_CONTACT'],
    ['403 "No Such Contact" in a list', get, answer(403, ['Oops', 'No such contact']), NoSuchContactError, 'NO_SUCH_CONTACT'],
    ['404 on a contact path', get, answer(404, 'Not Found'), NoSuchContactError, 'NO_SUCH_CONTACT'],
    ['403 on an attachment naming the file type', attachment, answer(403, 'unmatched file type'), UnmatchedFileTypeError, 'UNMATCHED_FILE_TYPE'],
    ['403 on an attachment without message', attachment, answer(403), UnmatchedFileTypeError, 'UNMATCHED_FILE_TYPE'],
    ['other 403 on an attachment', attachment, answer(403, 'survey active'), ForbiddenError, 'FORBIDDEN'],
    ['other 403', create, answer(403, 'custom field "x" does not exist'), ForbiddenError, 'FORBIDDEN'],
    ['500', get, answer(500, 'Server Error'), ServerError, 'SERVER_ERROR'],
    ['503 with an HTML body', get, { ...answer(503), body: '<html>busy</html>' }, ServerError, 'SERVER_ERROR'],
    ['404 on a collection path', create, answer(404), UnexpectedStatusError, 'UNEXPECTED_STATUS'],
    ['400', create, answer(400, 'bad'), UnexpectedStatusError, 'UNEXPECTED_STATUS'],
    ['302', get, answer(302, undefined, { location: 'https://elsewhere.example:8443/x' }), MalformedResponseError, 'MALFORMED_RESPONSE'],
  ])('maps %s to its kind', (_name, request, response, kind, code) => {
    const error = errorFromResponse(request, response, NOW);
    expect(error).toBeInstanceOf(kind);
    expect(error.code).toBe(code);
    expect(error.status).toBe(response.status);
    expect(error.operation).toBe(request.operation);
    expect(error.message).toContain(`${request.operation} ${request.method} ${request.path}`);
  });

  it('keeps the server message of a general 403, a list joined', () => {
    const error = errorFromResponse(create, answer(403, ['field "x" does not exist', 'create it first']), NOW);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.serverMessage).toBe('field "x" does not exist; create it first');
    expect(error.message).toContain('field "x" does not exist; create it first');
  });

  it('mentions the file type in an unmatched-file-type message', () => {
    const error = errorFromResponse(attachment, answer(403, 'unmatched file type'), NOW);
    expect(error.message).toMatch(/file type/);
    expect(error.message).toContain('image');
  });

  it('carries the Retry-After of a 429 in milliseconds, seconds or date', () => {
    const seconds = errorFromResponse(get, answer(429, 'x', { 'retry-after': '3' }), NOW) as RateLimitedError;
    const date = errorFromResponse(get, answer(429, 'x', { 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), NOW) as RateLimitedError;
    const none = errorFromResponse(get, answer(429, 'x'), NOW) as RateLimitedError;
    expect([seconds.retryAfterMs, date.retryAfterMs, none.retryAfterMs]).toEqual([3_000, 10_000, undefined]);
  });

  it('names the origin of a redirect without its credentials', () => {
    const error = errorFromResponse(get, answer(301, undefined, { location: 'https://user:secret@evil.example/steal' }), NOW);
    expect(error.message).toContain('https://evil.example');
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toContain('user');
  });

  it('resolves a relative Location against the request URL', () => {
    const error = errorFromResponse(get, answer(307, undefined, { location: '/elsewhere' }), NOW);
    expect(error.message).toContain('http://127.0.0.1:1');
  });
});
