/**
 * Checks `EmulatorOptions` and fills their defaults. Every problem is reported at once, each
 * naming the option and the fix; a token is never echoed.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { API_OPERATIONS } from '../api/wire-types.js';
import type { ApiOperation, ChannelType } from '../api/wire-types.js';
import { DEFAULT_CONTACTS_RATE, DEFAULT_MESSAGES_RATE, DEFAULT_V2_ENDPOINT_RATE } from '../limits.js';
import type { ApiGroup, Rate } from '../limits.js';
import { UPDATE_ANSWER_IDS, VALUE_TYPES, type UpdateAnswerId, type ValueTypes } from './contact-answer.js';
import { EMAIL_CASE_INSENSITIVE_SEARCH, EXACT_SEARCH, type SearchFold } from './contact-store.js';
import { EMAIL_SEARCH_MODES } from './options.js';
import type { ChannelOptions, EmulatorOptions, FaultOptions } from './options.js';

export class EmulatorOptionsError extends Error {
  readonly code = 'EMULATOR_OPTIONS';
  constructor(readonly problems: readonly string[]) {
    super(`invalid emulator options:\n  ${problems.join('\n  ')}`);
    this.name = 'EmulatorOptionsError';
  }
}

export interface ResolvedChannel {
  token: string;
  type: ChannelType;
  name: string;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  channels: ResolvedChannel[];
  rates: Record<ApiGroup, Rate | undefined>;
  /** The workspace's access tokens (v2); empty without a workspace. */
  workspaceTokens: string[];
  /** v2's budget per endpoint; undefined when off. */
  v2Rate: Rate | undefined;
  /** Undefined when any field name is accepted. */
  allowedFields: ReadonlySet<string> | undefined;
  /** How searches match values (`emailSearch`). */
  searchFold: SearchFold;
  valueTypes: ValueTypes;
  updateAnswerId: UpdateAnswerId;
  faults: FaultOptions;
  seed: number;
  adminKey: string;
  now: () => number;
  logger: boolean | FastifyBaseLogger;
}

/** The custom fields the spec names; always allowed. */
export const SPEC_CUSTOM_FIELDS = [
  'firstName',
  'lastName',
  'locale',
  'timezone',
  'gender',
  'phone',
  'email',
  'customerid',
] as const;

const DEFAULT_CHANNEL: ResolvedChannel = { token: 'demo-token', type: 'generic', name: 'demo' };
const FAULT_PROBABILITIES = [
  'serverError',
  'rateLimited',
  'dropConnection',
  'resetConnection',
  'createCommitThenDrop',
  'sendCommitThenDrop',
  'hang',
  'echoTokenEscaped',
  'sendErrorBody',
  'sendHtmlBody',
] as const;

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const problems: string[] = [];
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    problems.push(`port: ${String(port)} is not a TCP port; use an integer from 0 (any free port) to 65535`);
  }
  const channels = resolveChannels(options.channels, problems);
  const rates = resolveRates(options, problems);
  const workspaceTokens = resolveWorkspaceTokens(options.workspaceTokens, channels, problems);
  const v2Rate = resolveV2Rate(options, problems);
  const emailSearch = options.emailSearch ?? 'case-insensitive';
  if (!EMAIL_SEARCH_MODES.includes(emailSearch)) {
    problems.push(`emailSearch: "${String(emailSearch)}" is not a search mode; use ${EMAIL_SEARCH_MODES.join(' or ')}`);
  }
  const valueTypes = options.valueTypes ?? 'strings';
  if (!VALUE_TYPES.includes(valueTypes)) {
    problems.push(`valueTypes: "${String(valueTypes)}" is not a way to answer values; use ${VALUE_TYPES.join(' or ')}`);
  }
  const updateAnswerId = options.updateAnswerId ?? 'contact';
  if (!UPDATE_ANSWER_IDS.includes(updateAnswerId)) {
    problems.push(`updateAnswerId: "${String(updateAnswerId)}" is not an answer of update; use ${UPDATE_ANSWER_IDS.join(' or ')}`);
  }
  const faults = options.faults ?? {};
  problems.push(...checkFaults(faults, 'faults'));
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed)) problems.push(`seed: ${String(seed)} is not an integer; give a whole number`);
  const adminKey = options.adminKey ?? randomBytes(16).toString('hex');
  if (adminKey === '') problems.push('adminKey: is empty; give a non-empty key or leave it out for a random one');
  if (channels.some((channel) => channel.token === adminKey)) {
    problems.push('adminKey: equals a channel token; the admin API must not be reachable with a channel token');
  }
  if (workspaceTokens.includes(adminKey)) {
    problems.push('adminKey: equals a workspace token; the admin API must not be reachable with a workspace token');
  }
  if (problems.length > 0) throw new EmulatorOptionsError(problems);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    channels,
    rates,
    workspaceTokens,
    v2Rate,
    allowedFields:
      options.allowedFields === undefined ? undefined : new Set([...SPEC_CUSTOM_FIELDS, ...options.allowedFields]),
    searchFold: emailSearch === 'exact' ? EXACT_SEARCH : EMAIL_CASE_INSENSITIVE_SEARCH,
    valueTypes,
    updateAnswerId,
    faults,
    seed,
    adminKey,
    now: options.now ?? Date.now,
    logger: options.logger ?? false,
  };
}

function resolveChannels(given: readonly ChannelOptions[] | undefined, problems: string[]): ResolvedChannel[] {
  if (given === undefined) return [{ ...DEFAULT_CHANNEL }];
  if (given.length === 0) problems.push('channels: is empty; give at least one {token}, or leave it out for the demo channel');
  const tokens = new Set<string>();
  const names = new Set<string>();
  return given.map((channel, index) => {
    const where = `channels[${index}]`;
    const name = channel.name ?? `channel-${index + 1}`;
    const type = channel.type ?? 'generic';
    if (typeof channel.token !== 'string' || channel.token === '') problems.push(`${where}.token: is empty; give the channel's token`);
    else if (tokens.has(channel.token)) problems.push(`${where}.token: is the token of an earlier channel; each channel needs its own token`);
    if (names.has(name)) problems.push(`${where}.name: "${name}" is the name of an earlier channel; give each channel its own name`);
    if (type !== 'generic' && type !== 'viber') problems.push(`${where}.type: "${String(type)}" is not a channel type; use generic or viber`);
    tokens.add(channel.token);
    names.add(name);
    return { token: channel.token, type, name };
  });
}

function resolveRates(options: EmulatorOptions, problems: string[]): Record<ApiGroup, Rate | undefined> {
  if (options.rateLimits === false) return { contacts: undefined, messages: undefined };
  const contacts = options.rateLimits?.contacts ?? DEFAULT_CONTACTS_RATE;
  const messages = options.rateLimits?.messages ?? DEFAULT_MESSAGES_RATE;
  for (const [group, rate] of [['contacts', contacts], ['messages', messages]] as const) {
    if (rate === false) continue;
    if (!Number.isInteger(rate.limit) || rate.limit < 1) {
      problems.push(`rateLimits.${group}.limit: ${String(rate.limit)} must be a whole number of calls >= 1 (or set the group to false)`);
    }
    if (!Number.isFinite(rate.periodMs) || rate.periodMs <= 0) {
      problems.push(`rateLimits.${group}.periodMs: ${String(rate.periodMs)} must be a number of milliseconds > 0`);
    }
  }
  return { contacts: contacts === false ? undefined : contacts, messages: messages === false ? undefined : messages };
}

/** The platform takes at most 10 access tokens per workspace (spec/api-v2-notes.md). */
const MAX_WORKSPACE_TOKENS = 10;

function resolveWorkspaceTokens(given: readonly string[] | undefined, channels: readonly ResolvedChannel[], problems: string[]): string[] {
  if (given === undefined) return [];
  if (given.length === 0) {
    problems.push('workspaceTokens: give a list of 1 to 10 tokens, or leave it out for no v2 surface');
    return [];
  }
  if (given.length > MAX_WORKSPACE_TOKENS) {
    problems.push(`workspaceTokens: holds ${given.length} tokens; a workspace has at most ${MAX_WORKSPACE_TOKENS}`);
  }
  const seen = new Set<string>();
  given.forEach((token, index) => {
    const where = `workspaceTokens[${index}]`;
    if (typeof token !== 'string' || token === '') problems.push(`${where}: is empty; give the workspace's access token`);
    else if (seen.has(token)) problems.push(`${where}: repeats an earlier workspace token; give each token once`);
    else if (channels.some((channel) => channel.token === token)) {
      problems.push(`${where}: is also a channel token; a channel token opens only /api/v1 and a workspace token only /v2, so give them different values`);
    }
    seen.add(token);
  });
  return [...given];
}

function resolveV2Rate(options: EmulatorOptions, problems: string[]): Rate | undefined {
  if (options.rateLimits === false) return undefined;
  const rate = options.rateLimits?.v2 ?? DEFAULT_V2_ENDPOINT_RATE;
  if (rate === false) return undefined;
  if (!Number.isInteger(rate.limit) || rate.limit < 1) {
    problems.push(`rateLimits.v2.limit: ${String(rate.limit)} must be a whole number of calls >= 1 (or set it to false)`);
  }
  if (!Number.isFinite(rate.periodMs) || rate.periodMs <= 0) {
    problems.push(`rateLimits.v2.periodMs: ${String(rate.periodMs)} must be a number of milliseconds > 0`);
  }
  return rate;
}

/** Problems of a fault configuration, each prefixed with `where` (an option path). */
export function checkFaults(faults: FaultOptions, where: string): string[] {
  const problems: string[] = [];
  if (typeof faults !== 'object' || faults === null) return [`${where}: must be an object of probabilities`];
  for (const key of Object.keys(faults)) {
    if (![...FAULT_PROBABILITIES, 'latency', 'inboundJitter', 'operations', 'retryAfterSeconds'].includes(key)) {
      problems.push(`${where}.${key}: is not a fault; use one of ${FAULT_PROBABILITIES.join(', ')}, latency, inboundJitter, operations, retryAfterSeconds`);
    }
  }
  for (const key of FAULT_PROBABILITIES) {
    const p = faults[key];
    if (p !== undefined && (typeof p !== 'number' || !(p >= 0 && p <= 1))) {
      problems.push(`${where}.${key}: ${String(p)} is not a probability; give a number from 0 to 1`);
    }
  }
  const shared =
    (faults.serverError ?? 0) + (faults.rateLimited ?? 0) + (faults.dropConnection ?? 0) + (faults.resetConnection ?? 0) + (faults.hang ?? 0) + (faults.echoTokenEscaped ?? 0);
  const sendOnly = (faults.sendCommitThenDrop ?? 0) + (faults.sendErrorBody ?? 0) + (faults.sendHtmlBody ?? 0);
  const worst = shared + Math.max(faults.createCommitThenDrop ?? 0, sendOnly);
  if (problems.length === 0 && worst > 1 + 1e-9) {
    problems.push(`${where}: the probabilities that can hit one request add up to ${worst}; lower them to a sum of at most 1`);
  }
  const retryAfter = faults.retryAfterSeconds;
  if (retryAfter !== undefined && (!Number.isInteger(retryAfter) || retryAfter < 0)) {
    problems.push(`${where}.retryAfterSeconds: ${String(retryAfter)} must be a whole number of seconds from 0 up`);
  }
  for (const name of ['latency', 'inboundJitter'] as const) {
    const range = faults[name];
    if (range === undefined) continue;
    const { minMs, maxMs } = range;
    if (!Number.isInteger(minMs) || !Number.isInteger(maxMs) || minMs < 0 || maxMs < minMs) {
      problems.push(`${where}.${name}: {minMs: ${String(minMs)}, maxMs: ${String(maxMs)}} must be whole milliseconds with 0 <= minMs <= maxMs`);
    }
  }
  if (faults.operations !== undefined) {
    if (!Array.isArray(faults.operations)) problems.push(`${where}.operations: must be a list of operation names`);
    else {
      for (const operation of faults.operations) {
        if (!(API_OPERATIONS as readonly string[]).includes(operation as ApiOperation)) {
          problems.push(`${where}.operations: "${String(operation)}" is not an operation; use ${API_OPERATIONS.join(', ')}`);
        }
      }
    }
  }
  return problems;
}
