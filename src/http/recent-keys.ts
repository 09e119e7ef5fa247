/**
 * Which keys were seen lately: the read cache's admission (response-cache.ts). An answer is worth keeping only when
 * its URL is asked for again within the second it may be served; a URL asked for once (a read by a random id, a
 * list's hundredth page) would only be copied into memory and pushed out unused, and such copies cost more than the
 * hits they never give (memory, and the garbage collector's time moving them).
 *
 * Two generations of a bitmap, each covering one window: a key is recorded in the current one and looked up in both,
 * so it counts as seen again when it came within the last one to two windows. Nothing is allocated per key, whatever
 * the traffic; a collision of two keys' bits only makes an answer be kept that would not have been (the cache stays
 * exact: admission decides what is kept, never what is served).
 */
export class RecentKeys {
  readonly #windowMs: number;
  readonly #mask: number;
  #current: Uint32Array;
  #previous: Uint32Array;
  /** When the current generation began (the clock's milliseconds); -Infinity before the first key. */
  #currentFrom = Number.NEGATIVE_INFINITY;

  /** `bits`: a power of two, each generation's size (the chance that a new key finds its bit set is keys / bits). */
  constructor(windowMs: number, bits = 1 << 18) {
    if (!Number.isInteger(Math.log2(bits)) || bits < 32)
      throw new RangeError('RecentKeys: bits must be a power of two');
    this.#windowMs = windowMs;
    this.#mask = bits - 1;
    this.#current = new Uint32Array(bits / 32);
    this.#previous = new Uint32Array(bits / 32);
  }

  /** Records `key` as seen at `nowMs`; true when it was seen in this window or the one before. */
  seenAgain(key: string, nowMs: number): boolean {
    this.#advance(nowMs);
    const bit = fnv1a(key) & this.#mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    const seen = ((this.#current[word] | this.#previous[word]) & flag) !== 0;
    this.#current[word] |= flag;
    return seen;
  }

  /** Moves the generations on to `nowMs`: one window on, the current becomes the previous one. */
  #advance(nowMs: number): void {
    const elapsed = nowMs - this.#currentFrom;
    if (elapsed >= 0 && elapsed < this.#windowMs) return;
    if (elapsed >= 0 && elapsed < 2 * this.#windowMs) {
      const older = this.#previous;
      this.#previous = this.#current;
      this.#current = older.fill(0);
    } else {
      // Two windows or more on, or a clock that went back: nothing recorded tells about now.
      this.#previous.fill(0);
      this.#current.fill(0);
    }
    this.#currentFrom = nowMs;
  }
}

/** FNV-1a over the key's UTF-16 code units: spread enough for a bitmap, and cheap for a URL. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
