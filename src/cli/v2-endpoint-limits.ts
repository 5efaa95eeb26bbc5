/**
 * The v2 budgets of a command (`run`, `check`): one `EndpointLimits` per organisation, shared by
 * every v2 client (every connection and job) that names it, as the platform counts requests per
 * organisation. `makeLimits` builds one organisation's: in a command, the learnt limiter of the
 * process's `LimiterRegistry` (`learntLimitsFactory`: src/api/v2/learnt-limits.ts), shared between
 * processes through `rateLimits.redis`; tests may give another.
 */
import type { LimiterRegistry } from '../api/limiter.js';
import type { EndpointLimits } from '../api/v2/endpoint-limits.js';
import { organisationLimits } from '../api/v2/learnt-limits.js';
import type { Connection } from '../config/job-types.js';
import type { Rate } from '../limits.js';

/**
 * Makes one organisation's budget, on the first connection that names it: the connection gives
 * what the budget may need of the jobs file (`rateLimits.redis` to share it between processes,
 * `rateLimits` as a ceiling).
 */
export type EndpointLimitsFactory = (organisation: string, connection: Connection) => EndpointLimits;

/**
 * The learnt limiter of `limiters` for the connection's organisation: its Redis (when
 * `rateLimits.redis` is given) shared by every process, its ceilings the rates the connection
 * states (`rateLimits.contacts` for contact endpoints, `rateLimits.messages` for message ones),
 * each per endpoint.
 */
export function learntLimitsFactory(limiters: LimiterRegistry): EndpointLimitsFactory {
  return (organisation, connection) => {
    const { redis } = connection.rateLimits;
    const ceilings = connection.ceilings ?? {};
    return organisationLimits(limiters, connection.baseUrl, organisation, {
      ...(redis === undefined ? {} : { redis, redisWhere: `connections.${connection.name}.rateLimits.redis` }),
      requestTimeoutMs: connection.timeouts.requestMs,
      ceiling: (endpoint): Rate | undefined => (isMessageEndpoint(endpoint) ? ceilings.messages : ceilings.contacts),
    });
  };
}

/** `POST /contact/{identifier}/message` and the message reads: the messages group's ceiling. */
function isMessageEndpoint(endpoint: string): boolean {
  return /\/message(\/|$)/.test(endpoint);
}

export class OrganisationLimits {
  readonly #byOrganisation = new Map<string, EndpointLimits>();

  constructor(private readonly makeLimits: EndpointLimitsFactory) {}

  /** The budget of the connection's organisation, made on first use. */
  for(connection: Connection): EndpointLimits {
    const { organisation } = connection;
    let limits = this.#byOrganisation.get(organisation);
    if (limits === undefined) {
      limits = this.makeLimits(organisation, connection);
      this.#byOrganisation.set(organisation, limits);
    }
    return limits;
  }
}
