/**
 * Remembers which keys `validate` has seen, in a flat table of 64-bit fingerprints
 * (`pipeline/source/key-table.ts`) instead of the keys themselves, so memory stays flat however
 * large the file. Two different keys share a fingerprint with odds of about 1 in 30 million for a
 * million keys: the count is information for a person, not a decision.
 */
import { KeyTable } from '../pipeline/source/key-table.js';

export class KeySighting {
  readonly #table = new KeyTable();

  /** True when the key was seen before. */
  seenBefore(key: string): boolean {
    return this.#table.sight(key, 0) !== 0;
  }

  /** How often the key was seen before: 0, 1, or 2 for more than once. */
  sightingsBefore(key: string): 0 | 1 | 2 {
    return this.#table.sight(key, 0);
  }
}
