/**
 * A job's API client and its limiters, built one way for every command that calls the platform
 * (`run`, `check`), so each gets the connection's timeouts, limits and shared rate limiter alike.
 */
import type { Logger } from 'pino';
import type { ApiCallStats } from '../api/call-stats.js';
import { ApiClient, type ApiLimiters, type ApiClientOptions } from '../api/v1/client.js';
import type { ContactsApi } from '../api/contacts-api.js';
import type { LimiterRegistry } from '../api/limiter.js';
import { V2Client } from '../api/v2/client.js';
import type { Job } from '../config/job-types.js';
import { learntLimitsFactory, OrganisationLimits } from './v2-endpoint-limits.js';

/** The job's limiters, shared through `rateLimits.redis` when the connection names one. */
export function apiLimiters(job: Job, limiters: LimiterRegistry): ApiLimiters {
  const { connection } = job;
  const { redis } = connection.rateLimits;
  const shared = redis === undefined ? {} : { redis, redisWhere: `connections.${connection.name}.rateLimits.redis` };
  return {
    contacts: limiters.get(connection.baseUrl, connection.token, 'contacts', connection.rateLimits.contacts, shared),
    messages: limiters.get(connection.baseUrl, connection.token, 'messages', connection.rateLimits.messages, shared),
  };
}

/**
 * Makes, before the first call, the limits `job`'s client will schedule through, so that
 * `limiters.ready()` connects their Redis (an unreachable one fails the start): v1's groups of the
 * token, or v2's budget of the connection's organisation. A v2 connection gets no v1 group: its
 * client never schedules through one, and one shared through Redis would leave keys of its own there.
 */
export function prepareLimits(job: Job, limiters: LimiterRegistry, organisations: OrganisationLimits): void {
  if (job.connection.api === 'v2') organisations.for(job.connection);
  else apiLimiters(job, limiters);
}

export interface ConnectionClientOptions {
  readonly stats?: ApiCallStats;
  readonly logger?: Logger;
  /** Retries to allow; `check` allows none (a 429 or a failure is its answer). @default the connection's */
  readonly retryLimit?: number;
  /** v2: the command's budgets per organisation, to schedule through. @default a budget of this client's own */
  readonly organisations?: OrganisationLimits;
}

/**
 * The platform client of `job`'s connection, v1's or v2's as its `api:` says: its URL, token,
 * limits and timeouts. The pipeline gets it as the port (`ContactsApi`) and never asks which.
 */
export function connectionClient(job: Job, limiters: LimiterRegistry, options: ConnectionClientOptions = {}): ContactsApi {
  const { connection } = job;
  const { timeouts } = connection;
  const common = {
    baseUrl: connection.baseUrl,
    token: connection.token,
    timeoutMs: timeouts.requestMs,
    maxPages: timeouts.maxPages,
    retry: { maxRetryAfterMs: timeouts.maxRetryAfterMs, ...(options.retryLimit === undefined ? {} : { limit: options.retryLimit }) },
    unavailableAfter: { attempts: timeouts.unavailableAfterAttempts, ms: timeouts.unavailableAfterMs },
    ...(options.stats === undefined ? {} : { stats: options.stats }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  if (connection.api === 'v2') {
    const organisations = options.organisations ?? new OrganisationLimits(learntLimitsFactory(limiters));
    return new V2Client({ ...common, limits: organisations.for(connection), channelId: sendChannel(job) });
  }
  const clientOptions: ApiClientOptions = { ...common, channelType: connection.channelType, limiters: apiLimiters(job, limiters), rates: connection.rateLimits };
  return new ApiClient(clientOptions);
}

/** v2: the channel of `job`'s sends: its `message.channelId` when given (null too), else the connection's, else null. */
function sendChannel(job: Job): number | null {
  const own = job.message?.channelId;
  return own === undefined ? (job.connection.channelId ?? null) : own;
}
