import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
import { errorCode } from '../../domain/errors.ts';
import { CommitHooks, type Commit } from '../commit.ts';
import { OneValue, preparedQuery } from '../prepared-query.ts';
import { BATCH_START } from './prepared-client.ts';
import type { VersionStep } from '../dialect.ts';
import type { Database } from '../schema.ts';

/**
 * PostgreSQL's answers to two transactions that wait for each other's locks (it rolls one back: deadlock_detected)
 * or that cannot be put in any order (serialization_failure): the one rolled back is run again, as SQLite's
 * runner does after a busy lock.
 */
const RUN_AGAIN = new Set(['40P01', '40001']);
const ATTEMPTS = 4;

/**
 * One transaction per write (READ COMMITTED), run again from the start when PostgreSQL rolled it back for a deadlock.
 * Writes lock rows in an order chosen to avoid deadlocks, but not every pair of writes can share one (a term's
 * removal locks its children before its links; an event write links terms, then writes its other links): the one
 * PostgreSQL picks then starts over instead of failing. A batch transaction's commit does not wait for the
 * write-ahead log to reach the disk (a server crash could undo it) until the next ordinary commit (`flushBatches`),
 * and its statements are planned for their values at every execution (prepared-client.ts, BATCH_START).
 */
export function createTransactionRunner(db: Kysely<Database>) {
  return async <T>(
    work: (trx: Transaction<Database>, commit: Commit) => Promise<T>,
    options: { batch: boolean },
  ): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      // Each attempt has its own: what an attempt rolled back registered never runs.
      const commit = new CommitHooks();
      try {
        const value = await db.transaction().execute(async (trx) => {
          // A batch's statements are each planned for their values (prepared-client.ts): its tables grow under it
          // (an import into an empty database), and a plan kept from its first units had made an import twice as slow.
          if (options.batch) await sql.raw(BATCH_START).execute(trx);
          return work(trx, commit);
        });
        commit.run();
        return value;
      } catch (error) {
        const code = errorCode(error);
        if (attempt >= ATTEMPTS || typeof code !== 'string' || !RUN_AGAIN.has(code)) throw error;
        // 2–30 ms, jittered, so that the two do not meet again in step.
        await sleep(attempt * 5 * (0.4 + Math.random()) + 2);
      }
    }
  };
}

/**
 * Moves the data version, taking the row lock of `data_version` until the commit. Every write transaction does this
 * as its last step, so they pass this point one at a time, in commit order: one that comes here while another holds
 * the lock waits until that one has committed (and is visible), then goes on (READ COMMITTED re-reads the row).
 * Whatever a transaction allocates after this point (change seqs) therefore increases in commit order.
 */
export async function enterCommitOrder(trx: Transaction<Database>): Promise<void> {
  const row = await nextDataVersion.first(trx);
  if (row === undefined) throw new Error('the data_version row is missing');
  versionsTaken.set(trx, BigInt(row.version));
}

const nextDataVersion = preparedQuery((db) =>
  db.updateTable('data_version').set({ version: sql`version + 1` }).where('id', '=', 1).returning('version'),
);

/** The version each transaction's step into commit order took. */
const versionsTaken = new WeakMap<Transaction<Database>, bigint>();

/**
 * The version `trx` took entering commit order, and the one before: every write transaction takes the next one under
 * the row lock, so no other commit comes between the two.
 */
export async function commitStep(trx: Transaction<Database>): Promise<VersionStep> {
  const taken = versionsTaken.get(trx);
  if (taken === undefined) throw new Error('the transaction has not entered commit order');
  return { before: String(taken - 1n), after: String(taken) };
}

/** An ordinary commit after batch commits: with a transaction id of its own, it flushes the log up to itself. */
export async function flushBatches(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(enterCommitOrder);
}

/** {@link lock} of many keys in one statement, taken in the order given. */
export async function lockAll(trx: Transaction<Database>, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await lockedKeys.rows(trx, new OneValue(keys));
}

const lockedKeys = preparedQuery(
  (_db, keys: OneValue<string>) => sql`select pg_advisory_xact_lock(hashtextextended(k.key, 0))
    from unnest(cast(${keys} as text[])) with ordinality as k(key, n) order by k.n`,
);

const lockedKey = preparedQuery((_db, key: string) => sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);

/** An advisory lock named by a 64-bit hash of `key`, released when `trx` ends. */
export async function lock(trx: Transaction<Database>, key: string): Promise<void> {
  await lockedKey.rows(trx, key);
}
