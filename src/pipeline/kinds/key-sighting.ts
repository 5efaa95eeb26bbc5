/**
 * Remembers which keys a read of the input has seen (`validate` counts repeated keys with it, a
 * run with `onMissing` the keys that are still in the file), in a flat table of 64-bit
 * fingerprints (`source/key-table.ts`) instead of the keys themselves, so memory stays flat
 * however large the file. Two different keys share a fingerprint with odds of about 1 in 30
 * million for a million keys: the count is information for a person, and a departed key taken for
 * a present one is kept, the safe side.
 */
import { KeyTable } from '../source/key-table.js';

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

  /** True when the key was seen (recording nothing). */
  has(key: string): boolean {
    return this.#table.lookup(key) !== undefined;
  }
}
