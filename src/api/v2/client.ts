/**
 * `V2Client`: the platform's Developer API v2 over HTTP (got), behind the same port as v1's
 * `ApiClient` (docs/architecture.md, "Two surfaces"). What it shares with v1: no got retry and no
 * redirect (a redirect would carry the Authorization header elsewhere), the token cut out of every
 * answer, the retry policy by idempotency (retry-policy.ts), the error classes (a `{code, message}`
 * body is mapped like v1's), the circuit breaker and Retry-After pause (connection-health.ts).
 * What is v2's own:
 * - every attempt is scheduled through `EndpointLimits` by its endpoint (method and path template),
 *   and hands it the answer's `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `Retry-After`;
 * - a key in `email` or `phone` is read by one `GET /contact/email:...`, another by a filtered
 *   `POST /contact/list`; lists give 100 contacts a page with a cursor;
 * - a create is one `create_or_update` by the contact's email or phone: retried as an update is;
 * - a send whose answer was lost is settled by reading the contact's messages (send-settlement.ts),
 *   in the same process, and by `findSentMessage` in a later run for a send an earlier one left
 *   "maybe sent" (killed while it was on the wire).
 */
import type { AttachmentType, Rate } from '../../limits.js';
import { DEFAULT_V2_ENDPOINT_RATE, V2_MAX_PAGE_SIZE } from '../../limits.js';
import type { ApiCallStats } from '../call-stats.js';
import { checkPositiveInteger, connectionParts, type ConnectionOptions, type ConnectionParts } from '../connection-options.js';
import type { CallBudget, ContactsApi, ContactsPage, CreateOptions, EarlierLimit, MergeAnswer, SendOptions, SendReceipt, SentMessage } from '../contacts-api.js';
import { parseJsonBody } from '../json-body.js';
import { errorFromResponse, type RequestContext } from '../error-mapping.js';
import { httpExchange, type CallSpec } from '../http-exchange.js';
import {
  ApiError,
  InvalidTokenError,
  NoSuchContactError,
  MalformedResponseError,
  OutcomeUnknownError,
  PageLimitError,
  RateLimitedError,
  RequestInvalidError,
  type ApiErrorContext,
} from '../errors.js';
import { V2_SURFACE } from './surface.js';
import { checkAttachment, checkContactId, checkFields, checkQuickReplies, checkSearch, checkTags, checkTemplate, checkText } from '../request-checks.js';
import { runAttempts } from '../call-attempts.js';
import { type ApiOperation, type Contact, type MessageElement, type WhatsappTemplate, whatsappTemplateElement } from '../wire-types.js';
import type { EndpointAnswer, EndpointLimits, LearntLimit } from './endpoint-limits.js';
import { DEFAULT_SETTLE_SKEW_MS, settledMessageId } from './send-settlement.js';
import { readContactIdAnswer, readCursorPage, readListedMessage, readMessageIdAnswer, type ListedMessage } from './v2-answers.js';
import { idIdentifier, isIdentifierValue, keyIdentifier, readV2Contact, v2ContactBody, v2CreateBy } from './v2-contact-shape.js';

/** The connection's options (`baseUrl` is the API root as the official SDK has it, like `https://api.respond.io/v2`: paths `/contact/...` are appended; `token` a workspace's), and v2's own. */
export interface V2ClientOptions extends ConnectionOptions {
  /** The organisation's budget per endpoint, shared by every client of the organisation. */
  readonly limits: EndpointLimits;
  /** `channelId` of every send: a channel's number, or null for the channel the contact last used. @default null */
  readonly channelId?: number | null;
  /** How far behind ours the platform's clock may be when a lost send is settled, in milliseconds. @default 30000 */
  readonly settleSkewMs?: number;
}

/** The endpoints each of the port's operations paces by, for `pace()` (findSentMessage's list reads are sends' checks, not counted apart). */
const PACED_ENDPOINTS: ReadonlyArray<readonly [endpoint: string, operations: readonly ApiOperation[]]> = [
  ['POST /contact/list', ['searchContacts']],
  ['GET /contact/{identifier}', ['getContact']],
  ['POST /contact/create_or_update/{identifier}', ['createContact']],
  // Deletes (DELETE /contact/{identifier}) and merges (POST /contact/merge) count as updateContact
  // too, each paced by its own endpoint's budget; the estimate reckons them at the update's.
  ['PUT /contact/{identifier}', ['updateContact']],
  ['POST /contact/{identifier}/tag', ['addTags']],
  ['DELETE /contact/{identifier}/tag', ['removeTags']],
  ['POST /contact/{identifier}/message', ['sendMessage']],
];

/** Calls a millisecond a rate allows. */
function perMs(rate: Rate): number {
  return rate.limit / rate.periodMs;
}

/** The endpoints, as their budgets and the emulator's counters name them. */
const ENDPOINT = {
  contact: '/contact/{identifier}',
  createOrUpdate: '/contact/create_or_update/{identifier}',
  list: '/contact/list',
  merge: '/contact/merge',
  tag: '/contact/{identifier}/tag',
  message: '/contact/{identifier}/message',
  messageList: '/contact/{identifier}/message/list',
} as const;

/** A v2 call: the endpoint its budget is learnt for, and what v2 adds to a call's rules. */
interface V2Call<T> extends CallSpec<T> {
  template: (typeof ENDPOINT)[keyof typeof ENDPOINT];
  /** Overrides the operation's idempotency (create_or_update is retry-safe). */
  idempotent?: boolean;
  /** What a 404 means, when it is an answer rather than a failure (a key no contact holds). */
  notFound?: () => T;
  /** What a 404 on a retry means (a delete whose first attempt's answer was lost: deleted then). */
  notFoundOnRetry?: () => T;
}

/** An attempt's outcome: a value, or the error of an answer (returned, so the limits learn from it). */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** The context an error was made with, to make another of it. */
function v2Context(error: ApiError): ApiErrorContext {
  return {
    operation: error.operation,
    ...(error.method === undefined ? {} : { method: error.method }),
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(error.serverMessage === undefined ? {} : { serverMessage: error.serverMessage }),
  };
}

/** A filter of `POST /contact/list` on one field's value. */
function listFilter(field: string, value: string): unknown {
  return { search: '', timezone: 'UTC', filter: { $and: [{ category: 'contactField', field, operator: 'isEqualTo', value }] } };
}

function headerNumber(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/**
 * `X-RateLimit-Reset` in milliseconds from now: seconds until the window frees, or (a number
 * that large is a time) the epoch second it frees at; undefined when absent or past.
 */
function resetHeaderMs(seconds: number | undefined, nowMs: number): number | undefined {
  if (seconds === undefined) return undefined;
  const ms = seconds >= EPOCH_SECONDS_FROM ? seconds * 1000 - nowMs : seconds * 1000;
  return ms > 0 ? ms : undefined;
}

/** An `X-RateLimit-Reset` from this many seconds up is an epoch second (2001-09-09), not a wait. */
const EPOCH_SECONDS_FROM = 1_000_000_000;

/**
 * The `message` of a v2 send for a message element: what the send's body carries and what the
 * contact's message list shows of it (the one place of that shape, for sending and settling).
 */
function v2Message(element: MessageElement): object {
  switch (element.type) {
    case 'text':
      return { type: 'text', text: element.text };
    case 'quick_reply':
      return { type: 'quick_reply', title: element.title, replies: element.replies.map(String) };
    case 'whatsapp_template':
      return element;
    default:
      return { type: 'attachment', attachment: { type: element.type, url: element.url } };
  }
}

/**
 * The cursors of one listing so far: a `pagination.next` that names a cursor already read is a
 * loop, and ends the listing with `MALFORMED_RESPONSE` at once (issue 42: a looping cursor cost a
 * thousand calls, `maxPages`, before the row failed). Holds one cursor a page read.
 */
class CursorTrail {
  readonly #seen = new Set<string>();

  constructor(private readonly where: ApiErrorContext) {}

  /** Records the next page's cursor; throws when the listing has read it already. */
  next(cursor: string): string {
    if (this.#seen.has(cursor)) {
      throw new MalformedResponseError({
        ...this.where,
        problem: `pagination.next names cursorId ${JSON.stringify(cursor.slice(0, 40))} again after ${this.#seen.size + 1} pages: the list loops, so it was not read further; run again later, and tell the platform if it persists`,
      });
    }
    this.#seen.add(cursor);
    return cursor;
  }
}

/** One page of contacts as the port gives it: v2 announces no page count, only whether more follow. */
function contactPage(items: Contact[], page: number, more: boolean): ContactsPage {
  return { items, next: more ? page + 1 : undefined };
}

export class V2Client implements ContactsApi {
  readonly surface = V2_SURFACE;
  readonly stats: ApiCallStats;
  /** The connection: its root, token, timeouts, retry settings, clock and health. */
  readonly #c: ConnectionParts;
  readonly #limits: EndpointLimits;
  readonly #channelId: number | null;
  readonly #settleSkewMs: number;
  #refusedToken: InvalidTokenError | undefined;

  constructor(options: V2ClientOptions) {
    this.#c = connectionParts(options);
    this.stats = this.#c.stats;
    if (typeof options.limits?.schedule !== 'function') throw new TypeError('V2Client option `limits` must be an EndpointLimits (src/api/v2/endpoint-limits.ts)');
    this.#limits = options.limits;
    const channelId = options.channelId ?? null;
    if (channelId !== null) checkPositiveInteger('channelId', channelId, 'a channel number');
    this.#channelId = channelId;
    this.#settleSkewMs = options.settleSkewMs ?? DEFAULT_SETTLE_SKEW_MS;
  }

  /** The limits the organisation's budget learnt so far (for `check`). */
  learntLimits(): LearntLimit[] {
    return this.#limits.learnt();
  }

  /**
   * v2's budgets, one per endpoint the port's operations use: the limit learnt from this run's
   * answers, else the one an earlier run learnt (`earlier`), else the first guess
   * (`DEFAULT_V2_ENDPOINT_RATE`); a lower configured ceiling wins. A search by email or phone reads
   * `GET /contact/{identifier}`, reckoned here at the list's budget (the operation has one).
   */
  pace(earlier: readonly EarlierLimit[] = []): CallBudget[] {
    const learnt = new Map(this.#limits.learnt().map((limit) => [limit.endpoint, { limit: limit.limit, periodMs: limit.windowMs }]));
    const kept = new Map(earlier.map((limit) => [limit.name, limit.rate]));
    return PACED_ENDPOINTS.map(([name, operations]) => {
      const known = learnt.get(name);
      const before = kept.get(name);
      const found: Pick<CallBudget, 'rate' | 'source'> =
        known !== undefined ? { rate: known, source: 'learnt' } : before !== undefined ? { rate: before, source: 'earlier-run' } : { rate: DEFAULT_V2_ENDPOINT_RATE, source: 'first-guess' };
      const ceiling = this.#limits.ceiling?.(name);
      const capped = ceiling !== undefined && perMs(ceiling) < perMs(found.rate) ? { rate: ceiling, source: 'ceiling' as const } : found;
      return { name, operations, ...capped };
    });
  }

  async searchContactsPage(field: string, value: string, page = 1): Promise<ContactsPage> {
    checkSearch(field, value, page);
    if (isIdentifierValue(field, value)) {
      // One contact at most holds an identifier: there is no second page.
      return contactPage(page === 1 ? await this.#findByIdentifier(field, value) : [], page, false);
    }
    let cursor: string | undefined;
    const trail = new CursorTrail({ operation: 'searchContacts', method: 'POST', path: `${this.#c.rootPath}/contact/list` });
    for (let at = 1; ; at += 1) {
      const result = await this.#listPage(field, value, cursor);
      if (at === page || result.nextCursor === undefined) return contactPage(at === page ? result.contacts : [], page, result.nextCursor !== undefined);
      cursor = trail.next(result.nextCursor);
    }
  }

  searchContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    checkSearch(field, value, 1);
    if (isIdentifierValue(field, value)) return this.#direct(field, value);
    return this.#list(field, value);
  }

  listContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    checkSearch(field, value, 1);
    return this.#list(field, value);
  }

  async getContact(id: string): Promise<Contact> {
    checkContactId('getContact', id);
    return this.#call({
      operation: 'getContact',
      method: 'GET',
      template: ENDPOINT.contact,
      path: `/contact/${idIdentifier(id)}`,
      contactId: id,
      read: (body, where) => readV2Contact(parseJsonBody(body, where), where),
    });
  }

  async updateContact(id: string, fields: Record<string, string>): Promise<void> {
    checkContactId('updateContact', id);
    checkFields('updateContact', fields);
    const body = v2ContactBody(fields);
    // Only an empty firstName, which v2 cannot clear: nothing to send.
    if (Object.keys(body).length === 0) return;
    await this.#call({
      operation: 'updateContact',
      method: 'PUT',
      template: ENDPOINT.contact,
      path: `/contact/${idIdentifier(id)}`,
      contactId: id,
      body,
      read: (text, where) => void readContactIdAnswer(text, where),
    });
  }

  /**
   * `DELETE /contact/{identifier}`: paced by its endpoint's budget, counted as the port's
   * `updateContact` operation (a write of the contact; summary.json's `byEndpoint` names it apart).
   * Idempotent: retried as an update is, and a 404 on a retry means the lost first attempt deleted it.
   */
  async deleteContact(id: string): Promise<void> {
    checkContactId('updateContact', id);
    await this.#call({
      operation: 'updateContact',
      method: 'DELETE',
      template: ENDPOINT.contact,
      path: `/contact/${idIdentifier(id)}`,
      contactId: id,
      notFoundOnRetry: () => undefined,
      read: (text, where) => void readContactIdAnswer(text, where),
    });
  }

  /**
   * `POST /contact/merge` of two contacts, holding `fields` (validated as an update's), answering
   * the survivor the platform names (which one survives its material does not say: never assumed).
   * Counted as `updateContact`, never retried after it may have taken effect (`idempotent: false`):
   * a lost answer is settled by reading both ids back: one gone and one left is the merge done (the
   * one left survived); both left is no merge, sent once more (counted as a retry); after a second
   * lost answer, or any other sight, the outcome stays unknown.
   */
  async mergeContacts(ids: readonly [string, string], fields: Record<string, string>): Promise<MergeAnswer> {
    const [first, second] = ids;
    checkContactId('updateContact', first);
    checkContactId('updateContact', second);
    // A merge may name no field (the contacts merged as they are).
    if (Object.keys(fields).length > 0) checkFields('updateContact', fields);
    const numeric = ids.map((id) => Number(id));
    if (!numeric.every((id) => Number.isSafeInteger(id) && id > 0) || first === second) {
      throw new RequestInvalidError({ operation: 'updateContact', problem: `a merge takes two different numeric contact ids, got ${JSON.stringify(ids)}` });
    }
    const call: V2Call<string> = {
      operation: 'updateContact',
      method: 'POST',
      template: ENDPOINT.merge,
      path: '/contact/merge',
      body: { contactIds: numeric, ...v2ContactBody(fields) },
      idempotent: false,
      read: readContactIdAnswer,
    };
    for (let send = 1; ; send += 1) {
      try {
        const survivorId = await this.#call(send > 1 ? { ...call, repeat: true } : call);
        if (survivorId !== first && survivorId !== second) {
          throw new MalformedResponseError({ operation: 'updateContact', method: 'POST', path: `${this.#c.rootPath}/contact/merge`, problem: `the merge answered contactId ${survivorId}, neither of the two merged (${first}, ${second})` });
        }
        return { survivorId, settledByRead: send > 1 };
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        const left = await this.#stillThere(ids).catch(() => undefined);
        this.#c.logger.info({ operation: 'updateContact', merge: ids, left, send }, 'lost merge answer settled by reading both contacts back');
        if (left?.length === 1) return { survivorId: left[0]!, settledByRead: true };
        if (left?.length !== 2 || send >= 2) throw error;
      }
    }
  }

  /** Which of `ids` exist now (one read each; a 404 is a contact gone). */
  async #stillThere(ids: readonly string[]): Promise<string[]> {
    const left: string[] = [];
    for (const id of ids) {
      try {
        await this.getContact(id);
        left.push(id);
      } catch (error) {
        if (!(error instanceof NoSuchContactError)) throw error;
      }
    }
    return left;
  }

  async addTags(id: string, tags: readonly string[]): Promise<void> {
    await this.#tags('addTags', 'POST', id, tags);
  }

  async removeTags(id: string, tags: readonly string[]): Promise<void> {
    await this.#tags('removeTags', 'DELETE', id, tags);
  }

  /**
   * One `create_or_update` by the contact's email, else its phone. A contact v2 cannot create
   * (neither a well-formed email nor a phone, or no firstName) fails before any call with
   * `V2_CANNOT_CREATE`.
   */
  async createContact(fields: Record<string, string>, options?: CreateOptions): Promise<{ id: string }> {
    checkFields('createContact', fields);
    const creatable = v2CreateBy(fields);
    if (!creatable.ok) throw creatable.error;
    const { by } = creatable;
    const id = await this.#call({
      operation: 'createContact',
      method: 'POST',
      template: ENDPOINT.createOrUpdate,
      path: `/contact/create_or_update/${keyIdentifier(by, fields[by] ?? '')}`,
      body: v2ContactBody(fields),
      idempotent: true,
      ...(options?.repeat === true ? { repeat: true } : {}),
      read: readContactIdAnswer,
    });
    return { id };
  }

  async sendText(id: string, text: string, options?: SendOptions): Promise<SendReceipt> {
    checkContactId('sendMessage', id);
    checkText(text);
    return this.#send(id, v2Message({ type: 'text', text }), options);
  }

  async sendAttachment(id: string, type: AttachmentType, url: string, options?: SendOptions): Promise<SendReceipt> {
    checkContactId('sendMessage', id);
    checkAttachment(type, url);
    return this.#send(id, v2Message({ type, url }), options);
  }

  async sendQuickReplies(id: string, title: string, replies: readonly string[], options?: SendOptions): Promise<SendReceipt> {
    checkContactId('sendMessage', id);
    checkQuickReplies(title, replies);
    return this.#send(id, v2Message({ type: 'quick_reply', title, replies: [...replies] }), options);
  }

  async sendTemplate(id: string, template: WhatsappTemplate, options?: SendOptions): Promise<SendReceipt> {
    checkContactId('sendMessage', id);
    checkTemplate(template);
    return this.#send(id, v2Message(whatsappTemplateElement(template)), options);
  }

  /**
   * The send of `message` to contact `id` that left at `sinceMs` or later, as the contact's message
   * list shows it (the same rule as a lost answer in this process: send-settlement.ts); undefined
   * when the list shows none. Reads every page of the list (counted as `getContact`).
   */
  async findSentMessage(id: string, message: MessageElement, sinceMs: number): Promise<SentMessage | undefined> {
    checkContactId('getContact', id);
    const messageId = settledMessageId(await this.#messagesOf(id), v2Message(message), sinceMs, this.#settleSkewMs);
    this.#c.logger.info({ operation: 'getContact', contactId: id, settled: messageId === undefined ? 'not sent' : 'sent', messageId }, 'an earlier run\'s maybe-sent message settled by the message list');
    return messageId === undefined ? undefined : { messageId };
  }

  async #tags(operation: 'addTags' | 'removeTags', method: 'POST' | 'DELETE', id: string, tags: readonly string[]): Promise<void> {
    checkContactId(operation, id);
    checkTags(operation, tags);
    await this.#call({
      operation,
      method,
      template: ENDPOINT.tag,
      path: `/contact/${idIdentifier(id)}/tag`,
      contactId: id,
      body: tags.map(String),
      read: (text, where) => void readContactIdAnswer(text, where),
    });
  }

  async #findByIdentifier(field: 'email' | 'phone', value: string): Promise<Contact[]> {
    return this.#call({
      operation: 'searchContacts',
      method: 'GET',
      template: ENDPOINT.contact,
      path: `/contact/${keyIdentifier(field, value)}`,
      notFound: () => [],
      read: (body, where) => [readV2Contact(parseJsonBody(body, where), where)],
    });
  }

  async *#direct(field: 'email' | 'phone', value: string): AsyncGenerator<Contact[], void, undefined> {
    yield await this.#findByIdentifier(field, value);
  }

  async #listPage(field: string, value: string, cursor: string | undefined): Promise<{ contacts: Contact[]; nextCursor: string | undefined }> {
    return this.#call({
      operation: 'searchContacts',
      method: 'POST',
      template: ENDPOINT.list,
      path: '/contact/list',
      query: [['limit', String(V2_MAX_PAGE_SIZE)], ...(cursor === undefined ? [] : [['cursorId', cursor] as const])],
      body: listFilter(field, value),
      read: (body, where) => {
        const page = readCursorPage(body, where);
        return { contacts: page.items.map((item, index) => readV2Contact(item, where, `items[${index}]`)), nextCursor: page.nextCursor };
      },
    });
  }

  /** Every page of a filtered list, one yield per request, at most `maxPages` (a list has no total to bound it by). */
  async *#list(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    let cursor: string | undefined;
    const trail = new CursorTrail({ operation: 'searchContacts', method: 'POST', path: `${this.#c.rootPath}/contact/list` });
    for (let page = 1; page <= this.#c.maxPages; page += 1) {
      const result = await this.#listPage(field, value, cursor);
      yield result.contacts;
      if (result.nextCursor === undefined || result.contacts.length === 0) return;
      cursor = trail.next(result.nextCursor);
    }
    throw new PageLimitError({ operation: 'searchContacts', maxPages: this.#c.maxPages, lastPage: this.#c.maxPages + 1 });
  }

  /**
   * A send, exactly once: when its answer is lost after it left, the contact's messages say
   * whether it went out; if they do not show it, it is sent once more. Only when the messages
   * cannot be read, or the second send's answer is lost too and the list does not show it, does
   * the send end as an unknown outcome.
   */
  async #send(id: string, message: object, options: SendOptions | undefined): Promise<SendReceipt> {
    let leftAt = this.#c.now();
    const call: V2Call<string> = {
      operation: 'sendMessage',
      method: 'POST',
      template: ENDPOINT.message,
      path: `/contact/${idIdentifier(id)}/message`,
      contactId: id,
      body: { channelId: this.#channelId, message },
      onLeave: () => {
        leftAt = this.#c.now();
        options?.onLeave?.();
      },
      read: readMessageIdAnswer,
    };
    for (let send = 1; ; send += 1) {
      try {
        // The second send repeats the first, whose answer was lost: counted as a retry.
        const messageId = await this.#call(send > 1 ? { ...call, repeat: true } : call);
        this.#c.logger.debug({ operation: 'sendMessage', contactId: id, messageId }, 'message sent');
        return { messageId };
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        const listed = await this.#messagesOf(id).catch((readError: unknown) => {
          this.#c.logger.info({ operation: 'sendMessage', contactId: id, code: readError instanceof ApiError ? readError.code : 'UNKNOWN' }, 'lost send not settled: the message list could not be read');
          return undefined;
        });
        if (listed === undefined) throw error;
        const messageId = settledMessageId(listed, message, leftAt, this.#settleSkewMs);
        this.#c.logger.info({ operation: 'sendMessage', contactId: id, settled: messageId === undefined ? 'not sent' : 'sent', messageId, send }, 'lost send settled by the message list');
        if (messageId !== undefined) return { messageId };
        if (send >= 2) throw error;
      }
    }
  }

  /** The contact's messages, oldest first, every page (counted as reads: `getContact`). */
  async #messagesOf(id: string): Promise<ListedMessage[]> {
    const listed: ListedMessage[] = [];
    let cursor: string | undefined;
    const trail = new CursorTrail({ operation: 'getContact', method: 'GET', path: `${this.#c.rootPath}/contact/${idIdentifier(id)}/message/list` });
    for (let page = 1; page <= this.#c.maxPages; page += 1) {
      const result = await this.#call({
        operation: 'getContact',
        method: 'GET',
        template: ENDPOINT.messageList,
        path: `/contact/${idIdentifier(id)}/message/list`,
        query: [['limit', String(V2_MAX_PAGE_SIZE)], ...(cursor === undefined ? [] : [['cursorId', cursor] as const])],
        contactId: id,
        read: (body, where) => {
          const read = readCursorPage(body, where);
          return { items: read.items.map((item, index) => readListedMessage(item, where, `items[${index}]`)), nextCursor: read.nextCursor };
        },
      });
      listed.push(...result.items);
      if (result.nextCursor === undefined) return listed;
      cursor = trail.next(result.nextCursor);
    }
    throw new PageLimitError({ operation: 'getContact', maxPages: this.#c.maxPages, lastPage: this.#c.maxPages + 1 });
  }

  /** One call (call-attempts.ts): each attempt through the organisation's budget of its endpoint. */
  async #call<T>(spec: V2Call<T>): Promise<T> {
    const endpoint = `${spec.method} ${spec.template}`;
    return runAttempts(this.#c, {
      operation: spec.operation,
      ...(spec.idempotent === undefined ? {} : { idempotent: spec.idempotent }),
      ...(spec.onLeave === undefined ? {} : { onLeave: spec.onLeave }),
      refusedToken: () => this.#refusedToken,
      schedule: async (attempt, prelude) => {
        // An answer's error comes back as an outcome, so the limits learn from it; no answer (a
        // timeout, a reset) throws, with nothing for the limits to learn.
        const outcome = await this.#limits.schedule(endpoint, async () => {
          await prelude();
          return this.#attempt(spec, attempt);
        });
        if (outcome.ok) return outcome.value;
        throw outcome.error;
      },
      // The calls queued behind a refused token end with its 401, as the health learnt it once.
      endsCall: (error) => error === this.#refusedToken,
    });
  }

  /** One request. An answer comes back as an outcome with what it said of the limits; no answer throws. */
  async #attempt<T>(spec: V2Call<T>, attempt: number): Promise<{ value: Outcome<T>; answer: EndpointAnswer }> {
    // A refused workspace token stays refused: the calls queued behind that answer are not sent.
    if (this.#refusedToken !== undefined) return { value: { ok: false, error: this.#refusedToken }, answer: { status: 401 } };
    const path = `${this.#c.rootPath}${spec.path}`;
    const request: RequestContext = { operation: spec.operation, method: spec.method, path };
    if (spec.contactId !== undefined) request.contactId = spec.contactId;
    const query = spec.query?.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
    const url = `${this.#c.root}${spec.path}${query ? `?${query}` : ''}`;
    this.stats.recordRequest(spec.operation, attempt > 1 || spec.repeat === true, `${spec.method} ${spec.template}`);
    const response = await httpExchange({
      url,
      method: spec.method,
      token: this.#c.token,
      ...(spec.body === undefined ? {} : { body: spec.body }),
      timeoutMs: this.#c.timeoutMs,
      request,
      logger: this.#c.logger,
      logged: { operation: spec.operation, method: spec.method, path, attempt },
      redact: this.#c.redact,
    });
    const { status, body } = response;
    const limit = headerNumber(response.headers['x-ratelimit-limit']);
    const remaining = headerNumber(response.headers['x-ratelimit-remaining']);
    const resetMs = resetHeaderMs(headerNumber(response.headers['x-ratelimit-reset']), this.#c.now());
    const where: ApiErrorContext = { operation: spec.operation, method: spec.method, path, status };
    const error = status >= 200 && status < 300 ? undefined : this.#answerError(request, status, body, response.headers, url);
    const answer: EndpointAnswer = {
      status,
      ...(limit === undefined ? {} : { limit }),
      ...(remaining === undefined ? {} : { remaining }),
      ...(resetMs === undefined ? {} : { resetMs }),
      // A longer wait than the connection takes stops it (connection-health.ts): no pause of the
      // endpoint then, or the calls queued behind this answer would sleep it before they fail.
      ...(error instanceof RateLimitedError && error.retryAfterMs !== undefined && error.retryAfterMs <= this.#c.retry.maxRetryAfterMs ? { retryAfterMs: error.retryAfterMs } : {}),
    };
    const notFound = spec.notFound ?? (attempt > 1 ? spec.notFoundOnRetry : undefined);
    if (status === 404 && notFound !== undefined) {
      this.#c.health.answered();
      return { value: { ok: true, value: notFound() }, answer };
    }
    if (error !== undefined) return { value: { ok: false, error }, answer };
    try {
      const value = spec.read(body, where);
      this.#c.health.answered();
      return { value: { ok: true, value }, answer };
    } catch (readError) {
      if (readError instanceof ApiError) return { value: { ok: false, error: readError }, answer };
      throw readError;
    }
  }

  /** The error of a non-2xx answer: v1's mapping, with v2's 400 (a value the platform refuses) as `REQUEST_INVALID`. */
  #answerError(request: RequestContext, status: number, body: string, headers: Readonly<Record<string, string | string[] | undefined>>, url: string): ApiError {
    const mapped = errorFromResponse(request, { status, body, headers, url }, this.#c.now());
    if (status === 429) this.stats.recordRateLimited(request.operation);
    const error = mapped instanceof InvalidTokenError ? new InvalidTokenError({ ...v2Context(mapped), tokenKind: 'workspace' }) : mapped;
    if (error instanceof InvalidTokenError) this.#refusedToken = error;
    if (status === 400) {
      const said = error.serverMessage === undefined ? '' : `: "${error.serverMessage}"`;
      return new RequestInvalidError({ ...v2Context(error), status, problem: `HTTP 400: the platform refused the request${said}` });
    }
    return error;
  }
}
