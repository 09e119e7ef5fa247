import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Trx = Transaction<Database>;

/**
 * What a transaction of Store.transaction runs besides its work, collected while the work runs. The store that opened
 * it is kept as it was given (store.ts types it for its callers), so that this file need not import store.ts back.
 */
interface TransactionHooks {
  readonly store: unknown;
  readonly afterWork: Array<(trx: Trx) => Promise<void>>;
  readonly lastWrites: Array<(trx: Trx) => Promise<void>>;
  readonly beforeCommit: Array<(trx: Trx) => Promise<void>>;
  readonly afterCommit: Array<() => void>;
  /** What the transaction's writer said it leaves as it was (see {@link leaveAlone}). */
  readonly leftAlone: Set<DataPart>;
  /** How much the transaction moved each term's stored count (see {@link recordTermCountDeltas}). */
  readonly termCountDeltas: Map<number, number>;
}

/**
 * Parts of the data that a process's caches keep, keyed by the data version, and that a write may leave as they were:
 * `terms`, the term snapshot's rows, counts and next due date (core/terms/embedded-cache.ts), but for the counts the
 * write moved by the deltas it recorded (recordTermCountDeltas); `credentials`, the users, application passwords and
 * failure counters an authentication reads (http/auth.ts); `linked documents`, the stored documents of venues and
 * organizers (core/documents/linked-snapshot.ts), which their one writer says of every transaction that wrote none.
 */
export type DataPart = 'terms' | 'credentials' | 'linked documents';

const open = new WeakMap<Trx, TransactionHooks>();

function hooksOf(trx: Trx): TransactionHooks {
  const hooks = open.get(trx);
  if (!hooks) throw new Error('not a transaction of Store.transaction (or Store.batchTransaction)');
  return hooks;
}

/**
 * Runs `hook` right after the work of `trx`, before it enters commit order: for follow-up writes that take more than a
 * statement or two (rendering stored documents), which must not hold other writers up. A hook may add another, and
 * may record changes (they are written by the beforeCommit hooks that follow).
 */
export function afterWork(trx: Trx, hook: (trx: Trx) => Promise<void>): void {
  hooksOf(trx).afterWork.push(hook);
}

/**
 * Runs `hook` after the work of `trx` and every {@link afterWork} hook, right before it enters commit order: for a
 * write to rows that many writers share (the terms' counts), so that their locks are held from there to the commit
 * only, not through the rest of the transaction's work. Not after the step into commit order: a writer waiting there
 * for a shared row that another writer locked earlier in its work, while that one waits to enter commit order, would
 * make a deadlock. A hook may add another.
 */
export function lastWrite(trx: Trx, hook: (trx: Trx) => Promise<void>): void {
  hooksOf(trx).lastWrites.push(hook);
}

/**
 * Runs `hook` as one of the last statements of `trx`, after its work and once it holds the commit-order lock (see
 * StoreDialect.enterCommitOrder): what a hook allocates (change seqs) is in commit order. Other writers wait meanwhile:
 * keep hooks to a statement or two. A hook that throws rolls the transaction back. A hook may add another.
 */
export function beforeCommit(trx: Trx, hook: (trx: Trx) => Promise<void>): void {
  hooksOf(trx).beforeCommit.push(hook);
}

/**
 * Runs `hook` once `trx` has committed (never when it rolls back, nor for an attempt SQLite runs again), in the order
 * registered. A hook's error does not undo the commit: it is reported as a process warning.
 */
export function afterCommit(trx: Trx, hook: () => void): void {
  hooksOf(trx).afterCommit.push(hook);
}

/**
 * Says that `trx` writes nothing of `parts`: a cache of them read at the data version its commit moves on from still
 * holds at the version after it (Store.onOwnCommit). A writer says it only of a write whose every table it knows,
 * for a wrong word serves stale data; a write that says nothing invalidates every cache, as any commit does.
 */
export function leaveAlone(trx: Trx, ...parts: DataPart[]): void {
  for (const part of parts) hooksOf(trx).leftAlone.add(part);
}

/**
 * Records that `trx` added `deltas` to the stored counts of these terms (the one writer of `terms.published_count`
 * calls it): a write that leaves the terms alone but for their counts (`terms` left alone, counts moved) tells the
 * term snapshot by how much, instead of making it read them again. Outside Store.transaction nothing is recorded, and
 * the answer is false.
 */
export function recordTermCountDeltas(trx: Trx, deltas: ReadonlyMap<number, number>): boolean {
  const hooks = open.get(trx);
  if (hooks === undefined) return false;
  for (const [termId, delta] of deltas)
    hooks.termCountDeltas.set(termId, (hooks.termCountDeltas.get(termId) ?? 0) + delta);
  return true;
}

/** The store whose transaction `trx` is, as Store.transaction gave it to {@link openHooks}. */
export const openerOf = (trx: Trx): unknown => hooksOf(trx).store;

/** Store.transaction's side: registers the hooks of a new transaction (one per attempt). */
export function openHooks(trx: Trx, store: unknown): TransactionHooks {
  const hooks: TransactionHooks = {
    store,
    afterWork: [],
    lastWrites: [],
    beforeCommit: [],
    afterCommit: [],
    leftAlone: new Set(),
    termCountDeltas: new Map(),
  };
  open.set(trx, hooks);
  return hooks;
}

export async function runAfterWork(trx: Trx, hooks: TransactionHooks): Promise<void> {
  for (let hook = hooks.afterWork.shift(); hook; hook = hooks.afterWork.shift()) await hook(trx);
}

export async function runLastWrites(trx: Trx, hooks: TransactionHooks): Promise<void> {
  for (let hook = hooks.lastWrites.shift(); hook; hook = hooks.lastWrites.shift()) await hook(trx);
}

export async function runBeforeCommit(trx: Trx, hooks: TransactionHooks): Promise<void> {
  for (let hook = hooks.beforeCommit.shift(); hook; hook = hooks.beforeCommit.shift()) await hook(trx);
}

export function runAfterCommit(trx: Trx, hooks: TransactionHooks): void {
  open.delete(trx);
  for (const hook of hooks.afterCommit) {
    try {
      hook();
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), { code: 'AFTER_COMMIT_HOOK' });
    }
  }
}
