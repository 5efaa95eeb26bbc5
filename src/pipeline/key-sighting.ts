/**
 * Remembers which keys a read of the input has seen (`validate` counts repeated keys with it, a
 * run the keys that are still in the file), in 8 bytes a key in a flat open-addressing table
 * instead of the key itself: a million-row file must not hold a million strings (or a million
 * boxed numbers) to count repeated keys, or memory would grow with the file. Two different keys
 * share a 64-bit fingerprint with odds of about 1 in 30 million for a million keys: the count is
 * information for a person, not a decision.
 */
const INITIAL_SLOTS = 1 << 16;

export class KeySighting {
  /** Pairs of 32-bit halves; a pair of zeros is an empty slot. */
  #table = new Uint32Array(INITIAL_SLOTS * 2);
  #size = 0;

  /** True when the key was seen before. */
  seenBefore(key: string): boolean {
    const [high, hashedLow] = fingerprint(key);
    // Zero is the empty mark: move the one fingerprint that would collide with it.
    const low = high === 0 && hashedLow === 0 ? 1 : hashedLow;
    if (this.#find(high, low, true)) return true;
    this.#size++;
    if (this.#size * 2 > this.#table.length / 2) this.#grow();
    return false;
  }

  /**
   * True when the key was seen. A key never seen can share a fingerprint with one that was (odds
   * about 1 in 30 million at a million keys): it is then taken as seen, the safe side for a key
   * that may have left the file (it is kept, not acted on).
   */
  has(key: string): boolean {
    const [high, hashedLow] = fingerprint(key);
    return this.#find(high, high === 0 && hashedLow === 0 ? 1 : hashedLow, false);
  }

  /** Finds the fingerprint; inserts it when absent and `insert` is set. */
  #find(high: number, low: number, insert: boolean): boolean {
    const slots = this.#table.length / 2;
    for (let slot = (high ^ low) & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      const h = this.#table[slot * 2] ?? 0;
      const l = this.#table[slot * 2 + 1] ?? 0;
      if (h === high && l === low) return true;
      if (h === 0 && l === 0) {
        if (insert) {
          this.#table[slot * 2] = high;
          this.#table[slot * 2 + 1] = low;
        }
        return false;
      }
    }
  }

  #grow(): void {
    const old = this.#table;
    this.#table = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      const high = old[i] ?? 0;
      const low = old[i + 1] ?? 0;
      if (high !== 0 || low !== 0) this.#find(high, low, true);
    }
  }
}

/** Two 32-bit multiplicative hashes of the UTF-16 code units with different seeds. */
function fingerprint(text: string): [number, number] {
  let h1 = 0x811c9dc5 ^ text.length;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return [h1 >>> 0, (h2 ^ (h1 >>> 13)) >>> 0];
}
