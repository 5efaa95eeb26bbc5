/**
 * What a caller can ask of the emulator (`startEmulator`). Input types: `validate-options.ts`
 * checks them and fills the defaults.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ApiOperation, ChannelType } from '../api/wire-types.js';
import type { Rate } from '../limits.js';
import type { UpdateAnswerId, ValueTypes } from './contact-answer.js';

/** One channel of the emulated platform: a token, a type and its own contacts and budgets. */
export interface ChannelOptions {
  /** Token the API expects as `Authorization: Bearer <token>`. Never logged or echoed. */
  readonly token: string;
  /** On `viber` some paths carry the contact id Base64-encoded. @default 'generic' */
  readonly type?: ChannelType;
  /**
   * Name the admin API accepts as `?channel=<name>` (so a token need not travel in a URL).
   * @default 'demo' for the default channel, else `channel-<n>` with n the 1-based position
   */
  readonly name?: string;
}

/** Budgets per channel and API group; `false` disables a group's limit. */
export interface RateLimitOptions {
  /** Operations 1 to 6. @default DEFAULT_CONTACTS_RATE (100 per 60 000 ms) */
  readonly contacts?: Rate | false;
  /** Operations 7 to 9. @default DEFAULT_MESSAGES_RATE (25 per 1 000 ms) */
  readonly messages?: Rate | false;
  /**
   * The v2 surface: the organisation's budget of each endpoint (method and path template), on
   * its own. @default DEFAULT_V2_ENDPOINT_RATE (5 per 1 000 ms; unverified)
   */
  readonly v2?: Rate | false;
}

/** Extra delay before an answer, drawn uniformly from [minMs, maxMs] (milliseconds). */
export interface LatencyRange {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * Faults injected into channel API requests (never admin requests), drawn from a PRNG seeded
 * with `EmulatorOptions.seed`. Probabilities are in [0, 1]; the ones that can hit one request
 * must add up to at most 1. Every probability @default 0.
 */
export interface FaultOptions {
  /** Answer 500 without doing anything. */
  readonly serverError?: number;
  /** Answer 429 with `Retry-After: 1` without doing anything. */
  readonly rateLimited?: number;
  /** Close the socket without answering and without doing anything. */
  readonly dropConnection?: number;
  /** Like `dropConnection`, as a TCP reset (RST) where the socket allows it. */
  readonly resetConnection?: number;
  /** Create contact only: commit the create, then close the socket without answering. */
  readonly createCommitThenDrop?: number;
  /** Message sends only: record the message, then close the socket without answering. */
  readonly sendCommitThenDrop?: number;
  /** Hold the request without answering, until the client gives up or the emulator closes. */
  readonly hang?: number;
  /** Answer 403 with a message that echoes the request's token JSON-escaped as PHP writes it (`\/`). */
  readonly echoTokenEscaped?: number;
  /** Message sends only: answer 200 with `{"status": "error", ...}` (a refusal), recording nothing. */
  readonly sendErrorBody?: number;
  /** Message sends only: record the message, then answer 200 with an HTML maintenance page. */
  readonly sendHtmlBody?: number;
  /** The `Retry-After` (seconds) of the `rateLimited` fault's 429s. @default 1 */
  readonly retryAfterSeconds?: number;
  /** Delay added before every answer of an authenticated request. @default none */
  readonly latency?: LatencyRange;
  /**
   * Network delay on the way in: waited before the rate check, so that requests reach the
   * check late and out of order, as over a real network. @default none
   */
  readonly inboundJitter?: LatencyRange;
  /** Operations the faults and latency apply to. @default every operation */
  readonly operations?: readonly ApiOperation[];
}

/** How a search matches the `email` field (`EmulatorOptions.emailSearch`). */
export type EmailSearch = 'case-insensitive' | 'exact';
export const EMAIL_SEARCH_MODES: readonly EmailSearch[] = ['case-insensitive', 'exact'];

export interface EmulatorOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** @default [{ token: 'demo-token', type: 'generic', name: 'demo' }] */
  readonly channels?: readonly ChannelOptions[];
  /**
   * Access tokens of the workspace that the v2 surface (`/v2/...`) answers, 1 to 10 (the
   * platform's most per workspace). The workspace's channels are `channels`, numbered 1, 2, ...
   * in order (v2's `channelId`), and with a workspace they share one contact store, read and
   * written through both surfaces. Never logged or echoed.
   * @default none: the channels keep their own contacts, and every v2 request is answered 401
   */
  readonly workspaceTokens?: readonly string[];
  /** Per-channel budgets (and v2's per endpoint); `false` disables rate limiting. @default the spec rates */
  readonly rateLimits?: RateLimitOptions | false;
  /**
   * Custom fields of the workspace besides the eight of the spec (firstName, lastName, locale,
   * timezone, gender, phone, email, customerid). When given, create and update refuse any other
   * field with a 403. @default any field name is accepted
   */
  readonly allowedFields?: readonly string[];
  /**
   * How a search matches an `email` value: `case-insensitive` as the platform does today
   * (platform notes, "Values in queries"), or `exact` (case counts), as every other field.
   * @default 'case-insensitive'
   */
  readonly emailSearch?: EmailSearch;
  /**
   * How contact reads (get, search) answer custom field values: `strings` as the spec and the
   * platform notes say (`"timezone": "5"`), or `typed`, as a reseller's search sample does
   * (`"isLead": true`): `true` / `false` as booleans, plain decimal numbers as numbers.
   * @default 'strings'
   */
  readonly valueTypes?: ValueTypes;
  /**
   * What update contact answers as `data.id`: `contact`, the contact's id (spec, operation 3), or
   * `cus`, an id of another form (`cus_...`), as the live docs' sample of the answer shows.
   * @default 'contact'
   */
  readonly updateAnswerId?: UpdateAnswerId;
  /** @default no fault */
  readonly faults?: FaultOptions;
  /** Seed of the fault PRNG (an integer). @default 1 */
  readonly seed?: number;
  /** Value of the `x-admin-key` header of admin requests. @default 32 random hex characters */
  readonly adminKey?: string;
  /** Clock in milliseconds since the epoch: rate windows, created_at, message times. @default Date.now */
  readonly now?: () => number;
  /** `true` for fastify's pino logger at info level, or a logger instance. @default false */
  readonly logger?: boolean | FastifyBaseLogger;
}
