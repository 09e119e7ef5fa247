// D24 incremental sync: what changed after a cursor, as the caller may see it now. Built on the change log (D21) and
// on the scheduled items that came due since (D17, which no write records).
//
// The rule: a client that lists everything (every page of every list, events without a date window, categories and
// tags with hide_empty=false) and then follows `/changes` from the first list's X-Sync-Cursor ends with exactly the
// items, and the fields, a fresh full list shows it. So an item is `upsert` when the caller's full list would show it
// and `remove` otherwise: deleted, trashed, unpublished, private, someone else's draft, an event hidden from listings.
// A `remove` goes only to a caller who could have listed the item before one of its changes (the log keeps who could,
// core/change-log/log.ts ListedBefore): the others cannot hold it, and must not learn that an item they never could read (a
// draft, a private event) exists or changed.
// Every entry carries the item's current state, read after the log rows that name it, so entries are idempotent and
// only the last one of an item matters.
import type { ListedBefore } from '../change-log/log.ts';
import { changesRetainedAfter, latestSeq, latestSeqAndDataVersion, readChanges } from '../change-log/read.ts';
import { listStatusesAllowed, listVisibilityScope, type PostStatus } from '../../domain/access.ts';
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Store } from '../../store/store.ts';
import { blankProtectedFields } from '../events/protected.ts';
import { loadEventBundle, serializeEvent } from '../events/serialize.ts';
import { eventListQueries } from '../events/store.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { loadLinked, serializeLinked } from '../linked/serialize.ts';
import { organizerKind } from '../organizers/kind.ts';
import { visibleInList } from '../posts/visibility.ts';
import type { TermReader } from '../terms/embedded-cache.ts';
import { serializeTermsById } from '../terms/service.ts';
import type { Taxonomy } from '../terms/taxonomies.ts';
import { venueKind } from '../venues/kind.ts';
import {
  appendRefs,
  coalesceRows,
  cursorAt,
  LAST_ID,
  START_CURSOR,
  type ItemRef,
  type SyncCursor,
  type SyncType,
} from './cursor.ts';

export type SyncEntry =
  | { type: SyncType; id: number; action: 'upsert'; item: Record<string, unknown> }
  | { type: SyncType; id: number; action: 'remove' };

export interface SyncPage {
  /** Built lazily, one entry at a time as it is iterated (D31: the route serialises it under the response budget). */
  changes: Iterable<SyncEntry>;
  next: SyncCursor;
  hasMore: boolean;
}

/** A cursor older than the retention, not ours, or ahead of this database: the client lists everything again. */
export const cursorExpired = () =>
  new DomainError(
    'gone',
    'rest_sync_cursor_expired',
    'The sync cursor is expired or invalid: list every collection again and follow /changes from the X-Sync-Cursor of that list.',
  );

/** Scheduled items a cursor may claim to have seen ahead of this service's clock (other processes' clocks drift). */
const CLOCK_LEEWAY_MS = 60 * 60 * 1000;

/**
 * The cursor as of now (`X-Sync-Cursor` of list answers): the latest seq, read **before** the list's own queries, and
 * the list's clock. Everything committed up to that seq is in what the list then reads; anything later is replayed by
 * `/changes` (possibly again: upserts are idempotent). One query: `max(seq)` on the primary key.
 */
export async function currentCursor(store: Store, actor: Actor): Promise<SyncCursor> {
  return cursorAt(await latestSeq(store.db), formatWp(actor.now));
}

/**
 * {@link currentCursor} and a data version that includes everything up to it (on PostgreSQL read in the same
 * statement): what a list that checks process snapshots against a version checks them against.
 */
export async function currentCursorAndDataVersion(
  store: Store,
  actor: Actor,
): Promise<{ cursor: SyncCursor; dataVersion: string }> {
  const { seq, version } = await latestSeqAndDataVersion(store);
  return { cursor: cursorAt(seq, formatWp(actor.now)), dataVersion: version };
}

/**
 * One page of changes after `since` (null: from the oldest retained change and the first scheduled item ever due),
 * at most `limit` entries: log rows first, in seq order, coalesced per item; once the log is exhausted, the scheduled
 * items that came due since the cursor, in (publication date, id) order. A constant number of queries whatever
 * `limit` is. Throws {@link cursorExpired} for a cursor this log cannot continue.
 */
export async function readSyncPage(
  store: Store,
  actor: Actor,
  since: SyncCursor | null,
  limit: number,
): Promise<SyncPage> {
  const db = store.db;
  const from = since ?? START_CURSOR;
  const nowUtc = formatWp(actor.now);
  if (since && since.dueAt > formatWp(actor.now.plus({ milliseconds: CLOCK_LEEWAY_MS }))) throw cursorExpired();

  const rows = await readChanges(db, { afterSeq: from.seq, limit: limit + 1 });
  if (since) {
    // Asked after reading: pruning removes only the oldest rows, so a true answer covers what was read (read.ts).
    if (!(await changesRetainedAfter(db, since.seq))) throw cursorExpired();
    // The latest seq never goes back (retention keeps the newest row): a larger one was never handed out here.
    if (rows.length === 0 && since.seq > 0 && since.seq > (await latestSeq(db))) throw cursorExpired();
  }
  const logHasMore = rows.length > limit;
  const taken = rows.slice(0, limit);
  let refs = coalesceRows(taken);
  // An item the caller could list before any of its changes read here may be in its copy; a row that changed nobody's
  // right to list the item (before: null) says nothing more than the rows around it and the item's current state.
  const mayHold = new HeldItems(actor);
  for (const row of taken) if (row.before) mayHold.note(`${row.type}:${row.id}`, row.before);
  const next: SyncCursor = { ...from, seq: taken.length > 0 ? taken[taken.length - 1].seq : from.seq };
  let hasMore = logHasMore;

  if (!logHasMore) {
    const room = limit - refs.length;
    const due = await comeDue(store, from, nowUtc, room + 1);
    const dueTaken = due.slice(0, room);
    hasMore = due.length > room;
    if (hasMore) {
      if (dueTaken.length > 0)
        Object.assign(next, { dueAt: dueTaken[dueTaken.length - 1].date_utc, dueId: dueTaken[dueTaken.length - 1].id });
    } else {
      Object.assign(next, { dueAt: nowUtc, dueId: LAST_ID });
    }
    refs = appendRefs(
      refs,
      dueTaken.map((row) => ({ type: row.type, id: row.id })),
    );
    // Until it came due, an item was listed as the scheduled item it is stored as.
    for (const row of dueTaken) mayHold.note(`${row.type}:${row.id}`, { status: 'future', authorId: row.author_id });
  }

  // The items are serialised with the process's snapshots (the embedded terms), which check a data version the request
  // may bring from its start (the read cache's, a remembered credential's): older than the rows read above. A commit
  // in between whose row is on this page (a category renamed, logging its events) would be sent as it was before it,
  // and the cursor moves past it for good. So the snapshots check a version read now, after the rows.
  const reader: Actor & TermReader = { ...actor, dataVersion: await store.dataVersion() };
  const items = await currentItems(store, reader, refs);
  // Built one at a time as the answer is written; a plain iterator rather than a generator, whose yielded items
  // outlive the young generation's collections (http/bounded-json.ts, itemStream).
  const changes: Iterable<SyncEntry> = {
    [Symbol.iterator]: (): Iterator<SyncEntry> => {
      let next = 0;
      return {
        next: (): IteratorResult<SyncEntry> => {
          while (next < refs.length) {
            const ref = refs[next++];
            const key = `${ref.type}:${ref.id}`;
            const item = items.get(key);
            if (item) return { done: false, value: { type: ref.type, id: ref.id, action: 'upsert', item: item() } };
            if (mayHold.has(key)) return { done: false, value: { type: ref.type, id: ref.id, action: 'remove' } };
          }
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { changes, next, hasMore };
}

/**
 * Events, venues and organizers still stored as `future` whose publication date has passed since the cursor's due
 * position, up to `nowUtc`: they became `publish` without a write (D17). Served by the (status, date_utc) index.
 */
function comeDue(store: Store, from: SyncCursor, nowUtc: string, limit: number) {
  // $narrowType: the `type` condition, in the rows' type (Kysely does not narrow a column by a WHERE).
  return store.db
    .selectFrom('posts')
    .select(['id', 'type', 'date_utc', 'author_id'])
    .where('status', '=', 'future')
    .where('date_utc', '<=', nowUtc)
    .where((eb) =>
      eb.or([eb('date_utc', '>', from.dueAt), eb.and([eb('date_utc', '=', from.dueAt), eb('id', '>', from.dueId)])]),
    )
    .where('type', 'in', ['event', 'venue', 'organizer'])
    .$narrowType<{ type: 'event' | 'venue' | 'organizer' }>()
    .orderBy('date_utc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** What the caller's full lists show (default status: `publish` anonymously, `any` for contributors and up; D19). */
function listedStatuses(actor: Actor): PostStatus[] {
  const access = listStatusesAllowed(actor.viewer, undefined);
  return access.ok ? access.statuses : ['publish'];
}

/** The items (`type:id`) a caller's full lists could have shown in a state they had before a change. */
class HeldItems {
  readonly #statuses: readonly PostStatus[];
  readonly #scope: ReturnType<typeof listVisibilityScope>;
  readonly #keys = new Set<string>();

  constructor(actor: Actor) {
    this.#statuses = listedStatuses(actor);
    this.#scope = listVisibilityScope(actor.viewer);
  }

  /** The item `key` was in state `before` (posts/visibility.ts visibleInList, for one remembered state). */
  note(key: string, before: ListedBefore): void {
    if (!this.#statuses.some((status) => status === before.status)) return;
    const listed =
      this.#scope.scope === 'all' ||
      before.status === 'publish' ||
      (this.#scope.scope === 'published-or-own' && before.authorId === this.#scope.authorId);
    if (listed) this.#keys.add(key);
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }
}

/** An item's serialised form, built when asked for (loaded in batches before). */
type LazyItem = () => Record<string, unknown>;

/**
 * The items of `refs` the caller's full lists would show, as `GET` by id shows them, keyed `type:id`; loaded in
 * batches, each serialised only when asked for.
 */
async function currentItems(
  store: Store,
  actor: Actor & TermReader,
  refs: readonly ItemRef[],
): Promise<Map<string, LazyItem>> {
  const idsOf = (type: SyncType) => refs.filter((ref) => ref.type === type).map((ref) => ref.id);
  const found = new Map<string, LazyItem>();
  const add = (type: SyncType, items: Map<number, LazyItem>) => {
    for (const [id, item] of items) found.set(`${type}:${id}`, item);
  };
  const [events, venues, organizers, categories, tags] = await Promise.all([
    eventItems(store, actor, idsOf('event')),
    linkedItems(store, actor, venueKind, idsOf('venue')),
    linkedItems(store, actor, organizerKind, idsOf('organizer')),
    termItems(store, actor, 'event_category', idsOf('category')),
    termItems(store, actor, 'event_tag', idsOf('tag')),
  ]);
  add('event', events);
  add('venue', venues);
  add('organizer', organizers);
  add('category', categories);
  add('tag', tags);
  return found;
}

/**
 * Events the caller's full event list would show: the list's own conditions (occurrences: not hidden from listings,
 * the caller's statuses and D19 scope) with `include` and no date window. A password-protected event is shown as
 * lists show it without the password (§3.10: blanked fields, no `json_ld`).
 */
async function eventItems(store: Store, actor: Actor & TermReader, ids: number[]): Promise<Map<number, LazyItem>> {
  const items = new Map<number, LazyItem>();
  if (ids.length === 0) return items;
  const listed = await eventListQueries(store, actor, {
    page: 1,
    perPage: ids.length,
    collapseSeries: false,
    dates: [],
    statuses: listedStatuses(actor),
    include: ids,
    order: 'publication',
    echo: [],
  }).page.execute();
  const visible = listed.map((row) => row.id);
  const bundle = await loadEventBundle(store.db, actor, visible);
  for (const id of visible) {
    const record = bundle.records.get(id);
    if (!record) continue;
    items.set(id, () =>
      record.post.password === ''
        ? serializeEvent(actor, bundle, id, { single: true })
        : blankProtectedFields(serializeEvent(actor, bundle, id, { single: false })),
    );
  }
  return items;
}

/** Venues or organizers the caller's full list would show (its statuses and D19 scope), as GET by id shows them. */
async function linkedItems(
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  ids: number[],
): Promise<Map<number, LazyItem>> {
  const items = new Map<number, LazyItem>();
  if (ids.length === 0) return items;
  const nowUtc = formatWp(actor.now);
  const statuses = listedStatuses(actor);
  const listed = await store.db
    .selectFrom('posts')
    .where((eb) => visibleInList(eb, actor.viewer, statuses, nowUtc))
    // Kysely cannot join a union of tables: the alias is typed as one of the two, which both have the `id` read here.
    .innerJoin(`${kind.metaTable} as meta` as 'venues as meta', 'meta.id', 'posts.id')
    .select('posts.id')
    .where('posts.type', '=', kind.type)
    .where('posts.id', 'in', ids)
    .execute();
  const records = await loadLinked(
    store.db,
    kind,
    listed.map((row) => row.id),
  );
  for (const [id, record] of records) items.set(id, () => serializeLinked(actor, kind, record, { single: true }));
  return items;
}

/** Categories and tags are public: every existing one is shown (as by `hide_empty=false` lists). */
async function termItems(
  store: Store,
  actor: Actor,
  taxonomy: Taxonomy,
  ids: number[],
): Promise<Map<number, LazyItem>> {
  const items = new Map<number, LazyItem>();
  for (const [id, term] of await serializeTermsById(store.db, actor, taxonomy, ids)) items.set(id, () => term);
  return items;
}
