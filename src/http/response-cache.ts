import { unpooledBuffer } from '../domain/unpooled-buffer.ts';
import { RecentKeys } from './recent-keys.ts';

/**
 * Anonymous GET answers, kept while nothing was written to the database (the store's data version, which moves when
 * any process commits) and for at most one second of the application clock, since answers also depend on the time
 * (default date windows, relative dates, scheduled items going live). Authenticated requests are never cached.
 * The key is the caller's (plugins/read-cache.ts: the URL and the request headers an answer may depend on); an
 * answer is kept whole, whatever its type: JSON, iCalendar, HTML, or a 304 without a body. The process makes one at
 * start (src/caches.ts), bounded by READ_CACHE_BYTES. An answer is kept from the second time its key is asked for
 * within half a second to a second (recent-keys.ts): answers asked for once, or too seldom to be served again from
 * the cache, are never copied in.
 */
export interface CachedReply {
  status: number;
  headers: Record<string, string>;
  /** The Content-Type as the handler chose it; null for an answer without a body (304). */
  type: string | null;
  /** Encoded once, so a hit costs no JSON or UTF-8 work; null for an answer without a body. */
  payload: Buffer | null;
}

/**
 * An answer as it was computed: its payload may still be text. The cache encodes it only when it keeps it, so an
 * answer asked for once (most reads by id, deep pages) is sent as the text it was built as, and no Buffer is made for
 * it (its memory is outside V8's heap and freed only once the collector reaches the Buffer).
 */
export interface FreshReply extends Omit<CachedReply, 'payload'> {
  payload: string | Buffer | null;
}

interface Entry extends CachedReply {
  version: string;
  at: number;
  /** What the entry is counted as against the memory bound. */
  size: number;
}

export const MAX_CACHED_AGE_MS = 1000;
/**
 * The admission's generations (recent-keys.ts): a key counts as asked for again when its previous request came within
 * the last one or two of them, so at most one entry's lifetime before. With generations as long as the lifetime
 * (seen within 1–2 s), a key asked for every 1.5 s was copied in at each request and expired before the next one:
 * reads by ids that come round every second or two (a crawler, a client refreshing a page of items) copied in half
 * their answers without a single hit (an A/B run: 85 MB more RSS after the reads by id).
 */
const ADMISSION_WINDOW_MS = MAX_CACHED_AGE_MS / 2;
/** READ_CACHE_BYTES's default, for a cache made without a configuration (unit tests). */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const MAX_PAYLOAD_BYTES = 256 * 1024;
/** A rough cost of an entry besides its payload and key, so that many bodiless or tiny answers stay bounded too. */
const ENTRY_OVERHEAD_BYTES = 256;

const sizeOf = (key: string, reply: CachedReply): number =>
  (reply.payload?.length ?? 0) +
  key.length +
  ENTRY_OVERHEAD_BYTES +
  Object.entries(reply.headers).reduce((sum, [name, value]) => sum + name.length + value.length, 0);

/** Which answers a cache keeps: those asked for again soon (the service's), or every one (tests of the rest). */
export type Admission = 'repeated' | 'every';

const encoded = (fresh: FreshReply): CachedReply => ({
  ...fresh,
  payload: fresh.payload === null ? null : unpooledBuffer(fresh.payload),
});

export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  /** The keys asked for lately, when only repeated answers are kept. */
  readonly #recent: RecentKeys | undefined;
  /** Answers being computed, so that simultaneous misses of one key (e.g. when an entry expires) compute it once. */
  readonly #computing = new Map<string, Promise<FreshReply>>();
  #bytes = 0;
  /** The memory the cache may hold, whatever mix of small and large answers (and long URLs) it sees; 0 keeps nothing. */
  readonly maxBytes: number;

  constructor(maxBytes = DEFAULT_MAX_BYTES, admission: Admission = 'repeated') {
    this.maxBytes = maxBytes;
    this.#recent = admission === 'repeated' && maxBytes > 0 ? new RecentKeys(ADMISSION_WINDOW_MS) : undefined;
  }

  /** The cached answer for `key`, or the one `compute` gives (shared by every request that misses meanwhile). */
  answer(
    key: string,
    version: string,
    nowMs: number,
    compute: () => Promise<FreshReply>,
  ): FreshReply | Promise<FreshReply> {
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

  /**
   * Whether an answer for `key` is kept and still within its second (at whatever version): a caller that would only
   * read the data version to check it can skip that read when there is none.
   */
  holds(key: string, nowMs: number): boolean {
    const entry = this.#entries.get(key);
    return entry !== undefined && nowMs >= entry.at && nowMs - entry.at < MAX_CACHED_AGE_MS;
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

  /** Keeps `fresh` for `key`, if its key was asked for lately (or the cache keeps every answer) and it fits. */
  set(key: string, version: string, nowMs: number, fresh: FreshReply): void {
    if (this.#recent !== undefined && !this.#recent.seenAgain(key, nowMs)) return;
    // A string's UTF-8 length is at least its length: one too long in characters is too long in bytes.
    if (typeof fresh.payload === 'string' && fresh.payload.length > MAX_PAYLOAD_BYTES) return;
    const reply = encoded(fresh);
    if ((reply.payload?.length ?? 0) > MAX_PAYLOAD_BYTES) return;
    const size = sizeOf(key, reply);
    // Larger than the whole bound (a small READ_CACHE_BYTES, or 0): it would push out everything and still not fit.
    if (size > this.maxBytes) return;
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    // Oldest first: a Map iterates in insertion order. Entries past their second can never be served again, so they
    // go whatever the room: answers to varied URLs, each asked once, would otherwise sit in memory up to the bound.
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#bytes + size <= this.maxBytes && nowMs >= oldEntry.at && nowMs - oldEntry.at < MAX_CACHED_AGE_MS) break;
      this.#delete(oldKey, oldEntry);
    }
    this.#entries.set(key, { ...reply, version, at: nowMs, size });
    this.#bytes += size;
  }

  /** The bytes the entries are counted as (for tests and diagnostics). */
  get bytes(): number {
    return this.#bytes;
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }
}
