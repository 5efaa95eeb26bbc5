/** The public API of the client: what the pipeline, the CLI and the tests import. */
export { ApiClient, type ApiClientOptions, type ApiLimiters } from './client.js';
export { ApiCallStats } from './call-stats.js';
export type { CallStats, ContactsApi, OperationCount, SendOptions } from './contacts-api.js';
export {
  ApiError,
  type ApiErrorCode,
  type ApiErrorContext,
  ForbiddenError,
  InvalidTokenError,
  MalformedResponseError,
  MethodNotAllowedError,
  NetworkError,
  NoSuchContactError,
  OutcomeUnknownError,
  PageLimitError,
  RateLimitedError,
  RequestInvalidError,
  ServerError,
  TimeoutError,
  UnexpectedStatusError,
  UnmatchedFileTypeError,
} from './errors.js';
export { LimiterRegistry, minTimeFor } from './limiter.js';
export { silentLogger, type ApiLogger } from './logger.js';
export { parseRetryAfter } from './retry-after.js';
export { DEFAULT_RETRY, NON_IDEMPOTENT_OPERATIONS, backoffDelay, decideRetry, type RetryDecision, type RetryOptions } from './retry-policy.js';
export { stripUrlAuth } from './strip-url-auth.js';
export * from './wire-types.js';
