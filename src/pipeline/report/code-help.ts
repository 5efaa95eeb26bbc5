/**
 * What each report code means and what to do about it: the failures section of the HTML report
 * shows it, and docs/reports.md lists the same words (a test keeps the two equal). Typed over the
 * union of codes, so a new code does not compile without its help.
 */
import type { ReportErrorCode } from './error-codes.js';

export interface CodeHelp {
  readonly meaning: string;
  readonly fix: string;
}

export const CODE_HELP: Readonly<Record<ReportErrorCode, CodeHelp>> = {
  CSV_UNCLOSED_QUOTE: { meaning: 'a quoted cell never closes; the reader resynchronised at the next line that parses', fix: "close the quote in the input; in rejected.csv, correct the cells under the header and delete the open quote's text after `error_message`" },
  CSV_COLUMN_COUNT: { meaning: 'the row has more or fewer cells than the header', fix: 'fix the row; extra cells are quoted in the message, and follow `error_message` in rejected.csv until the row is fixed; a short row has its missing cells empty and a last cell to delete once they are filled' },
  CSV_INVALID_BYTES: {
    meaning: "bytes that are not valid in `input.encoding`, or UTF-8 text read as a one-byte `input.encoding` (`RenÃ©e` for `Renée`)",
    fix: "set `input.encoding` to the file's own (e.g. `windows-1252`, or `utf-8` for the second) or re-export as UTF-8",
  },
  CSV_MALFORMED: { meaning: 'any other CSV syntax error (a quote inside an unquoted cell, a record too long)', fix: 'fix the row as the message says' },
  KEY_MISSING: { meaning: 'the key column is empty', fix: 'fill the key, or drop the row from the export' },
  INVALID_EMAIL: { meaning: 'the email cell is not an address', fix: 'fix or empty the cell' },
  INVALID_PHONE: { meaning: 'the phone cell is not a number the platform accepts', fix: 'write it as a valid number of its country (the message gives an example), or in international form (`+65...`)' },
  UNKNOWN_COUNTRY: {
    meaning: "the row's country cell (`country: {column}` of the phone transform) names no country, and the number has no `+` country code: it is not read as the default country's",
    fix: 'write an ISO code (`MX`, `MEX`) or a name (`Mexico`) in the country column, or the number in international form (`+52...`)',
  },
  PHONE_EXTENSION: {
    meaning: "the phone key has an extension (`x889`, `ext. 889`): the number alone, which a key is, is every extension's (a phone field with one is written without it and named in `warnings`, not failed)",
    fix: "write the key's number without the extension, or key the job on another column",
  },
  DUPLICATE_CONTACTS: { meaning: 'the key matches several contacts and `onDuplicate: fail`', fix: 'merge the contacts, or choose `onDuplicate: oldest` / `all`' },
  IDENTIFIER_HELD: {
    meaning: "a new key's contact would be created by the row's email or phone (API v2's create_or_update), which another key's contact holds: the create would overwrite that contact; nothing was written",
    fix: 'give the row an email or phone of its own (or none, so the contact is created by the other one), or merge the two customers on the platform and in the export',
  },
  DUPLICATE_ROWS: { meaning: 'the key is on several rows of the file and `onDuplicateRows: fail`; none of them is written', fix: 'fix the export so the key is on one row, or set `onDuplicateRows` to `last`, `first` or `merge`' },
  ABORTED: { meaning: 'the job stopped (see `aborted` in the summary) before this row was sent', fix: 'fix what stopped the job and run again: the row was not written' },
  INVALID_TOKEN: { meaning: '401: the channel token was refused (the job aborts, see below)', fix: 'fix the token the connection reads' },
  RATE_LIMITED: { meaning: '429 still after the retries', fix: 'lower the connection\'s `rateLimits`, or check another integration using the token' },
  METHOD_NOT_ALLOWED: { meaning: '405: the platform does not offer this call here', fix: 'report it: the client called a route the spec does not have' },
  UNMATCHED_FILE_TYPE: { meaning: 'a message attachment\'s URL names a file its type does not take (a .pdf sent as image)', fix: 'fix the message\'s attachment URL' },
  NO_SUCH_CONTACT: { meaning: 'the contact (or a message\'s recipient) does not exist on this channel', fix: 'run again: the row is matched afresh' },
  FORBIDDEN: { meaning: '403 for another reason, e.g. a custom field that does not exist in the workspace', fix: 'create the field on the platform, or fix `fields`' },
  SERVER_ERROR: { meaning: '5xx still after the retries', fix: 'run again later' },
  UNEXPECTED_STATUS: { meaning: 'a status the spec does not list', fix: 'run again; report it if it persists' },
  NETWORK: { meaning: 'the connection failed (refused, reset, DNS)', fix: 'check the base URL and the network, then run again' },
  TIMEOUT: { meaning: 'no complete answer within the request timeout', fix: 'run again; the platform is slow' },
  MALFORMED_RESPONSE: { meaning: 'the answer is not the documented shape (a v2 list whose cursor loops, an answer over 8 MiB included)', fix: 'run again; report it if it persists' },
  MATCH_KEY_MISMATCH: {
    meaning: "a read of the row's key (a search, a v2 list or read by email or phone, the search after a lost create) answered with a contact whose key field holds another key: the platform or a proxy ignored the filter; nothing was written and the state store does not record the key",
    fix: "check that the connection's `baseUrl` reaches the platform itself (no proxy rewriting the search), then run again",
  },
  OUTCOME_UNKNOWN: { meaning: 'a create whose answer was lost three times and that a search could not find', fix: 'run again: a state store or the search adopts it, never a second contact' },
  REQUEST_INVALID: { meaning: 'the client refused to send a request the spec forbids (e.g. a value too long); on API v2, a request the platform refused with 400 (a custom field the workspace lacks, a malformed email)', fix: 'fix the cell the message names' },
  PAGE_LIMIT: { meaning: 'a search for the key has more pages than the page cap (`timeouts.maxPages`); or, stopping the job, the list of the marked contacts (`match.prefetch`, reconcile) grew past twice the pages its first page announced, plus 10', fix: 'the key matches too many contacts: use a more selective `keyField`, or merge them on the platform; a list that grew: run again when contacts are no longer being added with the marker' },
  V2_CANNOT_CREATE: {
    meaning:
      'API v2 creates a contact by its email or phone, with a first name: the row has neither an email nor a phone (in E.164 form), or no firstName. Refused before the create leaves; the same row on the next run fails again with no call (its message says it was not searched again); on a reconcile\'s `missing` line, the key no run can create',
    fix: 'give the row an email or a phone and a first name (the job\'s fields `email`, `phone`, `firstName`), or sync it through a v1 connection',
  },
  SEND_REFUSED: { meaning: 'a send answered 200 with a body that refuses it (`status: error`): the message was not delivered', fix: 'read the platform\'s message; a later run sends it again' },
  API_UNAVAILABLE: { meaning: 'no call of the connection succeeded for too long, the platform down or answering 429 every time (the circuit breaker; the job aborts, see below)', fix: 'check the platform\'s status, then run again; or raise `timeouts.unavailableAfter*`' },
  MAX_ERRORS: {
    meaning: 'rows the platform failed crossed `--max-errors` / `maxErrors` (rows refused for their own data do not count)',
    fix: 'read the `error_code` of the failed rows in results.csv: fix what the platform refuses (the token, a field, its status), then run again',
  },
  RATE_LIMITER_LOST: { meaning: 'the shared rate limit\'s Redis went away mid-run', fix: 'check the Redis server, then run again' },
  STATE_WRITE_FAILED: {
    meaning: 'the state store could not be written or read (full disk, permissions, another process holding it, a damaged file)',
    fix: 'the message says which: free space or fix permissions; let the other process finish; restore a damaged file from a backup or `state reset` it; then run again: what was confirmed is kept',
  },
  REPORT_WRITE_FAILED: { meaning: 'a report file could not be written (a full disk, a lost mount); the files end at their last whole row and no further row was taken', fix: 'free space on the report folder\'s disk, or choose another with `--report-dir`, then run again; a link or folder at a report\'s name (never written through): remove it; a folder this user may not write: make it writable' },
  INPUT_READ_FAILED: { meaning: 'the input could not be read to its end (an I/O error, gzip data cut short); the rows before the break were taken, the rest not', fix: 'fix or copy the input again, then run again: the rows already written settle with no call' },
  UNEXPECTED: { meaning: 'an error that is neither a row\'s nor the platform\'s: a bug', fix: 'report it with the message; run again' },
};
