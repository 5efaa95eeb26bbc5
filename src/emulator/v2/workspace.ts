/**
 * The workspace the v2 surface answers: its access tokens, its channels (the emulator's channels,
 * numbered 1, 2, ... as v2's `channelId`), the one contact store both surfaces read and write,
 * v2's numeric contact ids, the messages sent through v2, and the organisation's budget per
 * endpoint.
 */
import type { Rate } from '../../limits.js';
import type { Channel } from '../channel.js';
import type { ContactIdSequence } from '../contact-id-sequence.js';
import type { ContactStore } from '../contact-store.js';
import { SlidingWindow } from '../sliding-window.js';
import { EndpointCounterSet } from './endpoint-counters.js';
import type { ContactIdentifier } from './identifier.js';
import type { V2Message } from './v2-message.js';

/** Message ids of v2 sends start here: far from contact ids, so one is never taken for the other. */
const FIRST_MESSAGE_ID = 1_000_000_001;

export class Workspace {
  readonly counters: EndpointCounterSet;
  readonly messages: V2Message[] = [];
  private readonly tokens: ReadonlySet<string>;
  private readonly windows = new Map<string, SlidingWindow>();
  /** Numbers given to contacts whose store id is not a number (ids seeded as `"c1"`). */
  private readonly numberOf = new Map<string, number>();
  private readonly idOfNumber = new Map<number, string>();
  private nextMessageId = FIRST_MESSAGE_ID;

  constructor(
    tokens: readonly string[],
    /** Channel `channelId` is `channels[channelId - 1]`. */
    readonly channels: readonly Channel[],
    readonly contacts: ContactStore,
    private readonly ids: ContactIdSequence,
    readonly rate: Rate | undefined,
  ) {
    this.tokens = new Set(tokens);
    this.counters = new EndpointCounterSet(rate?.periodMs);
  }

  hasToken(token: string | undefined): boolean {
    return token !== undefined && this.tokens.has(token);
  }

  /** The organisation's window of one endpoint; undefined when v2's limits are off. */
  window(endpoint: string): SlidingWindow | undefined {
    if (this.rate === undefined) return undefined;
    let window = this.windows.get(endpoint);
    if (window === undefined) {
      window = new SlidingWindow(this.rate);
      this.windows.set(endpoint, window);
    }
    return window;
  }

  /**
   * v2's id of a contact: the store id itself when it is a whole number (every id the platform
   * or the emulator hands out), else a number from the platform-wide sequence, given once.
   */
  numericId(contactId: string): number {
    if (/^[1-9]\d*$/.test(contactId) && Number.isSafeInteger(Number(contactId))) return Number(contactId);
    let number = this.numberOf.get(contactId);
    if (number === undefined) {
      number = Number(this.ids.allocate((candidate) => this.contacts.has(candidate)));
      this.numberOf.set(contactId, number);
      this.idOfNumber.set(number, contactId);
    }
    return number;
  }

  /** The store id of the contact an identifier names, or undefined. */
  find(identifier: ContactIdentifier): string | undefined {
    if (identifier.kind === 'id') {
      const plain = String(identifier.id);
      if (this.contacts.has(plain)) return plain;
      const aliased = this.idOfNumber.get(identifier.id);
      return aliased !== undefined && this.contacts.has(aliased) ? aliased : undefined;
    }
    return identifier.kind === 'email' ? this.holderOf('email', identifier.email) : this.holderOf('phone', identifier.phone);
  }

  /**
   * The contact that holds `value` in the `email` or `phone` field (oldest first, should v1 have
   * given two contacts one email), matched as a v1 search matches it.
   */
  holderOf(field: 'email' | 'phone', value: string): string | undefined {
    return this.contacts.search(field, value, 0, 1).contacts[0]?.id;
  }

  nextMessage(): number {
    return this.nextMessageId++;
  }

  /** The channel the contact was last sent a message on, through either surface; undefined if none. */
  lastChannelId(contactId: string): number | undefined {
    let last: { channelId: number; at: number } | undefined;
    this.channels.forEach((channel, index) => {
      for (const message of channel.messagesTo(contactId)) {
        if (last === undefined || message.sentAt >= last.at) last = { channelId: index + 1, at: message.sentAt };
      }
    });
    for (const message of this.messages) {
      if (message.contactId === contactId && (last === undefined || message.sentAt >= last.at)) {
        last = { channelId: message.channelId, at: message.sentAt };
      }
    }
    return last?.channelId;
  }

  /** Back to empty: contacts, v2 messages, counters and windows (ids are never reused). */
  reset(): void {
    this.contacts.clear();
    this.messages.length = 0;
    this.counters.reset();
    this.windows.clear();
  }
}
