/**
 * The v2 budgets of a command (`run`, `check`): one `EndpointLimits` per organisation, shared by
 * every v2 client (every connection and job) that names it, as the platform counts requests per
 * organisation. Sharing between processes is the learnt limiter's (through `rateLimits.redis`).
 * `makeLimits` builds one organisation's: the learnt limiter (src/api/v2/learnt-limits.ts) is
 * plugged in here; until it is, `SerialEndpointLimits` (one request at a time per endpoint, no
 * pacing) stands in.
 */
import type { EndpointLimits } from '../api/v2/endpoint-limits.js';
import type { Connection } from '../config/job-types.js';
import { SerialEndpointLimits } from '../api/v2/serial-endpoint-limits.js';

/**
 * Makes one organisation's budget, on the first connection that names it: the connection gives
 * what the budget may need of the jobs file (`rateLimits.redis` to share it between processes,
 * `rateLimits` as a ceiling).
 */
export type EndpointLimitsFactory = (organisation: string, connection: Connection) => EndpointLimits;

export const serialLimitsFactory: EndpointLimitsFactory = () => new SerialEndpointLimits();

export class OrganisationLimits {
  readonly #byOrganisation = new Map<string, EndpointLimits>();

  constructor(private readonly makeLimits: EndpointLimitsFactory = serialLimitsFactory) {}

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
