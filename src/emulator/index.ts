/**
 * The local emulator of the Contacts and Messaging API v1 and of the Developer API v2:
 * `startEmulator` serves v1 under `<origin>/api`, v2 under `<origin>/v2` (with workspace tokens)
 * and an admin API under `<origin>/__admin/`, and hands tests an in-process view of the same
 * state. See docs/emulator.md.
 */
import { setMaxListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Contact } from '../api/wire-types.js';
import type { CallCounters } from './call-counters.js';
import type { Channel, RecordedMessage } from './channel.js';
import { readContactSeeds } from './contact-seeds.js';
import type { ContactSeed } from './contact-store.js';
import { EmulatorState } from './emulator-state.js';
import { RefusedRequest } from './envelopes.js';
import type { EmulatorOptions, FaultOptions } from './options.js';
import { buildServer } from './server.js';
import { EmulatorOptionsError, checkFaults, resolveOptions } from './validate-options.js';
import type { V2Counters } from './v2/endpoint-counters.js';
import { messageAnswer, type V2MessageAnswer } from './v2/routes-messages.js';
import { V2_ROOT } from './v2/v2-paths.js';

export type { CallCounters, OperationCounter } from './call-counters.js';
export type { RecordedMessage } from './channel.js';
export type { UpdateAnswerId, ValueTypes } from './contact-answer.js';
export type { ContactSeed } from './contact-store.js';
export type { ChannelOptions, EmailSearch, EmulatorOptions, FaultOptions, LatencyRange, RateLimitOptions } from './options.js';
export { ADMIN_KEY_HEADER, CHANNEL_TOKEN_HEADER } from './routes-admin.js';
export { parseTokenFlag } from './token-flag.js';
export { EmulatorOptionsError, SPEC_CUSTOM_FIELDS } from './validate-options.js';
export type { V2Counters } from './v2/endpoint-counters.js';
export type { V2MessageAnswer } from './v2/routes-messages.js';
export type { V2Contact } from './v2/v2-contact.js';
export { V2_ENDPOINTS } from './v2/v2-paths.js';

export interface RunningEmulator {
  /** API root to use as base URL, e.g. `http://127.0.0.1:41234/api`. */
  readonly url: string;
  /** v2's base URL, e.g. `http://127.0.0.1:41234/v2` (as the SDK's `https://api.respond.io/v2`). */
  readonly v2Url: string;
  /** `http://HOST:PORT`; the admin API is at `${origin}/__admin/`. */
  readonly origin: string;
  readonly port: number;
  /** Value for the `x-admin-key` header. */
  readonly adminKey: string;
  /** Stops listening and closes every socket, kept-alive ones included. */
  close(): Promise<void>;
  /** The channel's contacts, in order of arrival. */
  contacts(token: string): Contact[];
  /** Messages the channel accepted, in order; only those to `contactId` when given. */
  messages(token: string, contactId?: string): RecordedMessage[];
  counters(token: string): CallCounters;
  /** One channel's counters, or every channel's. */
  resetCounters(token?: string): void;
  /** Stores contacts (ids and created_at generated when absent); returns them as stored. */
  loadContacts(token: string, contacts: readonly ContactSeed[]): Contact[];
  /** Removes a contact, as if deleted on the platform; false when there was none. */
  deleteContact(token: string, id: string): boolean;
  /** Starts or ends a survey on a contact; throws when there is no such contact. */
  setSurvey(token: string, contactId: string, active: boolean): void;
  hasActiveSurvey(token: string, contactId: string): boolean;
  /** Replaces the fault configuration; with a seed the draws restart from it. */
  setFaults(faults: FaultOptions, seed?: number): void;
  /** One channel back to empty; without a token every channel, and faults back to the start options. */
  reset(token?: string): void;
  /** v2's numeric id of a contact (its store id when that is a number). */
  v2Id(contactId: string): number;
  /** Messages sent through v2, as v2 reads them back; only those to the contact (store id) when given. */
  v2Messages(contactId?: string): V2MessageAnswer[];
  v2Counters(): V2Counters;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const resolved = resolveOptions(options);
  const state = new EmulatorState(resolved);
  const closing = new AbortController();
  // Every request waiting out its latency listens for the close: many at once is the normal case.
  setMaxListeners(0, closing.signal);
  const app = buildServer(state, resolved, closing.signal);
  await app.listen({ port: resolved.port, host: resolved.host });
  const port = (app.server.address() as AddressInfo).port;
  const origin = `http://${urlHost(resolved.host)}:${port}`;

  const channel = (token: string): Channel => {
    const found = state.channelByToken(token);
    if (found === undefined) throw new Error('emulator: no channel has the given token; use one of the tokens in options.channels');
    return found;
  };

  let closed: Promise<void> | undefined;
  return {
    url: `${origin}/api`,
    v2Url: `${origin}${V2_ROOT}`,
    origin,
    port,
    adminKey: resolved.adminKey,
    close: () => {
      closed ??= (async () => {
        closing.abort();
        await app.close();
      })();
      return closed;
    },
    contacts: (token) => channel(token).contacts.all(),
    messages: (token, contactId) => {
      const found = channel(token);
      return structuredClone(contactId === undefined ? found.messages : found.messagesTo(contactId));
    },
    counters: (token) => channel(token).counters.snapshot(),
    resetCounters: (token) => {
      for (const each of token === undefined ? state.channels() : [channel(token)]) each.counters.reset();
    },
    loadContacts: (token, contacts) => {
      const target = channel(token);
      let seeds: ContactSeed[];
      try {
        seeds = readContactSeeds(contacts);
      } catch (error) {
        throw new Error(`emulator.loadContacts: ${error instanceof RefusedRequest ? error.message : String(error)}`);
      }
      return seeds.map((seed) => target.contacts.insert(seed));
    },
    deleteContact: (token, id) => channel(token).contacts.delete(id),
    setSurvey: (token, contactId, active) => {
      if (!channel(token).contacts.setSurvey(contactId, active)) {
        throw new Error(`emulator.setSurvey: no contact with id "${contactId}" in this channel`);
      }
    },
    hasActiveSurvey: (token, contactId) => channel(token).contacts.hasActiveSurvey(contactId),
    setFaults: (faults, seed) => {
      const problems = checkFaults(faults, 'faults');
      if (seed !== undefined && !Number.isSafeInteger(seed)) problems.push(`seed: ${String(seed)} is not an integer`);
      if (problems.length > 0) throw new EmulatorOptionsError(problems);
      state.faults.configure(faults, seed);
    },
    reset: (token) => {
      if (token === undefined) state.resetAll();
      else channel(token).reset();
    },
    v2Id: (contactId) => state.workspace.numericId(contactId),
    v2Messages: (contactId) =>
      state.workspace.messages
        .filter((message) => contactId === undefined || message.contactId === contactId)
        .map((message) => messageAnswer(state.workspace, message)),
    v2Counters: () => state.workspace.counters.snapshot(),
  };
}

/** Wildcard addresses are not reachable as such: clients go through loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
