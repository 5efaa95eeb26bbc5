/**
 * From what came back (an HTTP status and body, or a transport failure) to the `ApiError` kind.
 * Pure: the mapping table is tested without a server.
 */
import { RequestError as GotRequestError, TimeoutError as GotTimeoutError } from 'got';
import type { AttachmentType } from '../limits.js';
import { parseRetryAfter } from './retry-after.js';
import { serverMessageOf } from './json-body.js';
import {
  type ApiError,
  type ApiErrorContext,
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
} from './errors.js';
import type { ApiOperation } from './wire-types.js';

/** What the request was, for the error's context. */
export interface RequestContext {
  operation: ApiOperation;
  method: string;
  /** URL path, without origin, query or credentials. */
  path: string;
  /** Set on attachment sends: a 403 there means the file type did not match. */
  attachmentType?: AttachmentType;
  /** Set on operations that name a contact. */
  contactId?: string;
}

export interface ReceivedResponse {
  status: number;
  /** The body as text (already cleared of the token by the caller). */
  body: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request URL, to resolve a relative `Location`. */
  url: string;
}

function parsedBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function header(response: ReceivedResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The origin a `Location` header points at, without credentials; the raw text when unreadable. */
function locationOrigin(response: ReceivedResponse): string {
  const location = header(response, 'location');
  if (location === undefined) return 'nowhere (no Location header)';
  try {
    return new URL(location, response.url).origin;
  } catch {
    return JSON.stringify(location.slice(0, 80));
  }
}

/** The error for a non-2xx answer. */
export function errorFromResponse(request: RequestContext, response: ReceivedResponse, nowMs: number): ApiError {
  const { status } = response;
  const serverMessage = serverMessageOf(parsedBody(response.body));
  const context: ApiErrorContext = { operation: request.operation, method: request.method, path: request.path, status };
  if (serverMessage !== undefined) context.serverMessage = serverMessage;

  if (status >= 300 && status < 400) {
    // Redirects are never followed: got would resend the Authorization header to the new place.
    return new MalformedResponseError({
      ...context,
      problem: `HTTP ${status} redirect to ${locationOrigin(response)}, not followed so the token stays with ` +
        'the configured origin; set `baseUrl` to the final address (https, exact host)',
    });
  }
  if (status === 401) return new InvalidTokenError(context);
  if (status === 405) return new MethodNotAllowedError(context);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], nowMs);
    return new RateLimitedError(retryAfterMs === undefined ? context : { ...context, retryAfterMs });
  }
  if (status === 403) {
    if (serverMessage !== undefined && /no such contact/i.test(serverMessage)) {
      return new NoSuchContactError(request.contactId === undefined ? context : { ...context, contactId: request.contactId });
    }
    // The spec documents a 403 "unmatched file type" for attachment sends without its text: a
    // message that names the file type, or none at all, is that one; any other is a general 403.
    if (request.attachmentType !== undefined && (serverMessage === undefined || /file.?type|unmatched/i.test(serverMessage))) {
      return new UnmatchedFileTypeError({ ...context, attachmentType: request.attachmentType });
    }
    return new ForbiddenError(context);
  }
  if (status === 404) {
    if (request.contactId !== undefined) return new NoSuchContactError({ ...context, contactId: request.contactId });
    return new UnexpectedStatusError({ ...context, hint: 'check that `baseUrl` is the API root (paths start with /v1/)' });
  }
  if (status >= 500) return new ServerError(context);
  return new UnexpectedStatusError(context);
}

/**
 * got's own error holds the request options, Authorization header included, in an enumerable
 * property that error serialisers (pino's among them) walk through `cause`. Keep the underlying
 * system error instead, or a bare copy of got's message and code.
 */
function safeCause(error: GotRequestError): Error {
  if (error.cause instanceof Error && !(error.cause instanceof GotRequestError)) return error.cause;
  return Object.assign(new Error(error.message), { code: error.code });
}

const REFUSED = new Set(['ECONNREFUSED']);

/**
 * The error for a request that got no complete answer. Returns undefined for errors that are not
 * transport failures (a bug), which the caller rethrows unchanged.
 */
export function errorFromTransport(request: RequestContext, error: unknown, timeoutMs: number): ApiError | undefined {
  if (!(error instanceof GotRequestError)) return undefined;
  const context: ApiErrorContext = { operation: request.operation, method: request.method, path: request.path, cause: safeCause(error) };
  if (error instanceof GotTimeoutError || error.code === 'ETIMEDOUT') {
    return new TimeoutError({ ...context, timeoutMs });
  }
  return new NetworkError({ ...context, connectionRefused: REFUSED.has(error.code), systemCode: error.code });
}
