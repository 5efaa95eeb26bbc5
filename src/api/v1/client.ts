/**
 * `ApiClient`: the Contacts and Messaging API v1 over HTTP (got), one method per operation of the
 * spec. Every request goes through the limiter of its API group, every retry too; the retry policy
 * (retry-policy.ts) follows the idempotency table of docs/architecture.md. got's own retry and redirect
 * following are off: the first would resend creates and sends, the second would carry the
 * Authorization header to whatever origin a redirect names.
 */
import type Bottleneck from 'bottleneck';
import { DEFAULT_CONTACTS_RATE, DEFAULT_MESSAGES_RATE, type AttachmentType, type ApiGroup, type Rate } from '../../limits.js';
import type { ApiCallStats } from '../call-stats.js';
import { connectionParts, optionError, type ConnectionOptions, type ConnectionParts } from '../connection-options.js';
import type { CallBudget, ContactsApi, ContactsPage, CreateOptions, SendOptions } from '../contacts-api.js';
import { V1_SURFACE } from './surface.js';
import { parseJsonBody } from '../json-body.js';
import {
  readContactEnvelope,
  readContactPage,
  readIdEnvelope,
  readSendAnswer,
  readSuccessEnvelope,
} from './envelopes.js';
import { errorFromResponse, type RequestContext } from '../error-mapping.js';
import { httpExchange, type CallSpec } from '../http-exchange.js';
import { InvalidTokenError } from '../errors.js';
import { runAttempts } from '../call-attempts.js';
import { limiterFailure } from '../limiter.js';
import { runInSlot } from '../limiter-slots.js';
import { paginateContacts, paginateList } from './pagination.js';
import {
  checkAttachment,
  checkContactId,
  checkFields,
  checkQuickReplies,
  checkSearch,
  checkTags,
  checkTemplate,
  checkText,
} from '../request-checks.js';
import {
  API_OPERATIONS,
  encodeViberId,
  VIBER_ENCODED_ID_OPERATIONS,
  type ApiOperation,
  type ChannelType,
  type Contact,
  type ContactPage,
  type CustomFieldAssignment,
  type MessageElement,
  type SendMessageRequest,
  type WhatsappTemplate,
  whatsappTemplateElement,
} from '../wire-types.js';

/** The limiters requests are scheduled through, one per API group (see `LimiterRegistry`). */
export interface ApiLimiters {
  readonly contacts: Bottleneck;
  readonly messages: Bottleneck;
}

/** The connection's options (`baseUrl` is the API root, like `https://app.example.com/api`: request paths `/v1/...` are appended; `token` a channel's), and v1's own. */
export interface ApiClientOptions extends ConnectionOptions {
  /** On `viber`, the contact id of the operations in `VIBER_ENCODED_ID_OPERATIONS` is Base64-encoded. @default 'generic' */
  readonly channelType?: ChannelType;
  /** The Bottleneck limiters to schedule through, shared by every client of the same token. */
  readonly limiters: ApiLimiters;
  /** The rates `limiters` were made with, for `pace()`. @default the spec's (100/min, 25/s) */
  readonly rates?: { readonly contacts: Rate; readonly messages: Rate };
}

/** A v1 call: the limiter of its API group, and the attachment type its errors name. */
interface V1Call<T> extends CallSpec<T> {
  group: ApiGroup;
  attachmentType?: AttachmentType;
}

function isLimiter(value: unknown): value is Bottleneck {
  return typeof value === 'object' && value !== null && typeof (value as { schedule?: unknown }).schedule === 'function';
}

export class ApiClient implements ContactsApi {
  readonly surface = V1_SURFACE;
  readonly stats: ApiCallStats;
  /** The connection: its root, token, timeouts, retry settings, clock and health. */
  readonly #c: ConnectionParts;
  readonly #channelType: ChannelType;
  readonly #limiters: ApiLimiters;
  readonly #rates: { readonly contacts: Rate; readonly messages: Rate };
  /** The 401 that refused this client's token, once one came. */
  #refusedToken: InvalidTokenError | undefined;

  constructor(options: ApiClientOptions) {
    this.#c = connectionParts(options);
    this.stats = this.#c.stats;
    const channelType = options.channelType ?? 'generic';
    if (channelType !== 'generic' && channelType !== 'viber') {
      throw optionError('channelType', '"generic" or "viber"', channelType);
    }
    this.#channelType = channelType;
    if (!isLimiter(options.limiters?.contacts)) throw optionError('limiters.contacts', 'a Bottleneck limiter', options.limiters?.contacts);
    if (!isLimiter(options.limiters.messages)) throw optionError('limiters.messages', 'a Bottleneck limiter', options.limiters.messages);
    this.#limiters = options.limiters;
    this.#rates = options.rates ?? { contacts: DEFAULT_CONTACTS_RATE, messages: DEFAULT_MESSAGES_RATE };
  }

  /** v1's two budgets at the connection's rates: sends on the Messages API's, the rest on the Contacts API's. */
  pace(): CallBudget[] {
    return [
      { name: 'contacts', operations: API_OPERATIONS.filter((operation) => operation !== 'sendMessage'), rate: this.#rates.contacts, source: 'configured' },
      { name: 'messages', operations: ['sendMessage'], rate: this.#rates.messages, source: 'configured' },
    ];
  }

  async searchContactsPage(field: string, value: string, page = 1): Promise<ContactsPage> {
    checkSearch(field, value, page);
    const answer = await this.#searchPage(field, value, page);
    const { current_page: current, last_page: pages } = answer.meta;
    return { items: answer.data, next: current < pages ? current + 1 : undefined, pages };
  }

  /** One page of operation 1 as v1's wire has it (`links`, `meta`), for its paginators. */
  async #searchPage(field: string, value: string, page: number): Promise<ContactPage> {
    return this.#call({
      operation: 'searchContacts',
      group: 'contacts',
      method: 'GET',
      path: '/v1/contact/by_custom_field',
      query: [
        ['name', field],
        ['value', value],
        ['page', String(page)],
      ],
      read: (body, where) => readContactPage(parseJsonBody(body, where), where),
    });
  }

  searchContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    checkSearch(field, value, 1);
    return paginateContacts((page) => this.#searchPage(field, value, page), this.#c.maxPages);
  }

  listContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    checkSearch(field, value, 1);
    return paginateList((page) => this.#searchPage(field, value, page), { field, value });
  }

  async getContact(id: string): Promise<Contact> {
    checkContactId('getContact', id);
    return this.#call({
      operation: 'getContact',
      group: 'contacts',
      method: 'GET',
      path: `/v1/contact/${this.#idSegment('getContact', id)}`,
      contactId: id,
      read: (body, where) => readContactEnvelope(parseJsonBody(body, where), where),
    });
  }

  async updateContact(id: string, fields: Record<string, string>): Promise<void> {
    checkContactId('updateContact', id);
    checkFields('updateContact', fields);
    await this.#call({
      operation: 'updateContact',
      group: 'contacts',
      method: 'PUT',
      path: `/v1/contact/${this.#idSegment('updateContact', id)}`,
      contactId: id,
      body: { custom_fields: assignments(fields) },
      // The id of the answer is checked for shape only: the documented sample shows another form.
      read: (body, where) => void readIdEnvelope(parseJsonBody(body, where), where),
    });
  }

  async addTags(id: string, tags: readonly string[]): Promise<void> {
    checkContactId('addTags', id);
    checkTags('addTags', tags);
    await this.#call({
      operation: 'addTags',
      group: 'contacts',
      method: 'POST',
      path: `/v1/contact/${this.#idSegment('addTags', id)}/tags`,
      contactId: id,
      body: { tags: tags.map(String) },
      read: (body, where) => readSuccessEnvelope(parseJsonBody(body, where), where),
    });
  }

  async removeTags(id: string, tags: readonly string[]): Promise<void> {
    checkContactId('removeTags', id);
    checkTags('removeTags', tags);
    await this.#call({
      operation: 'removeTags',
      group: 'contacts',
      method: 'DELETE',
      path: `/v1/contact/${this.#idSegment('removeTags', id)}/tags`,
      contactId: id,
      body: { tags: tags.map(String) },
      read: (body, where) => readSuccessEnvelope(parseJsonBody(body, where), where),
    });
  }

  async createContact(fields: Record<string, string>, options?: CreateOptions): Promise<{ id: string }> {
    checkFields('createContact', fields);
    return this.#call({
      operation: 'createContact',
      ...(options?.repeat === true ? { repeat: true } : {}),
      group: 'contacts',
      method: 'POST',
      path: '/v1/contact',
      body: { custom_fields: assignments(fields) },
      read: (body, where) => readIdEnvelope(parseJsonBody(body, where), where),
    });
  }

  async sendText(id: string, text: string, options?: SendOptions): Promise<void> {
    checkContactId('sendMessage', id);
    checkText(text);
    await this.#send(id, { type: 'text', text }, options);
  }

  async sendAttachment(id: string, type: AttachmentType, url: string, options?: SendOptions): Promise<void> {
    checkContactId('sendMessage', id);
    checkAttachment(type, url);
    await this.#send(id, { type, url }, options);
  }

  async sendQuickReplies(id: string, title: string, replies: readonly string[], options?: SendOptions): Promise<void> {
    checkContactId('sendMessage', id);
    checkQuickReplies(title, replies);
    await this.#send(id, { type: 'quick_reply', title, replies: replies.map(String) }, options);
  }

  async sendTemplate(id: string, template: WhatsappTemplate, options?: SendOptions): Promise<void> {
    checkContactId('sendMessage', id);
    checkTemplate(template);
    await this.#send(id, whatsappTemplateElement(template), options);
  }

  async #send(id: string, element: MessageElement, options: SendOptions | undefined): Promise<void> {
    const body: SendMessageRequest = { body: [element] };
    if (options?.forceCancelSurvey === true) body.forceCancelSurvey = true;
    // The attachment element is the one with a url.
    const attachmentType = 'url' in element ? element.type : undefined;
    await this.#call({
      operation: 'sendMessage',
      group: 'messages',
      method: 'POST',
      path: `/v1/message/sendContent/${this.#idSegment('sendMessage', id)}`,
      contactId: id,
      body,
      ...(attachmentType === undefined ? {} : { attachmentType }),
      ...(options?.onLeave === undefined ? {} : { onLeave: options.onLeave }),
      // Only the documented success is a delivery (docs/reliability.md, "Odd answers").
      read: (text, where) => readSendAnswer(text, where),
    });
  }

  #idSegment(operation: ApiOperation, id: string): string {
    const wireId = this.#channelType === 'viber' && VIBER_ENCODED_ID_OPERATIONS.has(operation) ? encodeViberId(id) : id;
    // Base64 holds `/` and `+`: percent-encoded, they stay one path segment.
    return encodeURIComponent(wireId);
  }

  /** Runs one call (call-attempts.ts): each attempt through the limiter of its API group. */
  async #call<T>(spec: V1Call<T>): Promise<T> {
    const limiter = this.#limiters[spec.group];
    return runAttempts(this.#c, {
      operation: spec.operation,
      ...(spec.onLeave === undefined ? {} : { onLeave: spec.onLeave }),
      refusedToken: () => this.#refusedToken,
      schedule: async (attempt, prelude) => {
        // A rejection before the attempt started is the limiter's own (its Redis went away).
        let started = false;
        try {
          // The answer comes at once; the slot stays taken one window more (limiter-slots.ts).
          return await runInSlot(
            limiter,
            async () => {
              started = true;
              await prelude();
              return this.#attempt(spec, attempt);
            },
            this.#c.timeoutMs,
          );
        } catch (error) {
          throw started ? error : limiterFailure(limiter, error);
        }
      },
    });
  }

  async #attempt<T>(spec: V1Call<T>, attempt: number): Promise<T> {
    // A channel token the platform refused stays refused: calls queued behind that answer are
    // not sent, so a 401 costs one call of the budget, not one per row in flight.
    if (this.#refusedToken !== undefined) throw this.#refusedToken;
    const path = `${this.#c.rootPath}${spec.path}`;
    const request: RequestContext = { operation: spec.operation, method: spec.method, path };
    if (spec.contactId !== undefined) request.contactId = spec.contactId;
    if (spec.attachmentType !== undefined) request.attachmentType = spec.attachmentType;
    const query = spec.query?.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
    const url = `${this.#c.root}${spec.path}${query ? `?${query}` : ''}`;
    const page = spec.query?.find(([name]) => name === 'page')?.[1];
    const logged = { operation: spec.operation, method: spec.method, path, ...(page ? { page: Number(page) } : {}), attempt };
    this.stats.recordRequest(spec.operation, attempt > 1 || spec.repeat === true);
    const response = await httpExchange({
      url,
      method: spec.method,
      token: this.#c.token,
      ...(spec.body === undefined ? {} : { body: spec.body }),
      timeoutMs: this.#c.timeoutMs,
      request,
      logger: this.#c.logger,
      logged,
      redact: this.#c.redact,
    });
    const { status, body } = response;
    if (status >= 200 && status < 300) {
      const result = spec.read(body, { operation: spec.operation, method: spec.method, path, status });
      this.#c.health.answered();
      return result;
    }
    if (status === 429) this.stats.recordRateLimited(spec.operation);
    const error = errorFromResponse(request, { status, body, headers: response.headers, url }, this.#c.now());
    if (error instanceof InvalidTokenError) this.#refusedToken = error;
    throw error;
  }
}

function assignments(fields: Record<string, string>): CustomFieldAssignment[] {
  return Object.entries(fields).map(([name, value]) => ({ name, value: String(value) }));
}
