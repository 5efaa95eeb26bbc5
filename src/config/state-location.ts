/**
 * Where a job's state lives, as `state:` says it (docs/configuration.md, `state:`): a SQLite file
 * (a path, the default), a PostgreSQL database (a `postgres://` or `postgresql://` URL, or
 * `{url, schema}`), or nowhere (`false`). A value that looks like a URL (`scheme://`) is never a
 * file path: before issue 44, `state: "postgres://..."` made a SQLite file at a relative path
 * holding the password in its name (docs/decisions.md, "A state URL is never a path").
 */
import { stripUrlAuth } from '../api/strip-url-auth.js';

/** The schemes of a PostgreSQL state store. */
export const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'] as const;

/** The schema a PostgreSQL state store's tables live in unless `state: {url, schema}` names another. */
export const DEFAULT_STATE_SCHEMA = 'contact_sync';

/**
 * A schema name PostgreSQL reads alike quoted or not: lower-case letters, digits and `_`, not
 * starting with a digit, at most 63 bytes (the adapter's own check, `pg-schema.ts`, is the same).
 */
export const STATE_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** The forms `state:` accepts, for the fix part of a message. */
export const STATE_FORMS =
  'a file path (SQLite, e.g. .contact-sync/crm.db), false, a PostgreSQL URL (postgres://USER:PASSWORD@HOST:5432/DATABASE, ${ENV} allowed) or {url: postgres://..., schema: contact_sync}';

/** `scheme://` at the start: what a URL looks like, whatever its scheme. */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** A job's state in PostgreSQL: the URL as written (with its password: only the adapter reads it) and the schema of its tables. */
export interface PostgresState {
  readonly kind: 'postgres';
  readonly url: string;
  readonly schema: string;
}

/**
 * A job's `state:`, normalised: a SQLite file's absolute path, a PostgreSQL database, or false
 * for none. Files stay plain strings, as before issue 44: every user that needs a file narrows
 * with `typeof state === 'string'`.
 */
export type StateSpec = string | false | PostgresState;

/** Whether `text` looks like a URL (`scheme://...`): such a value is never taken for a file path. */
export function looksLikeUrl(text: string): boolean {
  return URL_LIKE.test(text.trim());
}

/** The scheme of a URL-like text, lower-cased, without `://` (for messages: never the rest). */
function schemeOf(text: string): string {
  return (/^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text.trim())?.[1] ?? '').toLowerCase();
}

/**
 * Why a `state:` text that looks like a URL cannot be a PostgreSQL state store; undefined when
 * it can. The message never holds the text: it may hold a password.
 */
export function stateUrlProblem(text: string): string | undefined {
  const scheme = schemeOf(text);
  if (!(POSTGRES_SCHEMES as readonly string[]).includes(`${scheme}:`)) {
    return `is a ${scheme}:// URL, which no state store takes (a URL is never taken for a file path); write ${STATE_FORMS}`;
  }
  if (!URL.canParse(text.trim())) {
    return (
      `is a ${scheme}:// URL that does not parse (the value is not shown: it may hold a password); write postgres://USER:PASSWORD@HOST:PORT/DATABASE, ` +
      'with any @, :, / or space in the user or password percent-encoded (%40, %3A, %2F, %20)'
    );
  }
  const url = new URL(text.trim());
  if (url.hostname === '' && !url.searchParams.has('host')) return `names no host (the value is not shown: it may hold a password); write ${scheme}://USER:PASSWORD@HOST:PORT/DATABASE`;
  if (url.port !== '' && Number(url.port) === 0) return `names port 0; write the port PostgreSQL listens on (5432 unless set otherwise)`;
  return undefined;
}

/** A `state:` text, normalised: a PostgreSQL state (the default schema), or a file path as given (resolved by the caller). */
export function stateOfText(text: string): PostgresState | string {
  return looksLikeUrl(text) ? { kind: 'postgres', url: text.trim(), schema: DEFAULT_STATE_SCHEMA } : text;
}

/** A PostgreSQL URL without its password (or any credential), for messages, logs and reports. */
export function shownStateUrl(url: string): string {
  if (!URL.canParse(url)) return stripUrlAuth(url);
  const parsed = new URL(url);
  // The user stays (it says which role the store connects as); the password goes.
  const user = parsed.username;
  const stripped = new URL(stripUrlAuth(parsed));
  stripped.username = user;
  return stripped.href;
}

/**
 * Where the state lives, in words for messages: the file's path, or the database's URL without
 * its password and `#schema` (as the adapter's `path` names it); '' for none.
 */
export function stateLocation(state: StateSpec): string {
  if (state === false) return '';
  if (typeof state === 'string') return state;
  return `${shownStateUrl(state.url)}#${state.schema}`;
}
