/**
 * The contacts of one channel, with an index from (field name, value) to contact ids so that a
 * search costs O(matches) whatever the number of contacts. Every change goes through here, which
 * keeps the index true.
 */
import type { Contact } from '../api/wire-types.js';
import type { ContactIdSequence } from './contact-id-sequence.js';

/** A contact to load through the admin API: every part optional. */
export interface ContactSeed {
  /** @default the next id of the platform-wide sequence */
  id?: string;
  custom_fields?: Record<string, string>;
  tags?: string[];
  /** Unix seconds. @default the emulator clock */
  created_at?: number;
}

/** The emulator's own record of a contact (a Map of fields, a Set of tags); `toContact` gives its wire form. */
interface EmulatedContact {
  id: string;
  fields: Map<string, string>;
  /** A Set keeps tags unique and in the order they were first added. */
  tags: Set<string>;
  createdAt: number;
  /** Order of arrival in this channel: search results are sorted by it (oldest first). */
  seq: number;
}

export interface SearchResult {
  total: number;
  contacts: Contact[];
}

/**
 * The form a value of a field is indexed and searched under: two values a search does not tell
 * apart have the same form.
 */
export type SearchFold = (name: string, value: string) => string;

/** Every value matched exactly (case and spaces count). */
export const EXACT_SEARCH: SearchFold = (_name, value) => value;

/**
 * The platform's match today (platform notes, "Values in queries"): the `email` field ignores
 * case, every other field is matched exactly.
 */
export const EMAIL_CASE_INSENSITIVE_SEARCH: SearchFold = (name, value) => (name === 'email' ? value.toLowerCase() : value);

export class ContactStore {
  private readonly byId = new Map<string, EmulatedContact>();
  private readonly byFieldValue = new Map<string, Map<string, Set<string>>>();
  private readonly activeSurveys = new Set<string>();
  private seq = 0;

  constructor(
    private readonly ids: ContactIdSequence,
    private readonly now: () => number,
    private readonly fold: SearchFold = EXACT_SEARCH,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): Contact | undefined {
    const stored = this.byId.get(id);
    return stored === undefined ? undefined : toContact(stored);
  }

  all(): Contact[] {
    return [...this.byId.values()].map(toContact);
  }

  create(fields: ReadonlyArray<readonly [string, string]>): Contact {
    return this.insert({ custom_fields: Object.fromEntries(fields) });
  }

  /** Stores a contact; throws when its id is already taken in this channel. */
  insert(seed: ContactSeed): Contact {
    if (seed.id !== undefined && this.byId.has(seed.id)) {
      throw new Error(`contact id "${seed.id}" already exists in this channel; delete it first or leave the id out`);
    }
    const id = seed.id ?? this.ids.allocate((candidate) => this.byId.has(candidate));
    this.ids.observe(id);
    const stored: EmulatedContact = {
      id,
      fields: new Map(),
      tags: new Set(seed.tags ?? []),
      createdAt: seed.created_at ?? Math.floor(this.now() / 1000),
      seq: this.seq++,
    };
    this.byId.set(id, stored);
    for (const [name, value] of Object.entries(seed.custom_fields ?? {})) this.setField(stored, name, value);
    return toContact(stored);
  }

  /** Sets the named fields only; returns false when there is no such contact. */
  updateFields(id: string, fields: ReadonlyArray<readonly [string, string]>): boolean {
    const stored = this.byId.get(id);
    if (stored === undefined) return false;
    for (const [name, value] of fields) this.setField(stored, name, value);
    return true;
  }

  /** Removes the named fields (v2's `null` value); returns false when there is no such contact. */
  clearFields(id: string, names: readonly string[]): boolean {
    const stored = this.byId.get(id);
    if (stored === undefined) return false;
    for (const name of names) {
      const previous = stored.fields.get(name);
      if (previous === undefined) continue;
      this.unindex(name, previous, id);
      stored.fields.delete(name);
    }
    return true;
  }

  addTags(id: string, tags: readonly string[]): boolean {
    const stored = this.byId.get(id);
    if (stored === undefined) return false;
    for (const tag of tags) stored.tags.add(tag);
    return true;
  }

  removeTags(id: string, tags: readonly string[]): boolean {
    const stored = this.byId.get(id);
    if (stored === undefined) return false;
    for (const tag of tags) stored.tags.delete(tag);
    return true;
  }

  /** True when contact `a` was stored before contact `b` (both must exist). */
  storedBefore(a: string, b: string): boolean {
    const first = this.byId.get(a);
    const second = this.byId.get(b);
    if (first === undefined || second === undefined) throw new Error(`no contact "${first === undefined ? a : b}" in this channel`);
    return first.seq < second.seq;
  }

  delete(id: string): boolean {
    const stored = this.byId.get(id);
    if (stored === undefined) return false;
    for (const [name, value] of stored.fields) this.unindex(name, value, id);
    this.byId.delete(id);
    this.activeSurveys.delete(id);
    return true;
  }

  /** Contacts whose field `name` matches `value` (by the store's fold), oldest first, `limit` from `offset`. */
  search(name: string, value: string, offset: number, limit: number): SearchResult {
    const ids = this.byFieldValue.get(name)?.get(this.fold(name, value));
    if (ids === undefined) return { total: 0, contacts: [] };
    const matches = [...ids].map((id) => this.byId.get(id)).filter((c): c is EmulatedContact => c !== undefined);
    matches.sort((a, b) => a.seq - b.seq);
    return { total: matches.length, contacts: matches.slice(offset, offset + limit).map(toContact) };
  }

  setSurvey(id: string, active: boolean): boolean {
    if (!this.byId.has(id)) return false;
    if (active) this.activeSurveys.add(id);
    else this.activeSurveys.delete(id);
    return true;
  }

  hasActiveSurvey(id: string): boolean {
    return this.activeSurveys.has(id);
  }

  /** Ids of the contacts with an active survey. */
  surveys(): string[] {
    return [...this.activeSurveys];
  }

  clear(): void {
    this.byId.clear();
    this.byFieldValue.clear();
    this.activeSurveys.clear();
  }

  private setField(stored: EmulatedContact, name: string, value: string): void {
    const previous = stored.fields.get(name);
    if (previous === value) return;
    if (previous !== undefined) this.unindex(name, previous, stored.id);
    stored.fields.set(name, value);
    let byValue = this.byFieldValue.get(name);
    if (byValue === undefined) {
      byValue = new Map();
      this.byFieldValue.set(name, byValue);
    }
    const folded = this.fold(name, value);
    let ids = byValue.get(folded);
    if (ids === undefined) {
      ids = new Set();
      byValue.set(folded, ids);
    }
    ids.add(stored.id);
  }

  private unindex(name: string, value: string, id: string): void {
    const byValue = this.byFieldValue.get(name);
    const folded = this.fold(name, value);
    const ids = byValue?.get(folded);
    if (byValue === undefined || ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) byValue.delete(folded);
  }
}

function toContact(stored: EmulatedContact): Contact {
  return {
    id: stored.id,
    custom_fields: Object.fromEntries(stored.fields),
    tags: [...stored.tags],
    created_at: stored.createdAt,
  };
}
