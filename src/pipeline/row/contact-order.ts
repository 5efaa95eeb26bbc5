/**
 * The one order in which the contacts of a key are considered: oldest first. `created_at` is in
 * whole seconds, so ties happen; they are broken by the id (numeric ids compared by length, then
 * as text), so every choice between contacts (`onDuplicate: oldest | newest`, the contact a lost
 * create is adopted as, the contact `mode: create` records) is the same on every run.
 */
export interface Dated {
  readonly id: string;
  /**
   * Unix seconds, as a platform read gives it. A contact known otherwise (the state store, a dry
   * run, a contact-id column) has none; it is then its key's only contact, so its place decides
   * nothing, and it compares as time 0.
   */
  readonly created_at?: number;
}

export function compareByAge(a: Dated, b: Dated): number {
  return (a.created_at ?? 0) - (b.created_at ?? 0) || a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A sorted copy, oldest first. */
export function oldestFirst<T extends Dated>(contacts: readonly T[]): T[] {
  return [...contacts].sort(compareByAge);
}
