/** One channel of the emulated platform: its contacts, the messages sent, budgets and counters. */
import type { ChannelType, MessageElement } from '../api/wire-types.js';
import type { ApiGroup, Rate } from '../limits.js';
import { CallCounterSet } from './call-counters.js';
import type { ContactStore } from './contact-store.js';
import { SlidingWindow } from './sliding-window.js';

/** A message the channel accepted. */
export interface RecordedMessage {
  contactId: string;
  /** The `body` list as sent (exactly one element). */
  body: MessageElement[];
  /** The flag as sent; absent when the request had none. */
  forceCancelSurvey?: boolean;
  /** Whether this send cancelled an active survey. */
  cancelledSurvey: boolean;
  /** Emulator clock, milliseconds since the epoch. */
  sentAt: number;
}

export class Channel {
  readonly messages: RecordedMessage[] = [];
  readonly counters: CallCounterSet;
  readonly windows: Record<ApiGroup, SlidingWindow | undefined>;

  constructor(
    readonly name: string,
    readonly type: ChannelType,
    rates: Record<ApiGroup, Rate | undefined>,
    /** This channel's contacts, or the workspace's when the emulator has one (v2): then shared. */
    readonly contacts: ContactStore,
    /** True when `contacts` is the workspace's: a reset of one channel then leaves them. */
    private readonly sharedContacts: boolean,
  ) {
    this.counters = new CallCounterSet({
      ...(rates.contacts === undefined ? {} : { contacts: rates.contacts.periodMs }),
      ...(rates.messages === undefined ? {} : { messages: rates.messages.periodMs }),
    });
    this.windows = {
      contacts: rates.contacts === undefined ? undefined : new SlidingWindow(rates.contacts),
      messages: rates.messages === undefined ? undefined : new SlidingWindow(rates.messages),
    };
  }

  messagesTo(contactId: string): RecordedMessage[] {
    return this.messages.filter((message) => message.contactId === contactId);
  }

  /**
   * Back to the state at start: no messages, zero counters, empty windows, and no contacts
   * unless they are the workspace's (those go with a reset of everything).
   */
  reset(): void {
    if (!this.sharedContacts) this.contacts.clear();
    this.messages.length = 0;
    this.counters.reset();
    this.windows.contacts?.clear();
    this.windows.messages?.clear();
  }
}
