import type { StoreDialect } from '../dialect.ts';
import { bulkLoadUpkeep } from './bulk-load.ts';
import { openSqliteConnection, temporaryFilesInMemory } from './connection.ts';
import { createCheckpoints } from './checkpoints.ts';
import { createDataVersion } from './data-version.ts';
import { migrate, schema } from './migration.ts';
import { createRowWriter } from './row-writer.ts';
import { searchIndexFilter } from './search.ts';
import { containsText, lower, orderByCodePoint } from './text.ts';
import { createGroupCommitRunner } from './group-commit.ts';
import { enterCommitOrder, lock } from './transaction.ts';

/** The SQLite implementation of {@link StoreDialect}, on the database file at `path`. */
export async function openSqliteDialect(path: string): Promise<StoreDialect> {
  let countCommit = () => {};
  const { db, database } = openSqliteConnection(path, () => countCommit());
  const dataVersion = createDataVersion(database);
  countCommit = dataVersion.committed;
  const checkpoints = createCheckpoints(database, path);
  const transaction = createGroupCommitRunner(
    db,
    () => database.inTransaction,
    () => checkpoints.committed(),
  );
  const writeRows = createRowWriter(database);
  return {
    name: 'sqlite',
    db,
    lower,
    containsText,
    orderByCodePoint,
    searchIndexFilter,
    transaction,
    enterCommitOrder,
    commitStep: async () => dataVersion.step(),
    // Batch commits are ordinary ones; the checkpoint thread copies their log as it does every other commit's.
    flushBatches: async () => {},
    lock,
    lockAll: async () => {},
    dataVersion: dataVersion.read,
    dataVersionColumn: dataVersion.column,
    insertRows: async (_trx, table, rows, returning) => writeRows(table, rows, returning),
    insertRowsReturningAll: async (_trx, table, rows, key) => writeRows.returningAll(table, rows, key),
    // Index builds sort their whole tables: on disk (see temporaryFilesInMemory).
    bulkLoadUpkeep: {
      ...bulkLoadUpkeep,
      deferrable: (loaded, tables) => {
        temporaryFilesInMemory(database, false);
        return bulkLoadUpkeep.deferrable(loaded, tables);
      },
      settled: () => temporaryFilesInMemory(database, true),
    },
    // One writer at a time anyway.
    batchConcurrency: 1,
    writers: schema.writers,
    readers: 'one',
    schema,
    migrate: async (migrations) => {
      // A migration may build an index over a large table: its sort on disk (see temporaryFilesInMemory).
      temporaryFilesInMemory(database, false);
      try {
        await migrate(db, migrations);
      } finally {
        temporaryFilesInMemory(database, true);
      }
    },
    close: async () => {
      await checkpoints.close();
      await db.destroy();
    },
  };
}
