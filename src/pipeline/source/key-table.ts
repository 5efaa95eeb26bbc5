/**
 * A flat open-addressing table of key fingerprints: 64 bits a key plus a 32-bit value (a line)
 * and a sighting count (0, 1, 2 = "more than once"), in typed arrays, instead of the keys
 * themselves: a million-row file must not hold a million strings (or a million boxed numbers) to
 * find its repeated keys, or memory would grow with the file (13 bytes a slot, at most half the
 * slots used: about 26 MB for a million distinct keys).
 *
 * Two different keys share a 64-bit fingerprint with odds of about 1 in 30 million for a million
 * keys: a caller that decides anything from "seen before" checks the real key
 * (`repeated-keys.ts` does).
 */
const INITIAL_SLOTS = 1 << 16;

export class KeyTable {
  /** Pairs of 32-bit halves; a pair of zeros is an empty slot. */
  #table = new Uint32Array(INITIAL_SLOTS * 2);
  /** The value given with the fingerprint's first sighting. */
  #values = new Uint32Array(INITIAL_SLOTS);
  /** 1 seen once, 2 seen more than once. */
  #seen = new Uint8Array(INITIAL_SLOTS);
  #size = 0;

  /** `hash` is for tests, to make keys collide. */
  constructor(private readonly hash: (key: string) => [number, number] = fingerprint) {}

  /**
   * Records a sighting of `key`; `value` is kept when it is the first. Returns how often it was
   * seen before: 0 (new), 1, or 2 for more than once.
   */
  sight(key: string, value: number): 0 | 1 | 2 {
    const [high, low] = this.hash(key);
    const slot = this.#slot(high, low);
    const before = this.#seen[slot] ?? 0;
    if (before !== 0) {
      this.#seen[slot] = 2;
      return before === 1 ? 1 : 2;
    }
    this.#put(slot, high, low, value, 1);
    this.#size++;
    if (this.#size * 2 > this.#values.length) this.#grow();
    return 0;
  }

  /** The first sighting's value, and whether the fingerprint was seen more than once; undefined when never seen. */
  lookup(key: string): { first: number; repeated: boolean } | undefined {
    const [high, low] = this.hash(key);
    const slot = this.#slot(high, low);
    const seen = this.#seen[slot] ?? 0;
    return seen === 0 ? undefined : { first: this.#values[slot] ?? 0, repeated: seen > 1 };
  }

  /** The slot holding the fingerprint, or the empty slot where it would go. */
  #slot(high: number, low: number): number {
    const slots = this.#values.length;
    for (let slot = (high ^ low) & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      const h = this.#table[slot * 2] ?? 0;
      const l = this.#table[slot * 2 + 1] ?? 0;
      if ((h === high && l === low) || (h === 0 && l === 0)) return slot;
    }
  }

  #put(slot: number, high: number, low: number, value: number, seen: number): void {
    this.#table[slot * 2] = high;
    this.#table[slot * 2 + 1] = low;
    this.#values[slot] = value;
    this.#seen[slot] = seen;
  }

  #grow(): void {
    const [table, values, seen] = [this.#table, this.#values, this.#seen];
    this.#table = new Uint32Array(table.length * 2);
    this.#values = new Uint32Array(values.length * 2);
    this.#seen = new Uint8Array(seen.length * 2);
    for (let i = 0; i < values.length; i++) {
      const high = table[i * 2] ?? 0;
      const low = table[i * 2 + 1] ?? 0;
      if (high !== 0 || low !== 0) this.#put(this.#slot(high, low), high, low, values[i] ?? 0, seen[i] ?? 0);
    }
  }
}

/** Two 32-bit multiplicative hashes of the UTF-16 code units with different seeds; never the empty mark (0, 0). */
export function fingerprint(text: string): [number, number] {
  let h1 = 0x811c9dc5 ^ text.length;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  const high = h1 >>> 0;
  const low = (h2 ^ (h1 >>> 13)) >>> 0;
  // Zero is the empty mark: move the one fingerprint that would collide with it.
  return [high, high === 0 && low === 0 ? 1 : low];
}
