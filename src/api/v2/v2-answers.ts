/**
 * Checks that a 2xx answer of v2 has the shape the official SDK's types give it, and returns it
 * typed; anything else is a `MalformedResponseError` naming what is wrong.
 */
import { MalformedResponseError, type ApiErrorContext } from '../errors.js';
import { parseJsonBody } from '../json-body.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(where: ApiErrorContext, problem: string): MalformedResponseError {
  return new MalformedResponseError({ ...where, problem });
}

/** A number v2 gives an id as (a number, or a string of digits), as the string the pipeline keeps. */
function idText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^[1-9]\d*$/.test(value)) return value;
  return undefined;
}

/** `{contactId}`: create_or_update, update, tags. */
export function readContactIdAnswer(body: string, where: ApiErrorContext): string {
  const value = parseJsonBody(body, where);
  const id = isObject(value) ? idText(value.contactId) : undefined;
  if (id === undefined) throw malformed(where, `the body is ${JSON.stringify(value)?.slice(0, 80)}, not {"contactId": <number>}`);
  return id;
}

/** `{messageId}`: a send. */
export function readMessageIdAnswer(body: string, where: ApiErrorContext): string {
  const value = parseJsonBody(body, where);
  const id = isObject(value) ? idText(value.messageId) : undefined;
  if (id === undefined) throw malformed(where, `the body is ${JSON.stringify(value)?.slice(0, 80)}, not {"messageId": <number>}`);
  return id;
}

/** One page of a v2 list: its items, and the cursor of the next page (none on the last). */
export interface CursorPage {
  readonly items: readonly unknown[];
  readonly nextCursor: string | undefined;
}

/**
 * `{items, pagination: {next, previous}}`. Only the `cursorId` of `next` is kept: the next page's
 * URL is built from the base URL, as on v1, never followed (it may name another host).
 */
export function readCursorPage(body: string, where: ApiErrorContext): CursorPage {
  const value = parseJsonBody(body, where);
  if (!isObject(value) || !Array.isArray(value.items)) throw malformed(where, 'the body is not {items: [...], pagination}');
  const next = isObject(value.pagination) ? value.pagination.next : undefined;
  if (next === undefined || next === null || next === '') return { items: value.items, nextCursor: undefined };
  if (typeof next !== 'string') throw malformed(where, `pagination.next is ${JSON.stringify(next)}, not a URL`);
  const cursor = cursorOf(next);
  if (cursor === undefined) throw malformed(where, `pagination.next ${JSON.stringify(next.slice(0, 120))} holds no cursorId`);
  return { items: value.items, nextCursor: cursor };
}

function cursorOf(link: string): string | undefined {
  const query = link.includes('?') ? link.slice(link.indexOf('?') + 1) : '';
  const cursor = new URLSearchParams(query).get('cursorId');
  return cursor !== null && /^\d+$/.test(cursor) ? cursor : undefined;
}

/** A message as a contact's message list reads it back: what settling a lost send needs of it. */
export interface ListedMessage {
  readonly messageId: string;
  readonly message: unknown;
  /** The first status's time, Unix seconds; undefined when the answer gives none. */
  readonly at: number | undefined;
}

export function readListedMessage(value: unknown, where: ApiErrorContext, at: string): ListedMessage {
  const messageId = isObject(value) ? idText(value.messageId) : undefined;
  if (!isObject(value) || messageId === undefined) throw malformed(where, `${at} is not a message with a messageId`);
  const [first] = Array.isArray(value.status) ? (value.status as unknown[]) : [];
  const timestamp = isObject(first) ? first.timestamp : undefined;
  return { messageId, message: value.message, at: typeof timestamp === 'number' ? timestamp : undefined };
}
