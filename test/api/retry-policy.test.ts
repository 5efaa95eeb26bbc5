import {
  type ApiError,
  MalformedResponseError,
  NetworkError,
  NoSuchContactError,
  OutcomeUnknownError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  InvalidTokenError,
} from '../../src/api/errors.js';
import { backoffDelay, decideRetry, type RetryOptions } from '../../src/api/retry-policy.js';
import type { ApiOperation } from '../../src/api/wire-types.js';

const retry: RetryOptions = { limit: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const half = (): number => 0.5;

type Kind = 'rateLimited' | 'refused' | 'reset' | 'timeout' | 'server' | 'malformed2xx' | 'malformed3xx' | 'noSuchContact' | 'invalidToken';

function failure(kind: Kind, operation: ApiOperation): ApiError {
  const where = { operation, method: 'POST', path: '/api/v1/contact' };
  switch (kind) {
    case 'rateLimited':
      return new RateLimitedError(where);
    case 'refused':
      return new NetworkError({ ...where, connectionRefused: true, systemCode: 'ECONNREFUSED' });
    case 'reset':
      return new NetworkError({ ...where, connectionRefused: false, systemCode: 'ECONNRESET' });
    case 'timeout':
      return new TimeoutError({ ...where, timeoutMs: 100 });
    case 'server':
      return new ServerError({ ...where, status: 503 });
    case 'malformed2xx':
      return new MalformedResponseError({ ...where, status: 200, problem: 'not JSON' });
    case 'malformed3xx':
      return new MalformedResponseError({ ...where, status: 302, problem: 'redirect' });
    case 'noSuchContact':
      return new NoSuchContactError({ ...where, status: 403 });
    case 'invalidToken':
      return new InvalidTokenError(where);
  }
}

const idempotent: ApiOperation[] = ['searchContacts', 'getContact', 'updateContact', 'addTags', 'removeTags'];
const nonIdempotent: ApiOperation[] = ['createContact', 'sendMessage'];

describe('decideRetry: the idempotency table', () => {
  describe.each(idempotent)('%s (repeatable)', (operation) => {
    it.each<Kind>(['rateLimited', 'refused', 'reset', 'timeout', 'server'])('retries after %s', (kind) => {
      const decision = decideRetry({ operation, error: failure(kind, operation), attempt: 1, retry, random: half });
      expect(decision.retry).toBe(true);
    });

    it.each<Kind>(['malformed2xx', 'malformed3xx', 'noSuchContact', 'invalidToken'])('fails at once with %s unchanged', (kind) => {
      const error = failure(kind, operation);
      expect(decideRetry({ operation, error, attempt: 1, retry, random: half })).toEqual({ retry: false, error });
    });
  });

  describe.each(nonIdempotent)('%s (not repeatable)', (operation) => {
    it.each<Kind>(['rateLimited', 'refused'])('retries after %s: the request cannot have taken effect', (kind) => {
      expect(decideRetry({ operation, error: failure(kind, operation), attempt: 1, retry, random: half }).retry).toBe(true);
    });

    it.each<Kind>(['reset', 'timeout', 'server', 'malformed2xx'])('fails with OutcomeUnknownError after %s, keeping it as cause', (kind) => {
      const error = failure(kind, operation);
      const decision = decideRetry({ operation, error, attempt: 1, retry, random: half });
      if (decision.retry) throw new Error('expected no retry');
      expect(decision.error).toBeInstanceOf(OutcomeUnknownError);
      expect(decision.error.code).toBe('OUTCOME_UNKNOWN');
      expect(decision.error.operation).toBe(operation);
      expect(decision.error.cause).toBe(error);
    });

    it.each<Kind>(['malformed3xx', 'noSuchContact', 'invalidToken'])('fails at once with %s unchanged: it did not take effect', (kind) => {
      const error = failure(kind, operation);
      expect(decideRetry({ operation, error, attempt: 1, retry, random: half })).toEqual({ retry: false, error });
    });
  });
});

describe('decideRetry: v2\'s create_or_update (idempotent: true)', () => {
  it.each<Kind>(['reset', 'timeout', 'server'])('a create that says it is retry-safe retries after %s, as an update does', (kind) => {
    expect(decideRetry({ operation: 'createContact', error: failure(kind, 'createContact'), attempt: 1, retry, random: half, idempotent: true }).retry).toBe(true);
  });

  it('a send that says it is not stays not repeatable', () => {
    const decision = decideRetry({ operation: 'sendMessage', error: failure('timeout', 'sendMessage'), attempt: 1, retry, random: half, idempotent: false });
    expect(decision.retry ? 'retry' : decision.error.code).toBe('OUTCOME_UNKNOWN');
  });
});

describe('decideRetry: bounds and delays', () => {
  it('stops after retry.limit retries and returns the last error', () => {
    const error = failure('server', 'getContact');
    expect(decideRetry({ operation: 'getContact', error, attempt: 3, retry, random: half }).retry).toBe(true);
    expect(decideRetry({ operation: 'getContact', error, attempt: 4, retry, random: half })).toEqual({ retry: false, error });
  });

  it('never retries when retry.limit is 0', () => {
    const error = failure('rateLimited', 'createContact');
    expect(decideRetry({ operation: 'createContact', error, attempt: 1, retry: { ...retry, limit: 0 }, random: half }).retry).toBe(false);
  });

  it('waits what Retry-After asked for on a 429', () => {
    const error = new RateLimitedError({ operation: 'addTags', retryAfterMs: 2_000 });
    expect(decideRetry({ operation: 'addTags', error, attempt: 1, retry, random: half })).toEqual({ retry: true, delayMs: 2_000 });
  });

  it('gives up on a 429 whose Retry-After is longer than retry.maxRetryAfterMs', () => {
    const error = new RateLimitedError({ operation: 'addTags', retryAfterMs: 60_000 });
    expect(decideRetry({ operation: 'addTags', error, attempt: 1, retry, random: half })).toEqual({ retry: false, error });
  });

  it('backs off on its own on a 429 without Retry-After', () => {
    const error = new RateLimitedError({ operation: 'addTags' });
    expect(decideRetry({ operation: 'addTags', error, attempt: 2, retry, random: () => 0 })).toEqual({ retry: true, delayMs: 100 });
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt, between half and all of the step', () => {
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, retry, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, retry, () => 0.999999))).toEqual([100, 200, 400]);
  });

  it('is capped at retry.maxDelayMs', () => {
    expect(backoffDelay(20, retry, () => 0.999999)).toBe(1_000);
    expect(backoffDelay(20, retry, () => 0)).toBe(500);
  });
});
