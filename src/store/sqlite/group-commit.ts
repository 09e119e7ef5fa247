import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, type Kysely, type KyselyPlugin, type Transaction } from 'kysely';
import { CommitHooks, type Commit } from '../commit.ts';
import type { Database } from '../schema.ts';
import { BUSY_RETRIES, isBusy } from './transaction.ts';

type Trx = Transaction<Database>;

/** How many writes one transaction takes at most, and for how long (ms of the group's work) it takes more. */
export interface GroupLimits {
  writes: number;
  windowMs: number;
}

/**
 * At most 32 writes, taken during the group's first 10 ms: the reads of this process wait for the connection while a
 * group holds it, so a group may hold them up that long and a little more (its last write and the commit).
 */
export const GROUP_LIMITS: GroupLimits = { writes: 32, windowMs: 10 };

/** A write waiting for a transaction to run in. */
interface Write {
  work: (trx: Trx, commit: Commit) => Promise<unknown>;
  /** A batch write (an import's 500 units) has its transaction to itself. */
  batch: boolean;
  /** Runs a function in the asynchronous context the write was asked in: its request's deadline (store/deadline.ts). */
  inContext: <R>(run: () => R) => R;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Each write's own Transaction object, on the group's transaction: per-transaction state is kept per write. */
const ownObject: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => args.result,
};

/** Each write's savepoint, compiled once. */
const SAVEPOINT = {
  begin: CompiledQuery.raw('savepoint group_write'),
  release: CompiledQuery.raw('release savepoint group_write'),
  rollback: CompiledQuery.raw('rollback to savepoint group_write'),
};

/**
 * The context the groups run in: none of a request's (a module's load has none). The group's own statements and its
 * commit belong to every write it holds, not to the request whose write happened to start it.
 */
const detached = AsyncLocalStorage.snapshot();

/**
 * The writes of this process, committed in groups. A SQLite commit appends every page its transaction changed to the
 * write-ahead log, and the writes of a busy service change many of the same pages (the indexes' last leaves, the
 * counts, the change log): a create's commit wrote about forty pages and was a quarter of its CPU. So the writes that
 * arrive while one runs share its transaction and commit, one after the other, each under a savepoint: one that
 * throws rolls back to its savepoint, undoing its own part only, and fails alone; the others commit together, and
 * each learns its outcome once the commit did (or did not) happen. Before committing, the group gives the event loop
 * one turn, so that writes already received join it. The writes run in the order they were asked in, each in its
 * own asynchronous context and with its own Transaction object (its hooks, its per-transaction state), sharing
 * `commit`. SQLite's single writer runs them one at a time either way; what a write sees is what it would see
 * committed after the writes before it.
 *
 * While another process holds the write lock past the busy timeout, the whole group is run again (each write must be
 * safe to run again, as for any SQLite retry); an error that ends SQLite's transaction itself (a full disk, an I/O
 * error) fails every write of the group, as it would have failed each of them. A batch write has its transaction to
 * itself and no savepoint, as before groups. `committed` runs after each commit.
 */
export function createGroupCommitRunner(
  db: Kysely<Database>,
  /** Whether SQLite still has a transaction open (an error that ends it, a full disk, leaves none). */
  inTransaction: () => boolean,
  committed: () => void,
  limits: GroupLimits = GROUP_LIMITS,
) {
  const waiting: Write[] = [];
  let draining = false;

  /** The next write the group takes, or undefined once it is complete. */
  async function nextWrite(taken: readonly Write[], startedAt: number): Promise<Write | undefined> {
    if (taken.length === 0) return waiting.shift();
    if (taken[0].batch || taken.length >= limits.writes || performance.now() - startedAt >= limits.windowMs)
      return undefined;
    if (waiting.length === 0) await nextTurn();
    return waiting[0]?.batch === false ? waiting.shift() : undefined;
  }

  /**
   * Runs `write` under its savepoint: its value, or the error it failed with alone (its part undone). A batch write,
   * alone in its transaction, has no savepoint: its error fails the transaction, which undoes it.
   */
  async function runWrite(
    trx: Trx,
    write: Write,
    commit: CommitHooks,
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
    // Its hooks join the commit's once its part is kept.
    const own = new CommitHooks(commit.key);
    const run = () => write.inContext(() => write.work(trx.withPlugin(ownObject), own));
    if (write.batch) {
      const value = await run();
      commit.adopt(own);
      return { ok: true, value };
    }
    await trx.executeQuery(SAVEPOINT.begin);
    try {
      const value = await run();
      await trx.executeQuery(SAVEPOINT.release);
      commit.adopt(own);
      return { ok: true, value };
    } catch (error) {
      // Not the write's alone: SQLite ended the transaction, or another process's lock (the group runs again).
      if (!inTransaction() || isBusy(error)) throw error;
      await trx.executeQuery(SAVEPOINT.rollback);
      await trx.executeQuery(SAVEPOINT.release);
      return { ok: false, error };
    }
  }

  /** One transaction of the waiting writes, to its commit (or its failure). */
  async function commitGroup(): Promise<void> {
    const taken: Write[] = [];
    const values = new Map<Write, unknown>();
    for (let attempt = 0; ; attempt++) {
      // Each attempt has its own: what an attempt rolled back registered never runs.
      const commit = new CommitHooks();
      values.clear();
      try {
        await db.transaction().execute(async (trx) => {
          const startedAt = performance.now();
          let index = 0;
          for (;;) {
            if (index === taken.length) {
              const next = await nextWrite(taken, startedAt);
              if (next === undefined) break;
              taken.push(next);
            }
            const write = taken[index];
            const outcome = await runWrite(trx, write, commit);
            if (outcome.ok) {
              values.set(write, outcome.value);
              index++;
            } else {
              taken.splice(index, 1);
              write.reject(outcome.error);
            }
          }
        });
      } catch (error) {
        if (isBusy(error) && attempt < BUSY_RETRIES) {
          await sleep(10 * 2 ** attempt);
          continue;
        }
        for (const write of taken) write.reject(error);
        return;
      }
      committed();
      commit.run();
      for (const write of taken) write.resolve(values.get(write));
      return;
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (waiting.length > 0) await commitGroup();
    } finally {
      draining = false;
    }
  }

  return <T>(work: (trx: Trx, commit: Commit) => Promise<T>, options: { batch: boolean }): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push({
        work,
        batch: options.batch,
        inContext: AsyncLocalStorage.snapshot(),
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (!draining) detached(() => void drain());
    });
}
