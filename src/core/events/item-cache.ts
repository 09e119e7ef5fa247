// Answers about one public event (GET /events/{id}, its public page), kept encoded and forgotten the moment the change
// log (D21) says the event changed, whichever process wrote it. An event is kept only while its answer is the same for every caller who
// may read it and does not depend on the clock: the event and every venue and organizer it embeds published, no
// password. Everything that changes such an answer is logged as a change of the event itself (its own writes, and
// those of the venues, organizers and terms it embeds), so following the log is exact; a log that retention pruned
// past this process's position clears everything. The one exception is the count each embedded term carries, which
// other events' writes and the clock (a scheduled event coming due) move: an answer is served only while the term
// objects it was built from are still the current ones (terms/embedded-cache.ts). The process makes one at start
// (src/caches.ts), sized by ITEM_CACHE_BYTES; the API's and the pages' handlers reach it through `ctx.caches`.
import { changesRetainedAfter, latestSeq, readChanges } from '../change-log/read.ts';
import type { Actor } from '../../domain/actor.ts';
import { unpooledBuffer } from '../../domain/unpooled-buffer.ts';
import type { Store } from '../../store/store.ts';
import type { EmbeddedTermSnapshots } from '../terms/embedded-cache.ts';
import type { EventBundle } from './serialize.ts';

export interface CachedEvent {
  /** The Content-Type. */
  type: string;
  /** The answer, encoded once; the same Buffer on every hit, so its ETag is hashed once (plugins/conditional.ts). */
  payload: Buffer;
  headers: Record<string, string>;
}

/** An answer as computed: the cache encodes its text only when it keeps it. */
export interface FreshEvent extends Omit<CachedEvent, 'payload'> {
  payload: string | Buffer;
}

interface Stored {
  eventId: number;
  entry: CachedEvent;
  /** The term objects the answer embeds (terms/embedded-cache.ts): their counts move with other events' writes. */
  terms: readonly Record<string, unknown>[];
}

/** Changes read per query while catching up with the log. */
const CHANGES_PER_READ = 1000;

export class EventItemCache {
  /** By the caller's key (`api:12`, `page:/event/jazz-night/`), least recently used first. */
  readonly #entries = new Map<string, Stored>();
  /** The keys of each event's answers, to forget them together. */
  readonly #keysOfEvent = new Map<number, Set<string>>();
  #bytes = 0;
  /** The last change-log seq whose events were forgotten, and the data version it was read at. */
  #seq = -1;
  #version = '';
  #catchingUp: Promise<void> | undefined;

  private readonly store: Store;
  /** ITEM_CACHE_BYTES: the payloads kept at most; 0 keeps nothing. */
  readonly maxBytes: number;
  /** The snapshot the embedded terms of the answers kept here come from, checked on every hit. */
  private readonly terms: EmbeddedTermSnapshots;

  constructor(store: Store, maxBytes: number, terms: EmbeddedTermSnapshots) {
    this.store = store;
    this.maxBytes = maxBytes;
    this.terms = terms;
  }

  /**
   * The answer kept under `key`, after catching up with the change log; on a miss, the log position to hand to
   * {@link set} with the answer computed now, so that one computed from data older than a change it missed is never
   * kept.
   */
  async lookup(key: string, reader: Pick<Actor, 'now' | 'config'>): Promise<{ hit: CachedEvent } | { seq: number }> {
    if (this.maxBytes === 0) return { seq: -1 };
    await this.catchUp();
    const seq = this.#seq;
    const stored = this.#entries.get(key);
    if (!stored) return { seq };
    const current = await this.terms.current(reader, stored.terms);
    // Forgotten meanwhile (a catch-up ran during the check): not to be brought back.
    if (this.#entries.get(key) !== stored) return { seq };
    if (!current) {
      this.#remove(key);
      return { seq };
    }
    // Most recently used last: eviction takes the first.
    this.#entries.delete(key);
    this.#entries.set(key, stored);
    return { hit: stored.entry };
  }

  /**
   * Keeps an answer about event `eventId` computed at log position `seq`, unless a change was processed meanwhile (the
   * answer may be older than it).
   */
  set(key: string, eventId: number, seq: number, fresh: FreshEvent, terms: readonly Record<string, unknown>[]): void {
    if (this.maxBytes === 0 || seq !== this.#seq) return;
    const entry = { ...fresh, payload: unpooledBuffer(fresh.payload) };
    if (entry.payload.length > this.maxBytes / 16) return;
    this.#remove(key);
    this.#entries.set(key, { eventId, entry, terms });
    let keys = this.#keysOfEvent.get(eventId);
    if (!keys) {
      keys = new Set();
      this.#keysOfEvent.set(eventId, keys);
    }
    keys.add(key);
    this.#bytes += entry.payload.length;
    for (const [oldKey] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldKey);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** One catch-up at a time; concurrent readers wait for it. */
  private catchUp(): Promise<void> {
    this.#catchingUp ??= this.#follow().finally(() => {
      this.#catchingUp = undefined;
    });
    return this.#catchingUp;
  }

  async #follow(): Promise<void> {
    const version = await this.store.dataVersion();
    if (version === this.#version) return;
    const db = this.store.db;
    if (this.#seq < 0) {
      // Nothing is kept yet: start from the log's end.
      this.#seq = await latestSeq(db);
      this.#version = version;
      return;
    }
    let seq = this.#seq;
    for (;;) {
      const changes = await readChanges(db, { afterSeq: seq, limit: CHANGES_PER_READ });
      for (const change of changes) if (change.type === 'event') this.#forget(change.id);
      if (changes.length > 0) seq = changes[changes.length - 1].seq;
      if (changes.length < CHANGES_PER_READ) break;
    }
    if (!(await changesRetainedAfter(db, this.#seq))) this.#clear();
    this.#seq = seq;
    this.#version = version;
  }

  /** Every answer about event `id`. */
  #forget(id: number): void {
    for (const key of this.#keysOfEvent.get(id) ?? []) this.#remove(key);
  }

  #remove(key: string): void {
    const stored = this.#entries.get(key);
    if (!stored) return;
    this.#entries.delete(key);
    this.#bytes -= stored.entry.payload.length;
    const keys = this.#keysOfEvent.get(stored.eventId)!;
    keys.delete(key);
    if (keys.size === 0) this.#keysOfEvent.delete(stored.eventId);
  }

  #clear(): void {
    this.#entries.clear();
    this.#keysOfEvent.clear();
    this.#bytes = 0;
  }
}

/**
 * Whether every caller who may read event `id` gets the same answer, now and until it changes: it and the venue and
 * organizers it links are published (not scheduled, not private, not drafts), and it has no password.
 */
export function sameForEveryReader(bundle: EventBundle, id: number): boolean {
  const record = bundle.records.get(id);
  if (record?.post.status !== 'publish' || record.post.password !== '') return false;
  const venueId = record.event.venue_id;
  if (venueId !== null && bundle.venues.get(venueId)?.post.status !== 'publish') return false;
  return (bundle.organizerIds.get(id) ?? []).every(
    (organizerId) => bundle.organizers.get(organizerId)?.post.status === 'publish',
  );
}

/** The objects of one of an event's term lists, themselves: the cache tells by identity whether they are current. */
const termObjects = (list: unknown): Record<string, unknown>[] =>
  Array.isArray(list)
    ? list.filter((term): term is Record<string, unknown> => typeof term === 'object' && term !== null)
    : [];

/** The term objects a serialised event embeds (its categories and tags), for {@link EventItemCache.set}. */
export const embeddedTermObjects = (event: Record<string, unknown>): Record<string, unknown>[] => [
  ...termObjects(event.categories),
  ...termObjects(event.tags),
];
