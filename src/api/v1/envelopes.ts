/**
 * Checks that a 2xx answer has the documented shape and returns it typed. Anything else is a
 * `MalformedResponseError` naming what is wrong. Tolerated, as the platform notes ask: `from` /
 * `to` null, missing `links`, `message` as a list of strings, field values that are numbers.
 */
import { MalformedResponseError, SendRefusedError, type ApiErrorContext } from '../errors.js';
import { isObject, parseJsonBody, serverMessageOf } from '../json-body.js';
import type { Contact, ContactPage, PageLinks, PageMeta } from '../wire-types.js';

type Where = ApiErrorContext;

function malformed(where: Where, problem: string): MalformedResponseError {
  return new MalformedResponseError({ ...where, problem });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

export function readContact(value: unknown, where: Where, at = 'data'): Contact {
  if (!isObject(value)) throw malformed(where, `${at} is ${describe(value)}, not a contact object`);
  const { id, custom_fields: fields, tags, created_at: createdAt } = value;
  if (typeof id !== 'string' || id === '') throw malformed(where, `${at}.id is ${describe(id)}, not a non-empty string`);
  if (!isObject(fields)) throw malformed(where, `${at}.custom_fields is ${describe(fields)}, not an object`);
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
    throw malformed(where, `${at}.tags is ${describe(tags)}, not a list of strings`);
  }
  const createdSeconds = typeof createdAt === 'string' && /^\d+$/.test(createdAt) ? Number(createdAt) : createdAt;
  if (typeof createdSeconds !== 'number' || !Number.isFinite(createdSeconds)) {
    throw malformed(where, `${at}.created_at is ${describe(createdAt)}, not a Unix time in seconds`);
  }
  const customFields: Record<string, string> = {};
  for (const [name, fieldValue] of Object.entries(fields)) {
    // Values are strings on the wire; a number or boolean is the same value, a null is no value.
    if (typeof fieldValue === 'string') customFields[name] = fieldValue;
    else if (typeof fieldValue === 'number' || typeof fieldValue === 'boolean') customFields[name] = String(fieldValue);
    else if (fieldValue !== null) {
      throw malformed(where, `${at}.custom_fields.${name} is ${describe(fieldValue)}, not a string`);
    }
  }
  return { id, custom_fields: customFields, tags: [...tags], created_at: createdSeconds };
}

/** `{data: Contact}`: operation 2. */
export function readContactEnvelope(value: unknown, where: Where): Contact {
  if (!isObject(value)) throw malformed(where, `the body is ${describe(value)}, not {data: contact}`);
  return readContact(value.data, where);
}

function readLink(links: Record<string, unknown>, name: keyof PageLinks): string | null {
  const link = links[name];
  return typeof link === 'string' ? link : null;
}

function readCount(meta: Record<string, unknown>, name: keyof PageMeta, where: Where): number | null {
  const count = meta[name];
  if (count === undefined || count === null) return null;
  if (typeof count !== 'number' || !Number.isInteger(count)) {
    throw malformed(where, `meta.${name} is ${describe(count)}, not a whole number`);
  }
  return count;
}

/** `{data: Contact[], links, meta}`: operation 1. `links` are kept for the record, never followed. */
export function readContactPage(value: unknown, where: Where): ContactPage {
  if (!isObject(value)) throw malformed(where, `the body is ${describe(value)}, not {data, links, meta}`);
  const { data, meta } = value;
  if (!Array.isArray(data)) throw malformed(where, `data is ${describe(data)}, not a list of contacts`);
  if (!isObject(meta)) throw malformed(where, `meta is ${describe(meta)}, not an object`);
  const lastPage = readCount(meta, 'last_page', where);
  if (lastPage === null) throw malformed(where, 'meta.last_page is missing');
  const currentPage = readCount(meta, 'current_page', where);
  const links = isObject(value.links) ? value.links : {};
  return {
    data: data.map((contact, index) => readContact(contact, where, `data[${index}]`)),
    links: {
      first: readLink(links, 'first'),
      last: readLink(links, 'last'),
      prev: readLink(links, 'prev'),
      next: readLink(links, 'next'),
    },
    meta: {
      current_page: currentPage ?? 0,
      from: readCount(meta, 'from', where),
      last_page: lastPage,
      path: typeof meta.path === 'string' ? meta.path : '',
      per_page: readCount(meta, 'per_page', where) ?? data.length,
      to: readCount(meta, 'to', where),
      total: readCount(meta, 'total', where) ?? data.length,
    },
  };
}

/** `{data: {id: string}}`: operations 3 and 6. */
export function readIdEnvelope(value: unknown, where: Where): { id: string } {
  if (!isObject(value) || !isObject(value.data)) {
    throw malformed(where, `the body is ${describe(isObject(value) ? value.data : value)} where {data: {id}} was expected`);
  }
  const { id } = value.data;
  if (typeof id !== 'string' || id === '') throw malformed(where, `data.id is ${describe(id)}, not a non-empty string`);
  return { id };
}

/** `{status: 'success', message, data: []}`: operations 4 and 5 (any case of "success"). */
export function readSuccessEnvelope(value: unknown, where: Where): void {
  if (!isObject(value)) throw malformed(where, `the body is ${describe(value)}, not {status, message, data}`);
  const { status } = value;
  if (typeof status !== 'string' || status.toLowerCase() !== 'success') {
    throw malformed(where, `status is ${describe(status)}, not "success"`);
  }
}

/**
 * Send message: only the documented successes are a delivery: `{status: "Success", message,
 * data: []}` (platform notes), and a template's `{status: "success", message, data: {...}}`
 * answered 201 (a reseller's message-template page): any case of "success", whatever `data`
 * holds. A body whose status says error or failure is a refusal (`SendRefusedError`, with the
 * platform's message); anything else (an HTML maintenance page, JSON of another shape) is
 * malformed, which the retry policy turns into an unknown outcome: the message may have been
 * delivered.
 */
export function readSendAnswer(body: string, where: Where): void {
  const value = parseJsonBody(body, where);
  if (!isObject(value)) throw malformed(where, `the body is ${describe(value)}, not {status: "Success", message, data}`);
  const { status } = value;
  if (typeof status === 'string' && status.toLowerCase() === 'success') return;
  if (typeof status === 'string' && /^(error|fail|failed|failure)$/i.test(status)) {
    const serverMessage = serverMessageOf(value);
    throw new SendRefusedError(serverMessage === undefined ? where : { ...where, serverMessage });
  }
  throw malformed(where, `status is ${describe(status)}, not "Success"`);
}
