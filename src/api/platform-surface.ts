/**
 * What the pipeline plans against, whichever surface of the platform answers (v1 or v2): what one
 * call finds and what an operation costs. The planner reads these numbers and capabilities; it never
 * asks which surface it has. Each adapter states its own, in its folder (`v1/surface.ts`,
 * `v2/surface.ts`): the shared layer knows neither.
 */
import type { ApiError } from './errors.js';

export type SurfaceName = 'v1' | 'v2';

export interface PlatformSurface {
  /** For reports, `check` and the state store's record of where a contact id came from: never for branching. */
  readonly name: SurfaceName;
  /** Contacts one page of `listContacts` holds (`match.prefetch`, reconcile, the departed step, verification). */
  readonly listPageSize: number;
  /** Contacts one page of a key's search holds. */
  readonly searchPageSize: number;
  /** Tags one tag call adds or removes. */
  readonly tagsPerCall: number;
  /**
   * Whether a key held in this field is found by one direct read, without a search (v2's
   * `email:`/`phone:` identifiers): the search of such a key is one call whatever it finds.
   */
  directLookup(keyField: string): boolean;
  /**
   * Whether a contact is created or updated by one call naming its key (v2's create_or_update),
   * where nothing is known of the key: no search is needed before the write.
   */
  upsertBy(keyField: string): boolean;
  /** Whether a send whose answer was lost can be settled by reading the contact's messages (exactly once). */
  readonly sendsReadable: boolean;
  /** Whether a contact can be deleted through the API (`ContactsApi.deleteContact`: v2). */
  readonly deletes: boolean;
  /** Whether two contacts can be merged into one through the API (`ContactsApi.mergeContacts`: v2). */
  readonly merges: boolean;
  /**
   * The identifier field whose holder a create of `fields` updates instead of creating a contact
   * (v2's create_or_update by email, else phone), or undefined when a create always makes a new
   * one (v1), or cannot be sent at all: the decision reads that holder first (issue 41).
   */
  createLandsOn(fields: Readonly<Record<string, string>>): 'email' | 'phone' | undefined;
  /**
   * Why a contact of these fields (a create's, as `planCreate` makes it) cannot be created on this
   * surface: the error `createContact` would throw before any call (v2: neither an email nor a
   * phone, or no firstName: `V2_CANNOT_CREATE`); undefined when it can.
   */
  createRefusal(fields: Readonly<Record<string, string>>): ApiError | undefined;
}

/** The pages `contacts` listed contacts take on `surface`, and one call to learn there are none. */
export function listPagesFor(surface: Pick<PlatformSurface, 'listPageSize'>, contacts: number): number {
  return Math.max(1, Math.ceil(contacts / surface.listPageSize));
}
