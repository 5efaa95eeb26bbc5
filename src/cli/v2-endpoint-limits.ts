/**
 * The v2 budgets of a command (`run`, `check`): one `EndpointLimits` per organisation, shared by
 * every v2 client (every connection and job) that names it, as the platform counts requests per
 * organisation. Sharing between processes is the learnt limiter's (through `rateLimits.redis`).
 * `makeLimits` builds one organisation's: the learnt limiter (src/api/v2/learnt-limits.ts) is
 * plugged in here; until it is, `SerialEndpointLimits` (one request at a time per endpoint, no
 * pacing) stands in.
 */
import type { EndpointLimits } from '../api/v2/endpoint-limits.js';
import { SerialEndpointLimits } from '../api/v2/serial-endpoint-limits.js';

export type EndpointLimitsFactory = (organisation: string) => EndpointLimits;

export const serialLimitsFactory: EndpointLimitsFactory = () => new SerialEndpointLimits();

export class OrganisationLimits {
  readonly #byOrganisation = new Map<string, EndpointLimits>();

  constructor(private readonly makeLimits: EndpointLimitsFactory = serialLimitsFactory) {}

  /** The organisation's budget, made on first use. */
  for(organisation: string): EndpointLimits {
    let limits = this.#byOrganisation.get(organisation);
    if (limits === undefined) {
      limits = this.makeLimits(organisation);
      this.#byOrganisation.set(organisation, limits);
    }
    return limits;
  }
}
