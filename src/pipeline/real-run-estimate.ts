/**
 * A dry run's estimate of the real run of the same file (summary.json `realRunEstimate`,
 * docs/reports.md): the calls the real run would make, by operation, and the time they take at the
 * connection's rate limits. The dry run makes the real run's reads itself (searches, prefetch
 * pages); the writes and sends it decides but withholds are counted here, as the rows and the
 * departed step decide them. `estimateRealRun` is pure (test/pipeline/real-run-estimate.test.ts).
 */
import { API_OPERATIONS, type ApiOperation } from '../api/wire-types.js';
import type { Rate } from '../limits.js';
import type { ContactPlan, Operation } from './row/plan.js';

/** The calls a dry run decided and did not make, by operation. */
export class WithheldCalls {
  readonly byOperation: Record<ApiOperation, number> = Object.fromEntries(API_OPERATIONS.map((operation) => [operation, 0])) as Record<ApiOperation, number>;

  /** Contacts a withheld plan adds a tag they hold in another case only (`ContactPlan.tagsRecased`). */
  recasedContacts = 0;

  /** A row's withheld write plan: its calls, and whether it re-tags the contact in another case. */
  addPlan(plan: Pick<ContactPlan, 'operations' | 'tagsRecased'>): void {
    this.addOperations(plan.operations);
    if (plan.tagsRecased !== undefined) this.recasedContacts++;
  }

  /** A write plan's calls (a row's, or a departed key's). */
  addOperations(operations: readonly Pick<Operation, 'kind'>[]): void {
    for (const operation of operations) this.byOperation[operation.kind]++;
  }

  /** Sends to `recipients` contacts (one call each). */
  addSends(recipients: number): void {
    this.byOperation.sendMessage += recipients;
  }
}

/** summary.json `realRunEstimate`. */
export interface RealRunEstimate {
  /** The calls the real run would make: the dry run's own reads and the writes and sends it withheld. */
  calls: { total: number; byOperation: Record<string, number> };
  /** The calls of each budget, and the time they take at its rate (calls x period / limit). */
  contactsCalls: number;
  messagesCalls: number;
  /** The Contacts API's rate limit the time is reckoned at, in calls per minute. */
  contactsPerMinute: number;
  /** The longer of the two budgets' times: the real run cannot be faster at these limits. */
  durationMs: number;
  /**
   * Contacts the real run adds a tag to that they hold in another case only (`gold` for `Gold`:
   * `tags.case: lower` turned on after a run with `keep`, or the export's case changed); their
   * addTags calls are in `calls`. Absent when none.
   */
  recasedContacts?: number;
}

/** The budget (rate limit) each operation draws from: sends from the Messages API's, the rest from the Contacts API's. */
const MESSAGE_OPERATIONS: ReadonlySet<string> = new Set<string>(['sendMessage']);

/**
 * The real run's calls and time, from the calls the dry run made (`made`, by operation) and those
 * it withheld (`withheld`). N calls paced at `limit` per `periodMs` take N x periodMs / limit.
 */
export function estimateRealRun(
  made: Readonly<Record<string, number>>,
  withheld: Readonly<Record<string, number>>,
  rates: { readonly contacts: Rate; readonly messages: Rate },
  recasedContacts = 0,
): RealRunEstimate {
  const byOperation: Record<string, number> = {};
  for (const operation of new Set([...Object.keys(made), ...Object.keys(withheld)])) {
    byOperation[operation] = (made[operation] ?? 0) + (withheld[operation] ?? 0);
  }
  let contactsCalls = 0;
  let messagesCalls = 0;
  for (const [operation, calls] of Object.entries(byOperation)) {
    if (MESSAGE_OPERATIONS.has(operation)) messagesCalls += calls;
    else contactsCalls += calls;
  }
  const timeAt = (calls: number, rate: Rate): number => (calls * rate.periodMs) / rate.limit;
  return {
    calls: { total: contactsCalls + messagesCalls, byOperation },
    contactsCalls,
    messagesCalls,
    contactsPerMinute: Math.round(((rates.contacts.limit * 60_000) / rates.contacts.periodMs) * 10) / 10,
    durationMs: Math.round(Math.max(timeAt(contactsCalls, rates.contacts), timeAt(messagesCalls, rates.messages))),
    ...(recasedContacts === 0 ? {} : { recasedContacts }),
  };
}
