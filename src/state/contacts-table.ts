/**
 * What the platform confirmed for each key (table `contacts`): the contact id, the custom fields
 * last confirmed written (merged over every write), the tags known present, the tags this job
 * added (`tags.prune`, schema version 4), the hash of the last draft written in full and the row
 * hash it came from (schema version 5); and the keys whose create was sent without a confirmed
 * answer, with the run that sent it (table `pending_creates`, its run since schema version 7),
 * which a confirmed or observed contact settles in the same transaction. docs/state.md.
 *
 * Reads for the row loop: `readAhead` (the lookahead's brief of a few dozen keys at a time) and
 * `scan` (every key, for `onMissing`); both tell whether a key is in the departed journal
 * (departed-keys.ts). Row hash notes are held here and written a few hundred at a time.
 *
 * `markPending` is one statement that the store commits fsynced (`StateStore`'s `synchronous =
 * FULL` writes): a lost mark could create a contact twice.
 */
import type Database from 'better-sqlite3';
import type { Departure } from './departed-keys.js';
import { parseFields, parseTags } from './json-columns.js';
import { trustedOn, type IdSurface, type KnownContact, type StoredContact } from './known-contact.js';

/** The store's brief row of a key, as `readAhead` reads it: enough to settle a row by its row hash. */
export interface StoredContactBrief extends Pick<StoredContact, 'key' | 'surface' | 'draftHash' | 'rowHash'> {
  /** The id of the key's contact (read without its fields and tags). */
  readonly contactId: string;
  /** `onMissing` acted on the key (it is in the departed journal). */
  readonly departed: boolean;
  /**
   * The key's full record, parsed on the first call (parsing the fields and tags costs more than
   * the rest of an unchanged row, and reading them a third more than the brief); undefined when
   * only the brief was read.
   */
  record(): StoredContact | undefined;
}

/** What one confirmed write (or the writes of one row) did to a contact. */
export interface ConfirmedWrite {
  /** The contact written. The id a create returned; never the id an update answered. */
  readonly contactId: string;
  /** The surface of the api that confirmed the write (`api.surface.name`): where `contactId` is valid. */
  readonly surface: IdSurface;
  /** Fields just written; merged over the fields known for this contact. @default {} */
  readonly fields?: Readonly<Record<string, string>>;
  /** Tags just added. @default [] */
  readonly tagsAdded?: readonly string[];
  /** Tags just removed; they leave the known set. @default [] */
  readonly tagsRemoved?: readonly string[];
  /**
   * `draftHash(draft)` when every operation of the row's draft was confirmed, else null: a null
   * hash makes the next run compare the row again instead of calling it unchanged.
   */
  readonly draftHash: string | null;
  /** The row hash of the row whose draft `draftHash` is; stored only with a draft hash. @default null */
  readonly rowHash?: string | null;
}

/** A contact as just read from the platform (with our confirmed writes applied). */
export interface ObservedContact {
  readonly contactId: string;
  /** The surface of the api that read the contact (`api.surface.name`): where `contactId` is valid. */
  readonly surface: IdSurface;
  /** Every custom field of the contact; replaces the known fields. */
  readonly fields: Readonly<Record<string, string>>;
  /** Every tag of the contact; replaces the known tags. */
  readonly tags: readonly string[];
  /** The tags the row's writes added (they become the job's). @default [] */
  readonly tagsAdded?: readonly string[];
  /** The tags the row's writes removed. @default [] */
  readonly tagsRemoved?: readonly string[];
  /** As in `ConfirmedWrite`. */
  readonly draftHash: string | null;
  /** As in `ConfirmedWrite`. @default null */
  readonly rowHash?: string | null;
  /**
   * The contact was not read: what the store knew plus a confirmed call (undo's tag for deletion,
   * which makes no read). Its time of last read (`verified_at`) stays as it was, so a later run does
   * not take the record for a read. @default false
   */
  readonly unread?: boolean;
}

/** One known key, as `scanKeys` visits it: its record's contact, and whether it departed. */
export interface ScannedKey extends Pick<StoredContact, 'key' | 'surface' | 'contact'> {
  /** `onMissing` acted on it already (it is in the departed journal). */
  readonly departed: boolean;
}

/** A `contacts` row as stored (both adapters: the PostgreSQL one adds its job_id). */
export interface ContactRow {
  key: string;
  contact_id: string;
  fields_json: string;
  tags_json: string;
  draft_hash: string | null;
  updated_at: number;
  job_tags_json: string | null;
  row_hash: string | null;
  surface: IdSurface;
  verified_at: number | null;
}

/** A contacts row's values, in the order of its columns (both adapters' upserts). */
export type ContactParams = [
  key: string,
  contactId: string,
  fieldsJson: string,
  tagsJson: string,
  draftHash: string | null,
  updatedAt: number,
  jobTagsJson: string | null,
  rowHash: string | null,
  surface: IdSurface,
];

type BriefRow = [key: string, contactId: string, surface: IdSurface, draftHash: string | null, rowHash: string | null, departed: number];

/** Row hash notes held before they are written in one transaction. */
const ROW_HASH_NOTES = 512;

/** Keys read by one statement of `readAhead` (the row lookahead reads 64 at a time). */
const READ_AHEAD_KEYS = 64;

export class ContactsTable {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #getContact: Database.Statement<[string], ContactRow>;
  readonly #upsertContact: Database.Statement<ContactParams>;
  readonly #deleteContact: Database.Statement<[string]>;
  readonly #listContacts: Database.Statement<[number], ContactRow>;
  readonly #scanContacts: Database.Statement<[], ContactRow & { departed: number }>;
  readonly #knows: Database.Statement<[string], { one: number }>;
  readonly #knowsOn: Database.Statement<[string, IdSurface], { one: number }>;
  readonly #byVerified: Database.Statement<[], ContactRow & { departed: number }>;
  readonly #markVerified: Database.Statement<[number, string, string]>;
  readonly #markVerifiedAll: (keys: ReadonlyArray<readonly [key: string, contactId: string]>, at: number) => void;
  readonly #countContacts: Database.Statement<[], { n: number }>;
  readonly #markPending: Database.Statement<[string, number, number | null]>;
  readonly #clearPending: Database.Statement<[string]>;
  readonly #isPending: Database.Statement<[string], { one: number }>;
  readonly #pendingRun: Database.Statement<[string], { run_id: number | null }>;
  readonly #listPending: Database.Statement<[], { key: string }>;
  readonly #countPending: Database.Statement<[], { n: number }>;
  readonly #deleteAll: Database.Statement<[]>;
  readonly #deleteAllPending: Database.Statement<[]>;
  readonly #recordConfirmed: (key: string, write: ConfirmedWrite) => void;
  readonly #recordObserved: (key: string, observed: ObservedContact) => void;
  readonly #readAhead: (keys: readonly string[], whole: (brief: StoredContactBrief) => boolean) => Map<string, StoredContactBrief>;
  readonly #noteRowHash: Database.Statement<[string, string, string]>;
  readonly #writeRowHashNotes: (notes: ReadonlyArray<[string, string, string]>) => void;
  #rowHashNotes: Array<[rowHash: string, key: string, draftHash: string]> = [];
  /** `readAhead`'s statements, by what they read and the number of keys they take. */
  readonly #readAheadStatements = new Map<string, Database.Statement<string[]>>();

  constructor(db: Database.Database, now: () => number) {
    this.#db = db;
    this.#now = now;
    this.#getContact = db.prepare('SELECT * FROM contacts WHERE key = ?');
    this.#upsertContact = db.prepare(
      `INSERT INTO contacts (key, contact_id, fields_json, tags_json, draft_hash, updated_at, job_tags_json, row_hash, surface)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET contact_id = excluded.contact_id, fields_json = excluded.fields_json,
         tags_json = excluded.tags_json, draft_hash = excluded.draft_hash, updated_at = excluded.updated_at,
         job_tags_json = excluded.job_tags_json, row_hash = excluded.row_hash, surface = excluded.surface`,
    );
    this.#deleteContact = db.prepare('DELETE FROM contacts WHERE key = ?');
    this.#listContacts = db.prepare('SELECT * FROM contacts ORDER BY key LIMIT ?');
    this.#scanContacts = db.prepare('SELECT c.*, d.key IS NOT NULL AS departed FROM contacts c LEFT JOIN departed d ON d.key = c.key ORDER BY c.key');
    this.#knows = db.prepare('SELECT 1 AS one FROM contacts WHERE key = ?');
    this.#knowsOn = db.prepare('SELECT 1 AS one FROM contacts WHERE key = ? AND surface = ?');
    // NULL first in SQLite's ascending order: a key never verified comes before any verified one.
    this.#byVerified = db.prepare('SELECT c.*, EXISTS (SELECT 1 FROM departed d WHERE d.key = c.key) AS departed FROM contacts c ORDER BY c.verified_at, c.key');
    this.#markVerified = db.prepare('UPDATE contacts SET verified_at = ? WHERE key = ? AND contact_id = ?');
    const markVerifiedAll = db.transaction((keys: ReadonlyArray<readonly [string, string]>, at: number): void => {
      for (const [key, contactId] of keys) this.#markVerified.run(at, key, contactId);
    });
    this.#markVerifiedAll = (keys, at) => markVerifiedAll.immediate(keys, at);
    this.#countContacts = db.prepare('SELECT count(*) AS n FROM contacts');
    this.#markPending = db.prepare(
      'INSERT INTO pending_creates (key, marked_at, run_id) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET marked_at = excluded.marked_at, run_id = excluded.run_id',
    );
    this.#clearPending = db.prepare('DELETE FROM pending_creates WHERE key = ?');
    this.#isPending = db.prepare('SELECT 1 AS one FROM pending_creates WHERE key = ?');
    this.#pendingRun = db.prepare('SELECT run_id FROM pending_creates WHERE key = ?');
    this.#listPending = db.prepare('SELECT key FROM pending_creates ORDER BY key');
    this.#countPending = db.prepare('SELECT count(*) AS n FROM pending_creates');
    this.#deleteAll = db.prepare('DELETE FROM contacts');
    this.#deleteAllPending = db.prepare('DELETE FROM pending_creates');

    const recordConfirmed = db.transaction((key: string, write: ConfirmedWrite): void => {
      this.#upsertContact.run(...confirmedRow(key, this.#getContact.get(key), write, this.#now()));
      // A confirmed id settles a create that was pending for the key.
      this.#clearPending.run(key);
    });
    this.#recordConfirmed = (key, write) => recordConfirmed.immediate(key, write);

    const recordObserved = db.transaction((key: string, observed: ObservedContact): void => {
      const now = this.#now();
      this.#upsertContact.run(...observedRow(key, this.#getContact.get(key), observed, now));
      // Read from the platform just now (a search, a reconcile): as good as a verification.
      if (observed.unread !== true) this.#markVerified.run(now, key, observed.contactId);
      this.#clearPending.run(key);
    });
    this.#recordObserved = (key, observed) => recordObserved.immediate(key, observed);

    this.#noteRowHash = db.prepare('UPDATE contacts SET row_hash = ? WHERE key = ? AND draft_hash = ?');
    this.#writeRowHashNotes = db.transaction((notes: ReadonlyArray<[string, string, string]>): void => {
      for (const note of notes) this.#noteRowHash.run(...note);
    });
    this.#readAhead = db.transaction((keys: readonly string[], whole: (brief: StoredContactBrief) => boolean): Map<string, StoredContactBrief> => {
      // The whole rows asked for, read once every brief is: a brief's `contact()` looks here.
      const rows = new Map<string, ContactRow>();
      const briefs = new Map<string, StoredContactBrief>();
      for (const some of chunks(keys, READ_AHEAD_KEYS)) {
        for (const [key, contactId, surface, draftHash, rowHash, departed] of this.#readAheadStatement('brief', some.length).all(...some) as BriefRow[]) {
          briefs.set(key, storedContactBrief({ key, contactId, surface, draftHash, rowHash, departed: departed === 1 }, rows));
        }
      }
      for (const some of chunks([...briefs.values()].filter(whole).map((brief) => brief.key), READ_AHEAD_KEYS)) {
        for (const row of this.#readAheadStatement('whole', some.length).all(...some) as ContactRow[]) rows.set(row.key, row);
      }
      return briefs;
    });
  }

  get(key: string): StoredContact | undefined {
    const row = this.#getContact.get(key);
    return row === undefined ? undefined : toStoredContact(row);
  }

  /** Whether the table holds a contact for `key` (whose id came from `surface`, when given). */
  knows(key: string, surface?: IdSurface): boolean {
    return (surface === undefined ? this.#knows.get(key) : this.#knowsOn.get(key, surface)) !== undefined;
  }

  /** Keys with a known contact. */
  count(): number {
    return this.#countContacts.get()?.n ?? 0;
  }

  /** The known keys among `keys`, from one snapshot (see `StateStore.readAhead`). */
  readAhead(keys: readonly string[], whole: (brief: StoredContactBrief) => boolean): Map<string, StoredContactBrief> {
    return this.#readAhead(keys, whole);
  }

  /** The first `limit` known contacts in key order (`Infinity`: all). */
  list(limit: number): StoredContact[] {
    // SQLite reads a negative LIMIT as "no limit".
    const bound = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;
    return this.#listContacts.all(bound).map(toStoredContact);
  }

  /** Visits every known key in key order, from one snapshot, with whether it is in the departed journal. */
  scan(visit: (key: ScannedKey) => void): void {
    for (const row of this.#scanContacts.iterate()) {
      visit({ key: row.key, surface: row.surface, contact: contactOf(row), departed: row.departed === 1 });
    }
  }

  /**
   * Visits the known keys least recently verified first (never verified first, then by key), from
   * one snapshot, with their whole records and whether they departed, until `visit` returns false.
   */
  scanByVerified(visit: (key: ScannedKey & { readonly record: StoredContact }) => boolean): void {
    for (const row of this.#byVerified.iterate()) {
      const record = toStoredContact(row);
      if (!visit({ key: row.key, surface: row.surface, contact: record.contact, departed: row.departed === 1, record })) break;
    }
  }

  /** The keys' contacts were read and found (or repaired to) what the table holds: verified at `at`, in one transaction. */
  markVerified(keys: ReadonlyArray<readonly [key: string, contactId: string]>, at: number): void {
    if (keys.length > 0) this.#markVerifiedAll(keys, at);
  }

  /**
   * A write the platform confirmed, in one transaction: fields merge over those known for the same
   * contact (a different contact id starts afresh), tags added join the known set (and the job's)
   * and tags removed leave them, and a create pending for the key is cleared.
   */
  recordConfirmed(key: string, write: ConfirmedWrite): void {
    this.#recordConfirmed(key, write);
  }

  /** A contact as read from the platform replaces what is known of the key, in one transaction; a create pending for it is cleared. */
  recordObserved(key: string, observed: ObservedContact): void {
    this.#recordObserved(key, observed);
  }

  /**
   * The key's contact follows what `onMissing` did to it, if it is the contact the table knows:
   * fields and tags as the departure left them, its draft and row hashes cleared. One statement,
   * with no transaction of its own: `StateStore.recordDeparture` runs it with the departed journal's.
   */
  applyDeparture(key: string, departure: Departure): void {
    const known = this.#getContact.get(key);
    if (known !== undefined && known.contact_id === departure.contactId && trustedOn(known, departure.surface)) {
      const fields = { ...parseFields(known.fields_json), ...departure.fields };
      const tags = new Set(parseTags(known.tags_json));
      for (const tag of departure.tagsAdded ?? []) tags.add(tag);
      for (const tag of departure.tagsRemoved ?? []) tags.delete(tag);
      // The departure's tags are not the row's: they are not the job's for prune. A null hash
      // makes the key's row, if it comes back, compared with what the contact holds now.
      const jobTags = nextJobTags(known.job_tags_json, [], departure.tagsRemoved);
      this.#upsertContact.run(key, known.contact_id, JSON.stringify(fields), JSON.stringify([...tags].sort()), null, this.#now(), jobTags, null, known.surface);
    }
  }

  /** Forgets the key's contact. */
  delete(key: string): void {
    this.#deleteContact.run(key);
  }

  /** Notes a row hash, held and written with a few hundred others (see `StateStore.noteRowHash`). */
  noteRowHash(key: string, draftHash: string, rowHash: string): void {
    this.#rowHashNotes.push([rowHash, key, draftHash]);
    if (this.#rowHashNotes.length >= ROW_HASH_NOTES) this.flushRowHashNotes();
  }

  /** Writes the row hash notes held, in one transaction. */
  flushRowHashNotes(): void {
    if (this.#rowHashNotes.length === 0) return;
    const notes = this.#rowHashNotes;
    this.#rowHashNotes = [];
    this.#writeRowHashNotes(notes);
  }

  /** Journals that a create for `key` is about to be sent by run `runId` (null: none known; the store fsyncs it). */
  markPending(key: string, runId: number | null): void {
    this.#markPending.run(key, this.#now(), runId);
  }

  /**
   * The create pending for `key`: the run that sent it (null: not known, marked before schema
   * version 7 or with no run started), or undefined when no create is pending for the key.
   */
  pendingCreate(key: string): { readonly runId: number | null } | undefined {
    const row = this.#pendingRun.get(key);
    return row === undefined ? undefined : { runId: row.run_id };
  }

  clearPending(key: string): void {
    this.#clearPending.run(key);
  }

  isPending(key: string): boolean {
    return this.#isPending.get(key) !== undefined;
  }

  /** Keys whose create was sent without a confirmed answer, sorted. */
  pending(): string[] {
    return this.#listPending.all().map((row) => row.key);
  }

  pendingCount(): number {
    return this.#countPending.get()?.n ?? 0;
  }

  /** Forgets every contact and pending create (`state reset --keep-messages`, in the store's transaction). */
  deleteAll(): void {
    this.#deleteAll.run();
    this.#deleteAllPending.run();
  }

  #readAheadStatement(what: 'brief' | 'whole', count: number): Database.Statement<string[]> {
    const name = `${what}:${count}`;
    let statement = this.#readAheadStatements.get(name);
    if (statement === undefined) {
      const keys = `(${new Array(count).fill('?').join(', ')})`;
      statement =
        what === 'brief'
          ? // Raw rows (arrays): a third faster than objects for the million rows of a re-run.
            this.#db
              .prepare<string[]>(`SELECT c.key, c.contact_id, c.surface, c.draft_hash, c.row_hash, EXISTS (SELECT 1 FROM departed d WHERE d.key = c.key) FROM contacts c WHERE c.key IN ${keys}`)
              .raw(true)
          : this.#db.prepare<string[]>(`SELECT * FROM contacts WHERE key IN ${keys}`);
      this.#readAheadStatements.set(name, statement);
    }
    return statement;
  }
}

/** The job's tags after a write: what it added joins them, what it removed leaves them; JSON, sorted. */
export function nextJobTags(earlierJson: string | null, added: readonly string[] = [], removed: readonly string[] = []): string | null {
  if (earlierJson === null && added.length === 0) return null;
  const tags = new Set(earlierJson === null ? [] : parseTags(earlierJson));
  for (const tag of added) tags.add(tag);
  for (const tag of removed) tags.delete(tag);
  return JSON.stringify([...tags].sort());
}

export function contactOf(row: ContactRow): KnownContact {
  return { id: row.contact_id, custom_fields: parseFields(row.fields_json), tags: parseTags(row.tags_json) };
}

export function toStoredContact(row: ContactRow): StoredContact {
  return {
    key: row.key,
    surface: row.surface,
    contact: contactOf(row),
    jobTags: row.job_tags_json === null ? null : parseTags(row.job_tags_json),
    draftHash: row.draft_hash,
    rowHash: row.row_hash,
    updatedAt: row.updated_at,
    ...(row.verified_at === null ? {} : { verifiedAt: row.verified_at }),
  };
}

/** A brief whose whole record is the one `rows` holds for its key, once read. */
/**
 * The key's contacts row after a write the platform confirmed (both adapters): fields merge over
 * those known for the same contact, tags added join the known set (and the job's) and tags
 * removed leave them. Values known for another contact (the key's contact was deleted and created
 * anew, or an id of another surface, which names nothing here) say nothing about this one.
 */
export function confirmedRow(key: string, known: ContactRow | undefined, write: ConfirmedWrite, now: number): ContactParams {
  const sameContact = known !== undefined && known.contact_id === write.contactId && trustedOn(known, write.surface);
  const fields = { ...(sameContact ? parseFields(known.fields_json) : {}), ...write.fields };
  const tags = new Set(sameContact ? parseTags(known.tags_json) : []);
  for (const tag of write.tagsAdded ?? []) tags.add(tag);
  for (const tag of write.tagsRemoved ?? []) tags.delete(tag);
  const jobTags = nextJobTags(sameContact ? known.job_tags_json : null, write.tagsAdded, write.tagsRemoved);
  return [key, write.contactId, JSON.stringify(fields), JSON.stringify([...tags].sort()), write.draftHash, now, jobTags, rowHashOf(write), write.surface];
}

/**
 * The key's contacts row after its contact was read from the platform (both adapters): what was
 * read replaces what was known; the job's tags the contact no longer has (removed by hand) are no
 * longer the job's.
 */
export function observedRow(key: string, known: ContactRow | undefined, observed: ObservedContact, now: number): ContactParams {
  const tags = [...new Set(observed.tags)].sort();
  const present = new Set(tags);
  const earlier =
    known !== undefined && known.contact_id === observed.contactId && trustedOn(known, observed.surface) && known.job_tags_json !== null ? parseTags(known.job_tags_json) : null;
  const kept = earlier === null ? null : JSON.stringify(earlier.filter((tag) => present.has(tag)));
  const jobTags = nextJobTags(kept, observed.tagsAdded, observed.tagsRemoved);
  return [key, observed.contactId, JSON.stringify({ ...observed.fields }), JSON.stringify(tags), observed.draftHash, now, jobTags, rowHashOf(observed), observed.surface];
}

export function storedContactBrief(brief: Omit<StoredContactBrief, 'record'>, rows: ReadonlyMap<string, ContactRow>): StoredContactBrief {
  const { key } = brief;
  let record: StoredContact | undefined;
  return {
    key,
    contactId: brief.contactId,
    surface: brief.surface,
    draftHash: brief.draftHash,
    rowHash: brief.rowHash,
    departed: brief.departed,
    record: () => {
      if (record === undefined) {
        const row = rows.get(key);
        if (row !== undefined) record = toStoredContact(row);
      }
      return record;
    },
  };
}

function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/** A row hash is only ever stored with the draft hash it stands for. */
export function rowHashOf(write: { readonly draftHash: string | null; readonly rowHash?: string | null }): string | null {
  return write.draftHash === null ? null : (write.rowHash ?? null);
}
