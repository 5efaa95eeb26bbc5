/**
 * The row hash: what lets a nightly re-run settle an unchanged row without mapping it.
 *
 * Mapping a row (the email and phone checks, the value maps, the tags) and hashing its draft is
 * most of what an unchanged row costs. But the draft is a pure function of the row's cells, the
 * header that names them, the job's mapping (key, fields, empty values, tags) and the code that
 * maps (the product's version). So the state store keeps, beside a key's draft hash, the hash of
 * the row that draft came from under that mapping: a row of the next run whose row hash is the
 * stored one would map to the stored draft, and is settled as the draft hash would settle it.
 *
 * Anything that could change the draft changes the fingerprint: a column renamed or moved, a
 * field, a transform, a default, the tags' settings (prune too), another version of contact-sync
 * or of the phone library it maps with.
 * A row hash that differs only sends the row through the full path (mapped, its draft hash
 * compared), which notes the new row hash when it finds the row unchanged: one run after such a
 * change is as slow as before, not wrong. docs/state.md, "Unchanged rows".
 */
import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Job } from '../../config/job-types.js';
import { canonicalJson, type CanonicalValue } from '../../state/canonical-json.js';

/** Bump when what is hashed changes meaning: every stored row hash then differs. */
const ROW_HASH_VERSION = 1;

/**
 * The installed libphonenumber-js: its metadata decides how a phone number is normalised, and an
 * `npm install` may update it under one version of contact-sync.
 */
const PHONE_LIBRARY_VERSION = (createRequire(import.meta.url)('libphonenumber-js/package.json') as { version: string }).version;

/**
 * The fingerprint of how `job` maps rows of a file with this header, for `rowHash`. Only what
 * decides a row's draft is in it: not the connection (its token is never hashed), the input's
 * path, the mode or the concurrency.
 */
export function mappingFingerprint(
  job: Pick<Job, 'key' | 'fields' | 'emptyValues' | 'tags'>,
  header: readonly string[],
  productVersion: string,
  phoneLibraryVersion: string = PHONE_LIBRARY_VERSION,
): string {
  const mapping = { key: job.key, fields: job.fields, emptyValues: job.emptyValues, tags: job.tags } as unknown as CanonicalValue;
  return hash('sha256', canonicalJson({ version: ROW_HASH_VERSION, product: productVersion, phone: phoneLibraryVersion, header: [...header], mapping }), 'base64url');
}

/**
 * SHA-256 of the fingerprint and the cells of a `SourceRow`, every cell in order, NUL between
 * them. No two rows share that text: a row has as many cells as the header has columns (the
 * header is in the fingerprint) and no cell holds a NUL (the reader fails such a row,
 * CSV_COLUMN_COUNT and CSV_INVALID_BYTES). It is a third cheaper than a JSON text of the cells.
 */
export function rowHash(fingerprint: string, cells: readonly string[]): string {
  return hash('sha256', `${fingerprint}\u0000${cells.join('\u0000')}`, 'base64url');
}
