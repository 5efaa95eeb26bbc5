/**
 * What is known of a contact, one type for each thing known: the contact itself (`KnownContact`)
 * and the store's record of a key, which holds it (`StoredContact`).
 *
 * `KnownContact` is the one shape wherever a contact is known: a platform read (a
 * search, the prefetch index, a reconcile's read, undo's read), the state store's record of a key
 * (`StoredContact.contact`), a dry run's simulated contact, a contact-id column. Where it came
 * from is the caller's (`MatchSource` in pipeline/row/decide.ts), not a field: the decision
 * compares contacts whatever their source. It lives with the state store, which keeps it, and is
 * the one type of the store the pure decisions import (with the change journal's line types).
 */
export interface KnownContact {
  id: string;
  custom_fields: Readonly<Record<string, string>>;
  tags: readonly string[];
  /**
   * Unix seconds, only when a platform read supplied it: it orders a key's duplicates
   * (`contact-order.ts`). A contact known otherwise has none, and is its key's only contact.
   */
  created_at?: number;
}

/**
 * The surface of the platform whose answer gave a contact id: `PlatformSurface.name` of the api
 * that produced it (src/api/platform-surface.ts `SurfaceName`, which the state store may not
 * import: the same two names). An id is trusted only on the surface it came from.
 */
export type IdSurface = 'v1' | 'v2';

/**
 * The one home of the rule "an id is trusted only on its own surface": what the store recorded
 * of one surface (a key's contact id, a run's journal of ids, a row that surface could not
 * create) holds for a run on that surface only; on the other the key is matched again by its key
 * field (docs/reliability.md, "Moving a connection from v1 to v2"). Every comparison of a stored
 * surface with a run's goes through here (test/docs/surface-rule-one-home.test.ts).
 */
export function trustedOn(recorded: { readonly surface: IdSurface }, surface: IdSurface): boolean {
  return recorded.surface === surface;
}

/** The store's full record of a key: what the platform confirmed for its contact, and what this job last wrote to it. */
export interface StoredContact {
  readonly key: string;
  /** The surface `contact.id` came from ('v1' for every key recorded before schema version 10). */
  readonly surface: IdSurface;
  /**
   * The key's contact as confirmed: its fields are those last confirmed written, merged over every
   * write to it; its tags, those confirmed present (added and not removed since), sorted. No
   * `created_at`: a stored contact is its key's only one.
   */
  readonly contact: KnownContact;
  /**
   * The tags this job added to the contact and has not removed since, sorted (`tags.prune`
   * removes those its row no longer carries); null for keys recorded before the store knew them.
   */
  readonly jobTags: readonly string[] | null;
  /** `draftHash` of the last draft written in full; null when the last write was partial. */
  readonly draftHash: string | null;
  /** The row hash (pipeline/map/row-hash.ts) of the row that draft came from; null when not known. */
  readonly rowHash: string | null;
  /** When the last write was confirmed, ms since the Unix epoch. */
  readonly updatedAt: number;
  /**
   * When the contact was last read from the platform and recorded as read (a search, a reconcile,
   * undo's read, verification), ms since the Unix epoch; absent when never since recorded. The
   * record is that read plus this job's confirmed writes since.
   */
  readonly verifiedAt?: number;
}
