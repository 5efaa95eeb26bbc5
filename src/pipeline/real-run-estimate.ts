/**
 * A dry run's estimate of the real run of the same file (summary.json `realRunEstimate`,
 * docs/reports.md): the calls the real run would make, by operation, and the time they take at the
 * pace the platform port states (`ContactsApi.pace`: v1's configured rates, v2's learnt limits,
 * an earlier run's kept in the state store, or the first guess). The dry run makes the real run's
 * reads itself (searches, prefetch pages); the writes and sends it decides but withholds are
 * counted here, as the rows and the departed step decide them. `estimateRealRun` and `pacedMs`
 * are pure (test/pipeline/real-run-estimate.test.ts).
 */
import type { CallBudget } from '../api/contacts-api.js';
import { API_OPERATIONS, type ApiOperation } from '../api/wire-types.js';
import type { Rate } from '../limits.js';
import { countedAs, type ContactPlan, type Operation } from './row/plan.js';

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
    for (const operation of operations) this.byOperation[countedAs(operation.kind)]++;
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
  /** The slowest budget the contact calls use (any, without calls), in calls per minute (v1: the Contacts API's rate). */
  contactsPerMinute: number;
  /** The longest of the budgets' times: the real run cannot be faster at these limits. */
  durationMs: number;
  /** Each budget the time is reckoned at (summary.json `limits`' form), with its calls. */
  limits: Array<PaceLimit & { calls: number }>;
  /**
   * Contacts the real run adds a tag to that they hold in another case only (`gold` for `Gold`:
   * `tags.case: lower` turned on after a run with `keep`, or the export's case changed); their
   * addTags calls are in `calls`. Absent when none.
   */
  recasedContacts?: number;
}

/** Sends are counted apart from the contact calls (`messagesCalls`). */
const MESSAGE_OPERATIONS: ReadonlySet<string> = new Set<string>(['sendMessage']);

/** One budget as summary.json names it (`limits`, docs/reports.md): its name, operations, calls a minute and where that came from. */
export interface PaceLimit {
  budget: string;
  operations: string[];
  perMinute: number;
  source: CallBudget['source'];
}

/** Calls a minute, to one decimal. */
function perMinute(rate: Rate): number {
  return Math.round(((rate.limit * 60_000) / rate.periodMs) * 10) / 10;
}

/** The budgets as summary.json lists them (`limits`). */
export function paceLimits(budgets: readonly CallBudget[]): PaceLimit[] {
  return budgets.map((budget) => ({ budget: budget.name, operations: [...budget.operations], perMinute: perMinute(budget.rate), source: budget.source }));
}

/**
 * The least time `calls` (by operation) take at `budgets`: each budget's calls x period / limit,
 * the longest of them (budgets pace apart). An operation no budget names is reckoned at the
 * slowest budget, never left out.
 */
export function pacedMs(calls: Readonly<Record<string, number>>, budgets: readonly CallBudget[]): number {
  const slowest = slowestBudget(budgets);
  if (slowest === undefined) return 0;
  const perBudget = new Map<CallBudget, number>();
  for (const [operation, count] of Object.entries(calls)) {
    const budget = budgets.find((each) => each.operations.includes(operation as ApiOperation)) ?? slowest;
    perBudget.set(budget, (perBudget.get(budget) ?? 0) + count);
  }
  return Math.max(0, ...[...perBudget].map(([budget, count]) => (count * budget.rate.periodMs) / budget.rate.limit));
}

/**
 * The pace a mix of calls goes at: as many calls as `calls` holds, in the time they take at
 * `budgets` (`pacedMs`), as one rate; before any call, the slowest budget of the contact calls.
 * The ETA reckons the calls left at it (`cli/eta.ts`).
 */
export function mixRate(calls: Readonly<Record<string, number>>, budgets: readonly CallBudget[]): Rate | undefined {
  const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
  const ms = pacedMs(calls, budgets);
  if (total > 0 && ms > 0) return { limit: total, periodMs: ms };
  return slowestBudget(budgets.filter((budget) => budget.operations.some((operation) => !MESSAGE_OPERATIONS.has(operation))))?.rate;
}

/**
 * The milliseconds between two contact calls at the slowest budget of the contact calls: what
 * `--max-duration` reckons a row's calls at (`row/row-calls.ts`), on the side of stopping early. 0 with
 * no budget (nothing paces the calls).
 */
export function contactSpacingMs(budgets: readonly CallBudget[]): number {
  const slowest = slowestBudget(budgets.filter((budget) => budget.operations.some((operation) => !MESSAGE_OPERATIONS.has(operation))));
  return slowest === undefined ? 0 : slowest.rate.periodMs / slowest.rate.limit;
}

function slowestBudget(budgets: readonly CallBudget[]): CallBudget | undefined {
  return budgets.reduce<CallBudget | undefined>((slow, budget) => (slow === undefined || budget.rate.limit / budget.rate.periodMs < slow.rate.limit / slow.rate.periodMs ? budget : slow), undefined);
}

/**
 * The real run's calls and time, from the calls the dry run made (`made`, by operation) and those
 * it withheld (`withheld`), at the port's budgets (`ContactsApi.pace`). N calls paced at `limit`
 * per `periodMs` take N x periodMs / limit.
 */
export function estimateRealRun(
  made: Readonly<Record<string, number>>,
  withheld: Readonly<Record<string, number>>,
  budgets: readonly CallBudget[],
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
  const contactBudgets = budgets.filter((budget) => budget.operations.some((operation) => !MESSAGE_OPERATIONS.has(operation)));
  // The slowest of the budgets the calls use (a v2 endpoint the run never calls paces nothing).
  const used = contactBudgets.filter((budget) => budget.operations.some((operation) => (byOperation[operation] ?? 0) > 0));
  const slowest = slowestBudget(used.length > 0 ? used : contactBudgets);
  return {
    calls: { total: contactsCalls + messagesCalls, byOperation },
    contactsCalls,
    messagesCalls,
    contactsPerMinute: slowest === undefined ? 0 : perMinute(slowest.rate),
    durationMs: Math.round(pacedMs(byOperation, budgets)),
    limits: paceLimits(budgets).map((limit) => ({ ...limit, calls: limit.operations.reduce((sum, operation) => sum + (byOperation[operation] ?? 0), 0) })),
    ...(recasedContacts === 0 ? {} : { recasedContacts }),
  };
}
