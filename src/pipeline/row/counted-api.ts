/**
 * A view of the client that counts the calls one row makes, for the `api_calls` column. Retries
 * inside the client are not calls of the row's own; the summary counts them apart.
 */
import type { CallBudget, ContactsApi, ContactsPage, CreateOptions, EarlierLimit, MergeAnswer, SendOptions, SendReceipt, SentMessage } from '../../api/contacts-api.js';
import type { AttachmentType } from '../../limits.js';
import type { Contact, MessageElement, WhatsappTemplate } from '../../api/wire-types.js';

export class CountedApi implements ContactsApi {
  /** Calls made through this view. */
  calls = 0;

  constructor(private readonly api: ContactsApi) {}

  get surface() {
    return this.api.surface;
  }

  get stats() {
    return this.api.stats;
  }

  pace(earlier?: readonly EarlierLimit[]): CallBudget[] {
    return this.api.pace(earlier);
  }

  searchContactsPage(field: string, value: string, page?: number): Promise<ContactsPage> {
    this.calls++;
    return this.api.searchContactsPage(field, value, page);
  }

  async *searchContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    // The paginator yields once per request it made (an empty first page included).
    for await (const page of this.api.searchContacts(field, value)) {
      this.calls++;
      yield page;
    }
  }

  async *listContacts(field: string, value: string): AsyncGenerator<Contact[], void, undefined> {
    for await (const page of this.api.listContacts(field, value)) {
      this.calls++;
      yield page;
    }
  }

  getContact(id: string): Promise<Contact> {
    this.calls++;
    return this.api.getContact(id);
  }

  updateContact(id: string, fields: Record<string, string>): Promise<void> {
    this.calls++;
    return this.api.updateContact(id, fields);
  }

  addTags(id: string, tags: readonly string[]): Promise<void> {
    this.calls++;
    return this.api.addTags(id, tags);
  }

  removeTags(id: string, tags: readonly string[]): Promise<void> {
    this.calls++;
    return this.api.removeTags(id, tags);
  }

  createContact(fields: Record<string, string>, options?: CreateOptions): Promise<{ id: string }> {
    this.calls++;
    return this.api.createContact(fields, options);
  }

  sendText(id: string, text: string, options?: SendOptions): Promise<void | SendReceipt> {
    this.calls++;
    return this.api.sendText(id, text, options);
  }

  sendAttachment(id: string, type: AttachmentType, url: string, options?: SendOptions): Promise<void | SendReceipt> {
    this.calls++;
    return this.api.sendAttachment(id, type, url, options);
  }

  sendQuickReplies(id: string, title: string, replies: readonly string[], options?: SendOptions): Promise<void | SendReceipt> {
    this.calls++;
    return this.api.sendQuickReplies(id, title, replies, options);
  }

  sendTemplate(id: string, template: WhatsappTemplate, options?: SendOptions): Promise<void | SendReceipt> {
    this.calls++;
    return this.api.sendTemplate(id, template, options);
  }

  /**
   * One call of the row's (the message list is one page but for a contact with 100 messages and
   * more); present only where the client it counts has it (a surface whose sends are readable).
   */
  get findSentMessage(): ContactsApi['findSentMessage'] {
    const { api } = this;
    if (api.findSentMessage === undefined) return undefined;
    return (id: string, message: MessageElement, sinceMs: number): Promise<SentMessage | undefined> => {
      this.calls++;
      return api.findSentMessage!(id, message, sinceMs);
    };
  }

  /** One call of the unit's; present only where the client it counts can delete (`surface.deletes`). */
  get deleteContact(): ContactsApi['deleteContact'] {
    const { api } = this;
    if (api.deleteContact === undefined) return undefined;
    return (id: string): Promise<void> => {
      this.calls++;
      return api.deleteContact!(id);
    };
  }

  /** One call of the unit's (two reads more when its answer was lost); present only where the client can merge. */
  get mergeContacts(): ContactsApi['mergeContacts'] {
    const { api } = this;
    if (api.mergeContacts === undefined) return undefined;
    return (ids: readonly [string, string], fields: Record<string, string>): Promise<MergeAnswer> => {
      this.calls++;
      return api.mergeContacts!(ids, fields);
    };
  }
}
