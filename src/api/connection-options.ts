/**
 * What every surface's client takes for its connection, checked once: the API root, the token,
 * the timeouts, the retry policy's settings, the clock and the circuit breaker. `ApiClient` (v1) and
 * `V2Client` each add their own (limiters, channel) to what `connectionParts` gives them.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { baseUrlProblems } from './base-url.js';
import { ApiCallStats } from './call-stats.js';
import { ConnectionHealth, DEFAULT_UNAVAILABLE_AFTER_ATTEMPTS, DEFAULT_UNAVAILABLE_AFTER_MS } from './connection-health.js';
import { silentLogger, type ApiLogger } from './logger.js';
import { tokenRedactor } from './redact-token.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import { stripUrlAuth } from './strip-url-auth.js';

export interface ConnectionOptions {
  /**
   * The API root (v1: like `https://app.example.com/api`, request paths `/v1/...` appended; v2:
   * like `https://api.respond.io/v2`). http or https, without credentials, query or fragment; a
   * trailing slash is ignored.
   */
  readonly baseUrl: string;
  /** The channel's (v1) or workspace's (v2) token, sent as `Authorization: Bearer <token>`. Never logged nor put in a message. */
  readonly token: string;
  /** Debug line per request, info line per retry; pino-compatible. @default a silent logger */
  readonly logger?: ApiLogger;
  /** Longest wait for a complete answer of one request, in milliseconds. @default 30000 */
  readonly timeoutMs?: number;
  /** Retries with bounded exponential backoff and jitter; missing keys take `DEFAULT_RETRY`. @default DEFAULT_RETRY */
  readonly retry?: Partial<RetryOptions>;
  /** Source of jitter, a number in [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Waits between attempts, in milliseconds. @default a timer */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Clock for HTTP-date `Retry-After`, in milliseconds since the epoch. @default Date.now */
  readonly now?: () => number;
  /** Hard cap of pages read by one key's search (and, on v2, one listing). @default 1000 */
  readonly maxPages?: number;
  /** Where requests are counted; pass one instance to every client of a job run. @default a new ApiCallStats */
  readonly stats?: ApiCallStats;
  /**
   * Circuit breaker: attempts in a row, or milliseconds since the first failure, without a success
   * after which the platform counts as unavailable (`ApiUnavailableError`); see connection-health.ts.
   * @default { attempts: 20, ms: 300000 }
   */
  readonly unavailableAfter?: { readonly attempts?: number; readonly ms?: number };
}

/** The connection's options, checked, with their defaults. */
export interface ConnectionParts {
  /** Origin and path of the API root, without trailing slash. */
  readonly root: string;
  readonly rootPath: string;
  readonly token: string;
  readonly redact: (text: string) => string;
  readonly logger: ApiLogger;
  readonly timeoutMs: number;
  readonly retry: RetryOptions;
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly maxPages: number;
  readonly stats: ApiCallStats;
  /** Pauses (Retry-After) and the circuit breaker of this connection. */
  readonly health: ConnectionHealth;
}

/** Checks `options` (a TypeError naming the option and what it must be) and fills in the defaults. */
export function connectionParts(options: ConnectionOptions): ConnectionParts {
  const base = checkBaseUrl(options.baseUrl);
  const rootPath = base.pathname.replace(/\/+$/, '');
  // Visible ASCII only, as an HTTP header value must be; the value is not echoed: it is a secret.
  if (typeof options.token !== 'string' || !/^[!-~]+$/.test(options.token)) {
    throw new TypeError(`ApiClient option \`token\` must be a non-empty string of visible ASCII characters (no spaces or line breaks), got a ${typeof options.token} that is not`);
  }
  const retry = checkRetry(options.retry);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  return {
    root: `${base.origin}${rootPath}`,
    rootPath,
    token: options.token,
    redact: tokenRedactor(options.token),
    logger: options.logger ?? silentLogger,
    timeoutMs: checkPositiveInteger('timeoutMs', options.timeoutMs ?? 30_000, 'milliseconds'),
    retry,
    random: options.random ?? Math.random,
    sleep,
    now,
    maxPages: checkPositiveInteger('maxPages', options.maxPages ?? 1000, 'pages'),
    stats: options.stats ?? new ApiCallStats(),
    health: new ConnectionHealth({
      unavailableAfterAttempts: checkPositiveInteger('unavailableAfter.attempts', options.unavailableAfter?.attempts ?? DEFAULT_UNAVAILABLE_AFTER_ATTEMPTS, 'attempts'),
      unavailableAfterMs: checkPositiveInteger('unavailableAfter.ms', options.unavailableAfter?.ms ?? DEFAULT_UNAVAILABLE_AFTER_MS, 'milliseconds'),
      maxRetryAfterMs: retry.maxRetryAfterMs,
      now,
      sleep,
    }),
  };
}

export function optionError(name: string, expected: string, value: unknown): TypeError {
  const shown = typeof value === 'string' ? JSON.stringify(stripUrlAuth(value)) : String(value);
  return new TypeError(`ApiClient option \`${name}\` must be ${expected}, got ${shown} (${typeof value})`);
}

function checkBaseUrl(value: unknown): URL {
  if (typeof value !== 'string') throw optionError('baseUrl', 'an http(s) URL string', value);
  const [problem] = baseUrlProblems(value);
  if (problem !== undefined) throw new TypeError(`ApiClient option \`baseUrl\` ${JSON.stringify(stripUrlAuth(value))} ${problem}`);
  return new URL(value);
}

export function checkPositiveInteger(name: string, value: unknown, unit: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw optionError(name, `a whole number of ${unit} from 1 up`, value);
  }
  return value;
}

function checkRetry(value: Partial<RetryOptions> | undefined): RetryOptions {
  const retry = { ...DEFAULT_RETRY, ...value };
  if (!Number.isInteger(retry.limit) || retry.limit < 0 || retry.limit > 100) {
    throw optionError('retry.limit', 'a whole number of retries from 0 to 100', retry.limit);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    const ms = retry[name];
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw optionError(`retry.${name}`, 'a number of milliseconds from 0 up', ms);
    }
  }
  if (retry.maxDelayMs < retry.baseDelayMs) {
    throw optionError('retry.maxDelayMs', `at least retry.baseDelayMs (${retry.baseDelayMs})`, retry.maxDelayMs);
  }
  return retry;
}
