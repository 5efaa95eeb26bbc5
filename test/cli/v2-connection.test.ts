/**
 * `connectionClient` builds the adapter a connection's `api:` names, and a command's v2 budgets
 * are one per organisation, shared by every connection naming it (src/cli/v2-endpoint-limits.ts).
 */
import { ApiClient } from '../../src/api/v1/client.js';
import { LimiterRegistry } from '../../src/api/limiter.js';
import { V2Client } from '../../src/api/v2/client.js';
import type { EndpointLimits } from '../../src/api/v2/endpoint-limits.js';
import { SerialEndpointLimits } from '../helpers/serial-endpoint-limits.js';
import { connectionClient, prepareLimits } from '../../src/cli/connection.js';
import { OrganisationLimits } from '../../src/cli/v2-endpoint-limits.js';
import type { Connection } from '../../src/config/job-types.js';
import { makeJob } from '../helpers/job-factory.js';

function connection(name: string, overrides: Partial<Connection>): Connection {
  return { ...makeJob().connection, name, ...overrides };
}

describe('connectionClient', () => {
  const limiters = new LimiterRegistry();
  afterAll(async () => {
    await limiters.stop({ dropWaitingJobs: true });
  });

  test('api: v1 is the v1 adapter, api: v2 the v2 one; each states its surface', () => {
    const v1 = connectionClient(makeJob(), limiters);
    const v2 = connectionClient(makeJob({ connection: connection('main', { api: 'v2', baseUrl: 'http://127.0.0.1:1/v2', channelId: 1 }) }), limiters);
    expect([v1 instanceof ApiClient, v1.surface.name]).toEqual([true, 'v1']);
    expect([v2 instanceof V2Client, v2.surface.name]).toEqual([true, 'v2']);
  });

  test('connections naming one organisation share its budget; another organisation has its own', () => {
    const made: Array<[string, string]> = [];
    const organisations = new OrganisationLimits((organisation, named) => {
      made.push([organisation, named.name]);
      return new SerialEndpointLimits();
    });
    const a = organisations.for(connection('a', { api: 'v2', organisation: 'acme' }));
    const b = organisations.for(connection('b', { api: 'v2', organisation: 'acme' }));
    const c = organisations.for(connection('c', { api: 'v2', organisation: 'other' }));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(made).toEqual([
      ['acme', 'a'],
      ['other', 'c'],
    ]);
  });

  test('the v2 client schedules through the budget of its organisation', async () => {
    const scheduled: string[] = [];
    const limits: EndpointLimits = {
      schedule: (endpoint, attempt) => {
        scheduled.push(endpoint);
        return attempt().then(({ value }) => value);
      },
      learnt: () => [],
    };
    const organisations = new OrganisationLimits(() => limits);
    const api = connectionClient(makeJob({ connection: connection('main', { api: 'v2', baseUrl: 'http://127.0.0.1:1/v2', channelId: 1 }) }), limiters, { organisations, retryLimit: 0 });
    // Nothing listens on port 1: the attempt was scheduled, then refused.
    await expect(api.getContact('12')).rejects.toMatchObject({ code: 'NETWORK' });
    expect(scheduled).toEqual(['GET /contact/{identifier}']);
  });

  test('prepareLimits makes v1 its two groups, and v2 only its organisation\'s budget, no v1 group', async () => {
    const own = new LimiterRegistry();
    try {
      const made: string[] = [];
      const organisations = new OrganisationLimits((organisation) => {
        made.push(organisation);
        return new SerialEndpointLimits();
      });
      prepareLimits(makeJob({ connection: connection('v2', { api: 'v2', baseUrl: 'http://127.0.0.1:1/v2', channelId: 1, organisation: 'acme' }) }), own, organisations);
      expect([own.size, made]).toEqual([0, ['acme']]);
      prepareLimits(makeJob(), own, organisations);
      expect([own.size, made]).toEqual([2, ['acme']]);
    } finally {
      await own.stop({ dropWaitingJobs: true });
    }
  });
});
