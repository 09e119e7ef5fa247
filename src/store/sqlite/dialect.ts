import type { StoreDialect } from '../dialect.ts';
import { bulkLoadUpkeep } from './bulk-load.ts';
import { openSqliteConnection } from './connection.ts';
import { createBatchCheckpoints } from './batch-checkpoints.ts';
import { createDataVersion } from './data-version.ts';
import { migrate, schema } from './migration.ts';
import { createRowWriter } from './row-writer.ts';
import { searchIndexFilter } from './search.ts';
import { containsText, lower, orderByCodePoint } from './text.ts';
import { createTransactionRunner, enterCommitOrder, lock } from './transaction.ts';

/** The SQLite implementation of {@link StoreDialect}, on the database file at `path`. */
export async function openSqliteDialect(path: string): Promise<StoreDialect> {
  const { db, database } = openSqliteConnection(path);
  const dataVersion = createDataVersion(database);
  const transaction = createTransactionRunner(db, dataVersion.committed);
  const writeRows = createRowWriter(database);
  const batchCheckpoints = createBatchCheckpoints(database);
  return {
    name: 'sqlite',
    db,
    lower,
    containsText,
    orderByCodePoint,
    searchIndexFilter,
    transaction: (work, { batch }) => {
      if (batch) batchCheckpoints.begin();
      return transaction(work);
    },
    enterCommitOrder,
    flushBatches: async () => batchCheckpoints.end(),
    lock,
    lockAll: async () => {},
    dataVersion: dataVersion.read,
    // `pragma data_version` is no value a query can select.
    dataVersionColumn: undefined,
    insertRows: async (_trx, table, rows, returning) => writeRows(table, rows, returning),
    bulkLoadUpkeep,
    // One writer at a time anyway.
    batchConcurrency: 1,
    writers: 'one',
    schema,
    migrate: (migrations) => migrate(db, migrations),
    close: () => db.destroy(),
  };
}
