import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * One transaction per write (READ COMMITTED). A batch transaction's commit does not wait for the write-ahead log to
 * reach the disk (a server crash could undo it) until the next ordinary commit (`flushBatches`).
 */
export function createTransactionRunner(db: Kysely<Database>) {
  return <T>(work: (trx: Transaction<Database>) => Promise<T>, options: { batch: boolean }): Promise<T> =>
    db.transaction().execute(async (trx) => {
      if (options.batch) await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
}

/**
 * Moves the data version, taking the row lock of `data_version` until the commit. Every write transaction does this
 * as its last step, so they pass this point one at a time, in commit order: one that comes here while another holds
 * the lock waits until that one has committed (and is visible), then goes on (READ COMMITTED re-reads the row).
 * Whatever a transaction allocates after this point (change seqs) therefore increases in commit order.
 */
export async function enterCommitOrder(trx: Transaction<Database>): Promise<void> {
  await trx.updateTable('data_version').set({ version: sql`version + 1` }).where('id', '=', 1).execute();
}

/** An ordinary commit after batch commits: with a transaction id of its own, it flushes the log up to itself. */
export async function flushBatches(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(enterCommitOrder);
}

/** {@link lock} of many keys in one statement, taken in the order given. */
export async function lockAll(trx: Transaction<Database>, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(k.key, 0))
    from unnest(cast(${[...keys]} as text[])) with ordinality as k(key, n) order by k.n`.execute(trx);
}

/** An advisory lock named by a 64-bit hash of `key`, released when `trx` ends. */
export async function lock(trx: Transaction<Database>, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
