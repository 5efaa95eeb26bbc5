/**
 * Every failure of the API client: one base class with a stable `code`, one subclass per kind.
 * Context (operation, method, path, status) is carried on the error as properties; the message
 * names the operation and the URL path, never the token, the Authorization header or credentials.
 */
import type { AttachmentType } from '../limits.js';
import type { ApiOperation } from './wire-types.js';
import { ContactSyncError } from '../failure/contact-sync-error.js';

/** The stable codes of API errors: what reports and the pipeline switch on. */
export const API_ERROR_CODES = [
  'INVALID_TOKEN',
  'RATE_LIMITED',
  'METHOD_NOT_ALLOWED',
  'UNMATCHED_FILE_TYPE',
  'NO_SUCH_CONTACT',
  'FORBIDDEN',
  'SERVER_ERROR',
  'UNEXPECTED_STATUS',
  'NETWORK',
  'TIMEOUT',
  'MALFORMED_RESPONSE',
  'OUTCOME_UNKNOWN',
  'REQUEST_INVALID',
  'PAGE_LIMIT',
  'SEND_REFUSED',
  'API_UNAVAILABLE',
  'V2_CANNOT_CREATE',
  'MATCH_KEY_MISMATCH',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Where an error happened. */
export interface ApiErrorContext {
  operation: ApiOperation;
  /** HTTP method, when a request was built. */
  method?: string;
  /** Path of the request URL: no origin, no query, no credentials. */
  path?: string;
  /** HTTP status, when an answer arrived. */
  status?: number;
  /** The platform's `message`, list items joined with "; ". */
  serverMessage?: string;
  cause?: unknown;
}

export abstract class ApiError extends ContactSyncError<ApiErrorCode> {
  abstract override readonly code: ApiErrorCode;
  readonly operation: ApiOperation;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly status: number | undefined;
  readonly serverMessage: string | undefined;

  protected constructor(context: ApiErrorContext, problem: string) {
    const where = [context.operation, context.method, context.path].filter(Boolean).join(' ');
    super(`${where}: ${problem}`, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.operation = context.operation;
    this.method = context.method;
    this.path = context.path;
    this.status = context.status;
    this.serverMessage = context.serverMessage;
  }

  get context(): Readonly<Record<string, unknown>> {
    return { operation: this.operation, method: this.method, path: this.path, status: this.status };
  }

  /** What a report or a JSON log keeps of the error (the cause is left out on purpose). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      operation: this.operation,
      method: this.method,
      path: this.path,
      status: this.status,
    };
  }
}

function said(serverMessage: string | undefined): string {
  return serverMessage ? ` (the platform said: "${serverMessage}")` : '';
}

export class InvalidTokenError extends ApiError {
  readonly code = 'INVALID_TOKEN';
  /** A v1 channel token, or a v2 workspace's access token. */
  readonly tokenKind: 'channel' | 'workspace';
  constructor(context: ApiErrorContext & { tokenKind?: 'channel' | 'workspace' }) {
    const tokenKind = context.tokenKind ?? 'channel';
    super(
      { status: 401, ...context },
      `HTTP 401: the ${tokenKind} token is invalid${said(context.serverMessage)}; ` +
        (tokenKind === 'channel'
          ? 'check the `token` of the connection (generate it with the key icon next to the channel)'
          : "check the `token` of the connection (a workspace's access token, from the workspace's settings: Developer API)"),
    );
    this.tokenKind = tokenKind;
  }
}

export class RateLimitedError extends ApiError {
  readonly code = 'RATE_LIMITED';
  /** What the server's Retry-After asked for, in milliseconds; undefined when it sent none. */
  readonly retryAfterMs: number | undefined;
  constructor(context: ApiErrorContext & { retryAfterMs?: number }) {
    const wait = context.retryAfterMs === undefined ? '' : `, retry after ${context.retryAfterMs} ms`;
    super(
      { status: 429, ...context },
      `HTTP 429: too many requests${wait}${said(context.serverMessage)}; ` +
        'lower `rateLimits` of the connection or check that no other process uses the same token',
    );
    this.retryAfterMs = context.retryAfterMs;
  }
}

export class MethodNotAllowedError extends ApiError {
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(context: ApiErrorContext) {
    super(
      { status: 405, ...context },
      `HTTP 405: method not allowed for this path${said(context.serverMessage)}; ` +
        'check that `baseUrl` is the API root (paths start with /v1/)',
    );
  }
}

export class UnmatchedFileTypeError extends ApiError {
  readonly code = 'UNMATCHED_FILE_TYPE';
  readonly attachmentType: AttachmentType | undefined;
  constructor(context: ApiErrorContext & { attachmentType?: AttachmentType }) {
    const kind = context.attachmentType ?? 'attachment';
    super(
      { status: 403, ...context },
      `HTTP 403: unmatched file type: the file at the URL is not accepted as ${kind}` +
        `${said(context.serverMessage)}; send it with the attachment type that matches the file`,
    );
    this.attachmentType = context.attachmentType;
  }
}

export class NoSuchContactError extends ApiError {
  readonly code = 'NO_SUCH_CONTACT';
  readonly contactId: string | undefined;
  constructor(context: ApiErrorContext & { contactId?: string }) {
    const which = context.contactId === undefined ? 'the contact' : `contact "${context.contactId}"`;
    super(context, `HTTP ${context.status ?? 403}: ${which} does not exist on this channel${said(context.serverMessage)}`);
    this.contactId = context.contactId;
  }
}

export class ForbiddenError extends ApiError {
  readonly code = 'FORBIDDEN';
  constructor(context: ApiErrorContext) {
    // Only a refusal that talks about a field is about a field (docs/reliability.md, "Odd answers").
    const writesFields = context.operation === 'createContact' || context.operation === 'updateContact';
    const aboutField = context.serverMessage !== undefined && /field/i.test(context.serverMessage);
    super(
      { status: 403, ...context },
      `HTTP 403: refused${said(context.serverMessage)}` +
        (writesFields && aboutField ? '; a custom field must exist in the workspace before a value is written to it' : ''),
    );
  }
}

export class ServerError extends ApiError {
  readonly code = 'SERVER_ERROR';
  constructor(context: ApiErrorContext) {
    super(context, `HTTP ${context.status ?? 500}: server error${said(context.serverMessage)}`);
  }
}

/** A status the spec does not document for this operation (400, 409, a 404 on a collection...). */
export class UnexpectedStatusError extends ApiError {
  readonly code = 'UNEXPECTED_STATUS';
  constructor(context: ApiErrorContext & { hint?: string }) {
    super(
      context,
      `HTTP ${context.status ?? '?'}: unexpected answer${said(context.serverMessage)}` +
        (context.hint ? `; ${context.hint}` : ''),
    );
  }
}

export class NetworkError extends ApiError {
  readonly code = 'NETWORK';
  /** True when the connection was refused: the request never reached the server. */
  readonly connectionRefused: boolean;
  /** The system error code, like `ECONNRESET`. */
  readonly systemCode: string | undefined;
  constructor(context: ApiErrorContext & { connectionRefused: boolean; systemCode?: string }) {
    const what = context.connectionRefused
      ? 'connection refused; check `baseUrl` and that the server is running'
      : `network failure${context.systemCode ? ` (${context.systemCode})` : ''}`;
    super(context, what);
    this.connectionRefused = context.connectionRefused;
    this.systemCode = context.systemCode;
  }
}

export class TimeoutError extends ApiError {
  readonly code = 'TIMEOUT';
  readonly timeoutMs: number;
  constructor(context: ApiErrorContext & { timeoutMs: number }) {
    super(context, `no complete answer within ${context.timeoutMs} ms (the connection's \`timeouts.request\` in jobs.yaml)`);
    this.timeoutMs = context.timeoutMs;
  }
}

export class MalformedResponseError extends ApiError {
  readonly code = 'MALFORMED_RESPONSE';
  /** What is wrong with the answer. */
  readonly problem: string;
  constructor(context: ApiErrorContext & { problem: string }) {
    super(context, `the answer is not the documented one: ${context.problem}`);
    this.problem = context.problem;
  }
}

/**
 * A send answered 200 whose body says it was refused (`{"status": "error", "message": ...}`): not
 * delivered, so a later run may send it again (docs/reliability.md, "Odd answers").
 */
export class SendRefusedError extends ApiError {
  readonly code = 'SEND_REFUSED';
  constructor(context: ApiErrorContext) {
    super(context, `HTTP ${context.status ?? 200} with a body that refuses the message${said(context.serverMessage)}; it was not delivered`);
  }
}

/**
 * No call of the connection succeeded for too long (circuit breaker, src/api/connection-health.ts):
 * the platform is down or unreachable, and the job stops instead of trying every row.
 */
export class ApiUnavailableError extends ApiError {
  readonly code = 'API_UNAVAILABLE';
  /** The failure that tripped the breaker, for the record. */
  readonly lastFailure: ApiError | undefined;
  constructor(context: ApiErrorContext & { problem: string; lastFailure?: ApiError }) {
    super(context, context.problem);
    this.lastFailure = context.lastFailure;
  }
}

/**
 * A create or a send whose effect cannot be known (timeout, reset, dropped connection, 5xx):
 * it may have created the contact or delivered the message. Never retried blindly.
 */
export class OutcomeUnknownError extends ApiError {
  readonly code = 'OUTCOME_UNKNOWN';
  constructor(cause: ApiError) {
    const effect = cause.operation === 'createContact' ? 'the contact may have been created' : 'the message may have been delivered';
    // What came back, so the report says why: an HTML page, a 502 with the platform's message...
    const detail = cause instanceof MalformedResponseError ? `: ${cause.problem}` : cause.serverMessage ? `: the platform said "${cause.serverMessage}"` : '';
    super(
      { operation: cause.operation, method: cause.method, path: cause.path, status: cause.status, cause },
      `outcome unknown: ${effect} (${cause.code}${detail}); not retried, as a retry could do it twice`,
    );
  }
}

/** A request refused by the client before it left: it breaks a limit of the API. */
export class RequestInvalidError extends ApiError {
  readonly code = 'REQUEST_INVALID';
  /** The name of the broken limit, like `MAX_TAGS_PER_CALL`, when one applies. */
  readonly limit: string | undefined;
  constructor(context: ApiErrorContext & { problem: string; limit?: string }) {
    super(context, context.problem);
    this.limit = context.limit;
  }
}

/**
 * The paginator reached its hard cap with pages left: `timeouts.maxPages` for one key's search, or,
 * for a listing of a marker's contacts (`listing`), twice the pages its first page announced plus 10.
 */
export class PageLimitError extends ApiError {
  readonly code = 'PAGE_LIMIT';
  readonly maxPages: number;
  constructor(context: ApiErrorContext & PageLimitContext) {
    super(context, pageLimitProblem(context));
    this.maxPages = context.maxPages;
  }
}

interface PageLimitContext {
  maxPages: number;
  lastPage: number;
  /** A listing of the contacts a marker field holds, and the pages its first page announced. */
  listing?: { field: string; value: string; announced: number };
}

function pageLimitProblem({ maxPages, lastPage, listing }: PageLimitContext): string {
  if (listing === undefined) {
    return `the search has ${lastPage} pages, more than the cap of ${maxPages} (the connection's \`timeouts.maxPages\` in jobs.yaml); raise it or search by a more selective field`;
  }
  return (
    `the list of the contacts with ${listing.field}=${listing.value} announced ${listing.announced} pages on its first page ` +
    `and grew to ${lastPage} while it was read, past the cap of ${maxPages} (twice the pages announced, plus 10); ` +
    'contacts are being added with the marker faster than they can be read: run again when they are not'
  );
}

/**
 * A contact the platform's API v2 cannot create: v2 names a new contact by its email or phone and
 * needs a first name (spec/api-v2-notes.md, "Contacts"). Refused before any call: the row's data
 * must change, or the job must write those fields.
 */
export class V2CannotCreateError extends ApiError {
  readonly code = 'V2_CANNOT_CREATE';
  /** What the fields lack: `identifier` (neither email nor phone), `firstName`. */
  readonly missing: ReadonlyArray<'identifier' | 'firstName'>;
  constructor(missing: ReadonlyArray<'identifier' | 'firstName'>) {
    const lacks = missing.map((what) => (what === 'identifier' ? 'neither an email nor a phone' : 'no firstName')).join(' and ');
    super(
      { operation: 'createContact' },
      `API v2 cannot create this contact: it has ${lacks}; v2 creates a contact by its email or phone (in E.164 form), with a firstName: ` +
        'give the row an email or a phone and a first name (fields email, phone, firstName of the job), or use a v1 connection',
    );
    this.missing = missing;
  }
}

/**
 * A read that finds the contacts of a key (a search, a v2 list or read by email or phone)
 * answered with a contact whose key field holds another key: the platform, or a proxy in front
 * of it, ignored the filter. The contact is not the row's; nothing is written (issue 42).
 */
export class MatchKeyMismatchError extends ApiError {
  readonly code = 'MATCH_KEY_MISMATCH';
  /** The contact the answer gave, and what its key field holds ('' for nothing). */
  readonly contactId: string;
  readonly held: string;
  constructor(context: ApiErrorContext & { field: string; key: string; contactId: string; held: string }) {
    super(
      context,
      `the platform answered the read of ${context.field}=${JSON.stringify(context.key)} with contact ${context.contactId}, whose ${context.field} is ` +
        `${context.held === '' ? 'empty' : JSON.stringify(context.held)}: not this key, so nothing was written for it; the platform (or a proxy in front of it) ` +
        "ignored the read's filter: check the connection's baseUrl points at the platform itself, then run again",
    );
    this.contactId = context.contactId;
    this.held = context.held;
  }
}
