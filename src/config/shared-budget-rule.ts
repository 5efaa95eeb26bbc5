/**
 * Two connections with one base URL and one token spend one budget: the platform counts calls per
 * channel, not per connection. The limiter keeps them to one pace in process, and through Redis
 * across processes; a pair where one shares through Redis and the other paces alone would let the
 * lone one spend the others' budget, so the pair is refused here, at its YAML path, before any
 * call (the limiter's own check would otherwise stop the run mid-way, exit 3). On API v2 the budget
 * is the organisation's (`organisation`, default the connection's name) at the API's host, whatever
 * the token: two v2 connections of one organisation are held to the same rule.
 */
import { stripUrlAuth } from '../api/strip-url-auth.js';
import type { PathIssue } from './schema-issues.js';

interface ConnectionBudget {
  readonly name: string;
  readonly baseUrl: string;
  readonly redis: string | undefined;
}

/** `tokens`: each connection's token, read from `token` or `tokenFile` (compared, never shown). */
export function sharedBudgetIssues(data: unknown, tokens: Readonly<Record<string, string>>): PathIssue[] {
  const connections = (data as { connections?: unknown } | null)?.connections;
  if (connections === null || typeof connections !== 'object') return [];
  const byBudget = new Map<string, ConnectionBudget>();
  const issues: PathIssue[] = [];
  for (const [name, raw] of Object.entries(connections as Record<string, unknown>)) {
    const connection = (raw ?? {}) as { baseUrl?: unknown; rateLimits?: unknown; api?: unknown; organisation?: unknown };
    const token = tokens[name];
    if (typeof connection.baseUrl !== 'string' || token === undefined || token === '') continue;
    const rateLimits = connection.rateLimits !== null && typeof connection.rateLimits === 'object' ? (connection.rateLimits as { redis?: unknown }) : undefined;
    const redis = typeof rateLimits?.redis === 'string' ? rateLimits.redis : undefined;
    const baseUrl = connection.baseUrl.replace(/\/+$/, '');
    const organisation = connection.api === 'v2' ? (typeof connection.organisation === 'string' ? connection.organisation : name) : undefined;
    const host = organisation === undefined ? undefined : hostOf(baseUrl);
    // The token is a map key only: it never reaches a message.
    const budget = organisation === undefined ? `v1\u0000${baseUrl}\u0000${token}` : `v2\u0000${host ?? baseUrl}\u0000${organisation}`;
    const first = byBudget.get(budget);
    if (first === undefined) {
      byBudget.set(budget, { name, baseUrl, redis });
      continue;
    }
    if (first.redis === redis) continue;
    const shared = (where: string, url: string | undefined): string => (url === undefined ? `${where} paces itself alone` : `${where} shares it through Redis at ${stripUrlAuth(url)}`);
    issues.push({
      path: ['connections', name, ...(redis === undefined && rateLimits === undefined ? [] : ['rateLimits']), ...(redis === undefined ? [] : ['redis'])],
      message:
        `${organisation === undefined ? `calls ${baseUrl} with the same token as` : `is of organisation ${organisation} at ${host ?? baseUrl} (API v2) as is`} connections.${first.name}, so both spend one budget, but ${shared(`connections.${first.name}`, first.redis)} and ${shared('this one', redis)}; ` +
        `give both the same rateLimits.redis (or neither)`,
    });
  }
  return issues;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
