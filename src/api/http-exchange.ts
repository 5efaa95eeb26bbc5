/**
 * One HTTP request of a platform client (v1's `ApiClient`, v2's `V2Client`) and its answer, over
 * got: the token as a Bearer header, no got retry (a retry would resend creates and sends), no
 * redirect (it would carry the Authorization header to whatever origin a redirect names), the
 * answer as text with the token cut out of it. A request that got no complete answer throws its
 * `ApiError` (errorFromTransport). Each request is one debug line, never with the token.
 */
import { performance } from 'node:perf_hooks';
import got from 'got';
import { errorFromTransport, type RequestContext } from './error-mapping.js';
import { MAX_ANSWER_BYTES, V2_MAX_PAGE_SIZE } from '../limits.js';
import { MalformedResponseError, type ApiErrorContext } from './errors.js';
import type { ApiLogger } from './logger.js';
import type { ApiOperation } from './wire-types.js';

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

/** One call of a platform client, as both surfaces describe it; each adds what its own limiter and answers need. */
export interface CallSpec<T> {
  operation: ApiOperation;
  method: HttpMethod;
  /** Below the API root, segments already encoded (v1 `/v1/contact/12`, v2 `/contact/id:12`). */
  path: string;
  query?: ReadonlyArray<readonly [string, string]>;
  body?: unknown;
  contactId?: string;
  /** Called when the limiter released the attempt, just before it leaves. */
  onLeave?: () => void;
  /**
   * The call repeats one whose outcome was lost (a create sent again once a search did not find
   * it, a v2 send not in the message list): its every request is counted as a retry.
   */
  repeat?: boolean;
  /** Reads a 2xx body into the result; throws `MalformedResponseError`. */
  read: (body: string, where: ApiErrorContext) => T;
}

export interface HttpExchange {
  readonly url: string;
  readonly method: HttpMethod;
  readonly token: string;
  /** Sent as JSON when given. */
  readonly body?: unknown;
  readonly timeoutMs: number;
  /** What the request is, for the errors. */
  readonly request: RequestContext;
  readonly logger: ApiLogger;
  /** The fields of the request's debug line. */
  readonly logged: Readonly<Record<string, unknown>>;
  /** Cuts the token out of the answer. */
  readonly redact: (text: string) => string;
  /** The most bytes of the answer read; a longer one fails the call as it arrives. @default MAX_ANSWER_BYTES (8 MiB) */
  readonly maxAnswerBytes?: number;
}

export interface HttpAnswer {
  readonly status: number;
  /** The body as text, without the token. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** An answer longer than the most the client reads: cut off, the call failed (`MalformedResponseError`). */
function tooLarge(exchange: HttpExchange, status: number | undefined, maxBytes: number): MalformedResponseError {
  return new MalformedResponseError({
    ...exchange.request,
    ...(status === undefined ? {} : { status }),
    problem: `the answer is larger than ${formatBytes(maxBytes)}, the most the client reads of one answer (a page of ${V2_MAX_PAGE_SIZE} contacts is far smaller): it was not read; run again later, and tell the platform if it persists`,
  });
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

export async function httpExchange(exchange: HttpExchange): Promise<HttpAnswer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${exchange.token}`,
    accept: 'application/json',
    'user-agent': 'contact-sync',
  };
  if (exchange.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const maxBytes = exchange.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  let cutOff: { status: number | undefined } | undefined;
  let answeredStatus: number | undefined;
  let response;
  try {
    const request = got(exchange.url, {
      method: exchange.method,
      headers,
      ...(exchange.body === undefined ? {} : { body: JSON.stringify(exchange.body) }),
      responseType: 'text',
      throwHttpErrors: false,
      followRedirect: false,
      retry: { limit: 0 },
      timeout: { request: exchange.timeoutMs },
    });
    void request.on('response', (answer: { statusCode: number }) => {
      answeredStatus = answer.statusCode;
    });
    // Cut off as it arrives: the announced length (`total`) or what came so far, past the bound.
    void request.on('downloadProgress', (progress: { transferred: number; total?: number }) => {
      if (cutOff === undefined && ((progress.total ?? 0) > maxBytes || progress.transferred > maxBytes)) {
        cutOff = { status: answeredStatus };
        request.cancel();
      }
    });
    response = await request;
  } catch (error) {
    if (cutOff !== undefined) {
      exchange.logger.debug({ ...exchange.logged, status: cutOff.status, code: 'MALFORMED_RESPONSE', ms: Math.round(performance.now() - started) }, 'api answer too large');
      throw tooLarge(exchange, cutOff.status, maxBytes);
    }
    const mapped = errorFromTransport(exchange.request, error, exchange.timeoutMs);
    exchange.logger.debug({ ...exchange.logged, code: mapped?.code ?? 'UNKNOWN', ms: Math.round(performance.now() - started) }, 'api request failed');
    throw mapped ?? error;
  }
  const status = response.statusCode;
  exchange.logger.debug({ ...exchange.logged, status, ms: Math.round(performance.now() - started) }, 'api request');
  // A server may echo what it was sent, escaped or not; the token must not reach a message through it.
  return { status, body: exchange.redact(response.body), headers: response.headers };
}
