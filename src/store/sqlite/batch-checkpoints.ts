import type BetterSqlite3 from 'better-sqlite3';

/** SQLite's own default: a commit that leaves the write-ahead log longer than this copies it into the database. */
const DEFAULT_WAL_PAGES = 1000;
/** While batch transactions run: about 40 MB of log (4 KiB pages) between copies. */
const BATCH_WAL_PAGES = 10_000;

/**
 * A batch writer (an import) commits a transaction of a few hundred units every few milliseconds, each writing more
 * than the default 1,000 pages of log; at the default, nearly every commit also copies the log into the database and
 * syncs it, and the same index pages are copied again at the next one. From the first batch transaction to
 * `flushBatches`, this connection lets the log grow to {@link BATCH_WAL_PAGES} first (measured: a 20,000-event import
 * 1,859 → 2,041 events/s); the flush copies what is left and restores the default. Only this connection's commits
 * are affected: other processes on the file keep theirs.
 */
export function createBatchCheckpoints(database: BetterSqlite3.Database) {
  const batchLimit = database.prepare(`pragma wal_autocheckpoint = ${BATCH_WAL_PAGES}`);
  const defaultLimit = database.prepare(`pragma wal_autocheckpoint = ${DEFAULT_WAL_PAGES}`);
  const checkpoint = database.prepare('pragma wal_checkpoint(passive)');
  let batching = false;
  return {
    begin() {
      if (batching) return;
      batchLimit.get();
      batching = true;
    },
    end() {
      if (!batching) return;
      batching = false;
      defaultLimit.get();
      checkpoint.get();
    },
  };
}
