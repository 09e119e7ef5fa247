// The change log (D21): every committed write to an event, venue, organizer, category or tag leaves one row per
// changed item in the table `changes`, which this module alone writes (retention.ts prunes it through
// deleteChangesBefore). Services record changes into their transaction; the rows are written in that same
// transaction, as its last statements, so a rolled-back write leaves none and the seqs of committed rows increase in
// commit order (see flush below).
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { afterCommit, afterWork, beforeCommit, storeOf, type Store, type Trx } from '../../store/store.ts';

export type ChangeType = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
export type ChangeAction = 'created' | 'updated' | 'trashed' | 'restored' | 'deleted';

/**
 * Who could list an item just before a transaction changed it: its effective status (D17) and author then. D24 tells
 * a sync client an item is gone only when that client could have listed it before: an item it never could read (a
 * draft, a private event) stays unknown to it, ids included. The status is `''` for an item the transaction created.
 */
export interface ListedBefore {
  status: string;
  authorId: number;
}

export interface Change {
  type: ChangeType;
  id: number;
  action: ChangeAction;
  /**
   * Who could list the item before this transaction, given by a write that may change it (status, author,
   * publication date, deletion); left out by one that changes none of these (a title, a venue, a term).
   */
  before?: ListedBefore;
  /**
   * Only something the item embeds changed (a venue, an organizer, a term), not the item's own rows: what keeps
   * the item's stored document (D34) need not render it again. The log row is the same either way.
   */
  embedded?: boolean;
}

/** A row of the change log: a change with its place in commit order and its time (UTC `YYYY-MM-DD HH:MM:SS`). */
export interface CommittedChange {
  type: ChangeType;
  id: number;
  action: ChangeAction;
  /** Who could list the item before its transaction; null when the transaction changed none of that. */
  before: ListedBefore | null;
  seq: number;
  at: string;
}

/** Categories and tags are public: anyone could list one that existed. */
const PUBLIC: ListedBefore = { status: 'publish', authorId: 0 };
const NOT_YET: ListedBefore = { status: '', authorId: 0 };

/**
 * One item recorded several times in one transaction keeps one row, with the action that tells a reader most:
 * - `deleted` is final: anything then deleted, or deleted then anything, is `deleted`;
 * - `created` stays `created` (whatever else happened, the reader has not seen the item yet);
 * - `updated` adds nothing to `trashed` or `restored` (a reader fetches the item's current state anyway);
 * - otherwise the later action wins (`trashed` then `restored` is `restored`, `restored` then `trashed` is `trashed`).
 * The row keeps the place of the item's first record: a transaction's rows are in the order first recorded.
 */
export function coalesce(earlier: ChangeAction, later: ChangeAction): ChangeAction {
  if (earlier === 'deleted' || later === 'deleted') return 'deleted';
  if (earlier === 'created') return 'created';
  if (later === 'updated') return earlier;
  return later;
}

/** Changes recorded in each open transaction, by `type:id`, in first-recorded order. */
const buffers = new WeakMap<Trx, Map<string, Change>>();

/** Buffers a change of the transaction `trx`; written in that transaction just before it commits. */
export function recordChange(trx: Trx, change: Change): void {
  if (!Number.isSafeInteger(change.id) || change.id < 1)
    throw new RangeError(`recordChange: ${change.id} is not an item id`);
  let buffer = buffers.get(trx);
  if (!buffer) {
    // Registered first: throws for a transaction that is not the store's, before anything is buffered.
    beforeCommit(trx, flush);
    buffer = new Map();
    buffers.set(trx, buffer);
    afterWork(trx, tellRecorded);
  }
  const key = `${change.type}:${change.id}`;
  const earlier = buffer.get(key);
  // The first state given is the one before the transaction: a later record may have read the item after a write.
  const before = earlier?.before ?? change.before;
  buffer.set(key, {
    type: change.type,
    id: change.id,
    action: earlier ? coalesce(earlier.action, change.action) : change.action,
    ...(before ? { before } : {}),
    ...(change.embedded && (!earlier || earlier.embedded) ? { embedded: true } : {}),
  });
}

/** What a row stores of who could list the item before: its transaction created it, it is public, or as given. */
function listedBefore(change: Change): ListedBefore | null {
  if (change.action === 'created') return NOT_YET;
  if (change.type === 'category' || change.type === 'tag') return PUBLIC;
  return change.before ?? null;
}

/** {@link recordChange} for many items of one type with one action (the batch import path). */
export function recordChanges(
  trx: Trx,
  type: ChangeType,
  ids: Iterable<number>,
  action: ChangeAction,
  options: { embedded?: boolean } = {},
): void {
  for (const id of ids) recordChange(trx, { type, id, action, ...options });
}

/** UTC `YYYY-MM-DD HH:MM:SS`, as the other `*_utc` columns. */
export const formatAt = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Writes the buffered changes of `trx`: a beforeCommit hook of the store, so it runs as the last statements of the
 * transaction, after the transaction entered commit order (StoreDialect.enterCommitOrder). The seqs are handed out
 * here (the table's generated key), hence in commit order:
 * - PostgreSQL: every write transaction updates the one row of `data_version` before this point and holds its row
 *   lock until it commits. A transaction that reaches it while another holds the lock waits until that one has
 *   committed, and only then takes its seqs. So when a transaction takes seq N, every transaction that took a
 *   smaller seq has committed and is visible: a reader that has seen seq N will never see a smaller one appear.
 *   (A plain sequence used during the work gives no such thing: a transaction that took 10 can commit after one
 *   that took 11, and a reader that saw 11 would skip 10 forever.)
 * - SQLite: one writer at a time holds the write lock from its first write to its commit; AUTOINCREMENT keys taken
 *   under it increase in commit order and are never handed out twice.
 * Transactions that record nothing write nothing here.
 */
async function flush(trx: Transaction<Database>): Promise<void> {
  const buffer = buffers.get(trx);
  buffers.delete(trx);
  if (!buffer || buffer.size === 0) return;
  const store = storeOf(trx);
  const at = formatAt(new Date());
  const changes = [...buffer.values()].map((change) => ({
    type: change.type,
    id: change.id,
    action: change.action,
    before: listedBefore(change),
  }));
  const seqs = await store.insertRowsReturning(
    trx,
    'changes',
    changes.map(({ before, ...change }) => ({
      ...change,
      at,
      before_status: before?.status ?? null,
      before_author: before?.authorId ?? null,
    })),
    'seq',
  );
  const committed: CommittedChange[] = changes.map((change, index) => ({ seq: seqs[index], ...change, at }));
  afterCommit(trx, () => notifyCommitted(store, committed));
}

/**
 * Deletes at most `limit` of the oldest rows logged before `cutoff` (a UTC `YYYY-MM-DD HH:MM:SS`), never the newest
 * row, so that the latest seq never goes back (retention.ts); answers how many went.
 */
export async function deleteChangesBefore(trx: Trx, cutoff: string, limit: number): Promise<number> {
  const result = await trx
    .deleteFrom('changes')
    .where('seq', 'in', (eb) =>
      eb
        .selectFrom('changes')
        .select('seq')
        .where('at', '<', cutoff)
        .where('seq', '<', sql<number>`(select max(seq) from changes)`)
        .orderBy('seq')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What follows the changes of a transaction inside it (stored documents, D34): called once its work is done. */
export type RecordedListener = (trx: Trx, changes: readonly Change[]) => Promise<void>;

const recordedListeners = new WeakMap<Store, RecordedListener[]>();

/**
 * Calls `listener` inside every transaction of `store` that recorded changes, after the transaction's work and before
 * it enters commit order (so its statements hold no other writer up), with the changes recorded so far. What it
 * writes commits or rolls back with the transaction. Returns a function that removes it.
 */
export function onChangesRecorded(store: Store, listener: RecordedListener): () => void {
  const list = recordedListeners.get(store) ?? [];
  recordedListeners.set(store, [...list, listener]);
  return () => {
    recordedListeners.set(
      store,
      (recordedListeners.get(store) ?? []).filter((other) => other !== listener),
    );
  };
}

async function tellRecorded(trx: Trx): Promise<void> {
  const buffer = buffers.get(trx);
  const list = recordedListeners.get(storeOf(trx));
  if (!buffer || !list) return;
  const changes = [...buffer.values()];
  followPhases.set(trx, new Map());
  try {
    for (const listener of list) await listener(trx, changes);
  } finally {
    followPhases.delete(trx);
  }
}

/** What the listeners of a transaction read once between them, while they run (see {@link readOnceWhileFollowing}). */
const followPhases = new WeakMap<Trx, Map<string, Promise<unknown>>>();

/**
 * `read()`, shared by the listeners of `trx`'s changes while they run: the first to ask under `key` reads, the others
 * get its answer. Each listener writes only the tables it owns (one writer per table), and the transaction's own work
 * is done, so what one listener read of the changed items still holds for the next. Outside that phase it just reads.
 */
export function readOnceWhileFollowing<T>(trx: Trx, key: string, read: () => Promise<T>): Promise<T> {
  const phase = followPhases.get(trx);
  if (phase === undefined) return read();
  let shared = phase.get(key) as Promise<T> | undefined;
  if (shared === undefined) {
    shared = read();
    phase.set(key, shared);
  }
  return shared;
}

export type CommittedListener = (changes: readonly CommittedChange[]) => void;

const listeners = new WeakMap<Store, Set<CommittedListener>>();

/**
 * Calls `listener` after each commit through `store` (this process's connection) that wrote changes, with those
 * changes in seq order: for in-process invalidation (caches, ETags) and to wake workers. Commits of other processes
 * reach no listener: whatever must see every change reads the log (readChanges). A listener must not throw (its
 * error is reported as a process warning, the commit stands). Returns a function that removes it.
 */
export function onChangesCommitted(store: Store, listener: CommittedListener): () => void {
  let set = listeners.get(store);
  if (!set) {
    set = new Set();
    listeners.set(store, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

function notifyCommitted(store: Store, changes: readonly CommittedChange[]): void {
  const set = listeners.get(store);
  if (!set) return;
  for (const listener of [...set]) listener(changes);
}
