/**
 * Anonymous GET answers, kept while nothing was written to the database (the store's data version, which moves when
 * any process commits) and for at most one second of the application clock, since answers also depend on the time
 * (default date windows, relative dates, scheduled items going live). Authenticated requests are never cached.
 */
export interface CachedReply {
  status: number;
  headers: Record<string, string>;
  /** Encoded once, so a hit costs no JSON or UTF-8 work. */
  payload: Buffer;
}

interface Entry extends CachedReply {
  version: string;
  at: number;
}

export const MAX_CACHED_AGE_MS = 1000;
/** The memory the cache may hold, whatever mix of small and large answers it sees. */
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;
const MAX_PAYLOAD_BYTES = 256 * 1024;

export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  /** Answers being computed, so that simultaneous misses of one key (e.g. when an entry expires) compute it once. */
  readonly #computing = new Map<string, Promise<CachedReply>>();
  #bytes = 0;

  /** The cached answer for `key`, or the one `compute` gives (shared by every request that misses meanwhile). */
  answer(key: string, version: string, nowMs: number, compute: () => Promise<CachedReply>): CachedReply | Promise<CachedReply> {
    const cached = this.get(key, version, nowMs);
    if (cached) return cached;
    const flight = `${version} ${key}`;
    let pending = this.#computing.get(flight);
    if (!pending) {
      pending = compute().then((fresh) => {
        this.set(key, version, nowMs, fresh);
        return fresh;
      });
      this.#computing.set(flight, pending);
      pending.finally(() => this.#computing.delete(flight)).catch(() => {});
    }
    return pending;
  }

  get(key: string, version: string, nowMs: number): CachedReply | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.version !== version || nowMs < entry.at || nowMs - entry.at >= MAX_CACHED_AGE_MS) {
      this.#delete(key, entry);
      return undefined;
    }
    return entry;
  }

  set(key: string, version: string, nowMs: number, reply: CachedReply): void {
    if (reply.payload.length > MAX_PAYLOAD_BYTES) return;
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    // Oldest first: a Map iterates in insertion order.
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#bytes + reply.payload.length <= MAX_TOTAL_BYTES) break;
      this.#delete(oldKey, oldEntry);
    }
    this.#entries.set(key, { ...reply, version, at: nowMs });
    this.#bytes += reply.payload.length;
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.payload.length;
  }
}
