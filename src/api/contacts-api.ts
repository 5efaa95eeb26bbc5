/**
 * The platform port: what the pipeline needs of the platform, one method per operation, whichever
 * surface answers. `ApiClient` (v1/client.ts) implements it over v1's HTTP, `V2Client` (v2/client.ts)
 * over v2's; the pipeline depends only on this interface and plans with its `surface`
 * (platform-surface.ts).
 */
import type { AttachmentType, Rate } from '../limits.js';
import type { ApiOperation, Contact, MessageElement, WhatsappTemplate } from './wire-types.js';
import type { PlatformSurface } from './platform-surface.js';

/**
 * One page of a search, as the port gives it whichever surface answers: its contacts and the next
 * page, if any. Neither surface's wire: not v1's `links`/`meta`, not v2's `cursorId`.
 */
export interface ContactsPage {
  readonly items: Contact[];
  /** The number of the next page (1-based) when the surface says more follow; undefined on the last. */
  readonly next: number | undefined;
  /** How many pages the surface announces the search has, where it announces them (v1); v2 announces none. */
  readonly pages?: number;
}

export interface SendOptions {
  /** Cancel an active survey of the contact. @default false */
  forceCancelSurvey?: boolean;
  /**
   * Called each time the limiter releases the send, just before the request leaves (once per
   * attempt): where the message journal marks it "maybe sent" (docs/reliability.md, "Messages").
   * A throw stops the send before it leaves.
   */
  onLeave?: () => void;
}

/**
 * What a send may answer: v2 gives the platform's `messageId` of the message; v1 gives nothing
 * (its sends resolve to undefined).
 */
export interface SendReceipt {
  readonly messageId?: string;
}

/** What a merge answers: the contact that survived it, read back from the platform's answer. */
export interface MergeAnswer {
  readonly survivorId: string;
  /** The merge's answer was lost and the two ids read back settled it (false: answered). */
  readonly settledByRead: boolean;
}

/** A message the platform shows was sent to a contact: its `messageId` (API v2). */
export interface SentMessage {
  readonly messageId: string;
}

export interface CreateOptions {
  /**
   * This create repeats one whose answer was lost and whose contact a search then did not find:
   * its request is counted as a retry (summary.json `retries`, issue 41). @default false
   */
  readonly repeat?: boolean;
}

/** Counts per operation, for reports and benchmarks. Retries and 429s are counted apart. */
export interface OperationCount {
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Requests that were retries of an earlier one. */
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
}

export interface CallStats {
  byOperation: Record<ApiOperation, OperationCount>;
  /** Sum of `requests` over every operation. */
  total(): number;
  /** Requests started in each whole minute from the first request on, when kept. */
  callsPerMinute?(): number[];
  /** Requests by the surface's own name of the call (API v2: its endpoint), when it names them so. */
  byEndpoint?(): Record<string, number>;
}

/**
 * One budget the adapter paces its calls by, as it knows it now: v1's API groups at the
 * connection's rates, v2's endpoints at their learnt limits (docs/reports.md, summary.json `limits`).
 */
export interface CallBudget {
  /** v1: the API group (`contacts`, `messages`); v2: the endpoint (`POST /contact/list`). */
  readonly name: string;
  /** The port's operations whose calls it paces (each operation in one budget). */
  readonly operations: readonly ApiOperation[];
  readonly rate: Rate;
  /**
   * Where the rate comes from: `configured` (the connection's `rateLimits`), `learnt` (an answer of
   * this run), `earlier-run` (a limit an earlier run learnt, kept in the state store), `ceiling` (the
   * connection's `rateLimits` where it is lower than what is learnt), `first-guess` (nothing learnt
   * yet: `DEFAULT_V2_ENDPOINT_RATE`, the slowest v2 is said to allow).
   */
  readonly source: 'configured' | 'learnt' | 'earlier-run' | 'ceiling' | 'first-guess';
}

/** A limit an earlier run learnt, kept in the job's state store: its budget's name and rate. */
export interface EarlierLimit {
  readonly name: string;
  readonly rate: Rate;
}

export interface ContactsApi {
  /** What one call of this surface finds and what an operation costs: what the planner reads. */
  readonly surface: PlatformSurface;
  /**
   * The budgets the adapter's calls go at, as it knows them now: what estimates, the ETA and the
   * run report reckon time by. `earlier`: limits an earlier run learnt (the state store's), taken
   * where this run has learnt none yet; v1 has none to learn.
   */
  pace(earlier?: readonly EarlierLimit[]): CallBudget[];
  /** Operation 1, one page (1-based). */
  searchContactsPage(field: string, value: string, page?: number): Promise<ContactsPage>;
  /**
   * Operation 1, every page, built from the base URL (never from `links`), capped. Yields once per
   * request made, so a search with no match yields one empty list.
   */
  searchContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined>;
  /**
   * Operation 1, every page, for a marker field many contacts share (`match.prefetch`, reconcile):
   * as `searchContacts`, but bounded by the pages the first page announces (twice them, plus 10:
   * `listPageCap`), not by `maxPages`, which caps one key's search.
   */
  listContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined>;
  /** Operation 2. */
  getContact(id: string): Promise<Contact>;
  /** Operation 3; only the named fields change. At most 30. Returns nothing: never trust the id of the answer. */
  updateContact(id: string, fields: Record<string, string>): Promise<void>;
  /** Operation 4. At most 10 tags. */
  addTags(id: string, tags: readonly string[]): Promise<void>;
  /** Operation 5. At most 10 tags. */
  removeTags(id: string, tags: readonly string[]): Promise<void>;
  /** Operation 6. At most 30 fields. Throws `OutcomeUnknownError` when it may have been created. */
  createContact(fields: Record<string, string>, options?: CreateOptions): Promise<{ id: string }>;
  /** Operation 7. Throws `OutcomeUnknownError` when it may have been delivered. */
  sendText(id: string, text: string, options?: SendOptions): Promise<void | SendReceipt>;
  /** Operation 8. */
  sendAttachment(id: string, type: AttachmentType, url: string, options?: SendOptions): Promise<void | SendReceipt>;
  /** Operation 9. At most 10 replies of at most 20 characters. */
  sendQuickReplies(id: string, title: string, replies: readonly string[], options?: SendOptions): Promise<void | SendReceipt>;
  /**
   * A WhatsApp message template (the element's layout is `whatsappTemplateElement`), the only
   * message that may start a conversation on a WhatsApp channel. Answered 201 with
   * `{status: "success", data: {...}}` on a reseller's page: any 2xx with a success status is sent.
   */
  sendTemplate(id: string, template: WhatsappTemplate, options?: SendOptions): Promise<void | SendReceipt>;
  /**
   * The message `message` sent to contact `id` no earlier than `sinceMs` (ms since the epoch, less
   * the platform's clock skew), read from the contact's message list; undefined when the list
   * shows none. Present only on a surface whose `sendsReadable` is true (v2's `V2Client`); v1's
   * `ApiClient` has none, so no adapter implements it by throwing. It settles a send an earlier
   * run left "maybe sent" (docs/reliability.md, "Messages exactly once on v2").
   */
  findSentMessage?(id: string, message: MessageElement, sinceMs: number): Promise<SentMessage | undefined>;
  /**
   * Deletes contact `id` (v2's `DELETE /contact/{identifier}`). Present only on a surface whose
   * `deletes` is true; v1 has none. Idempotent: a 404 on a retry after a lost answer means the
   * first attempt deleted it; a 404 on the first attempt is `NoSuchContactError` (gone already).
   */
  deleteContact?(id: string): Promise<void>;
  /**
   * Merges two contacts into one holding `fields` (v2's `POST /contact/merge`), answering the
   * survivor's id as the platform gives it (never assumed to be either of `ids`). Present only on
   * a surface whose `merges` is true. Not idempotent: a lost answer is settled by reading both ids
   * back (the one that still exists survived) before the merge is sent again, never blindly.
   */
  mergeContacts?(ids: readonly [string, string], fields: Record<string, string>): Promise<MergeAnswer>;
  /** Calls made through this client so far. */
  readonly stats: CallStats;
}
