import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { SchemaDialect } from '../dialect.ts';
import { createSearchIndex, installSearchTriggers } from './search.ts';
import { lower } from './text.ts';
import { retryWhileBusy } from './transaction.ts';

export const schema: SchemaDialect = {
  serialId: (column) => column.primaryKey().autoIncrement(),
  // AUTOINCREMENT: a new key is above every key ever used, not only above the keys still there.
  serialBigKey: { type: 'integer', tweak: (column) => column.primaryKey().autoIncrement() },
  dataVersionTable: false,
  writers: 'one',
  // unicode_lower is registered as deterministic on every connection (text.ts), as an index on it requires.
  lower,
  createSearchIndex,
  // Writes list their events as pending instead of indexing them one at a time (search.ts).
  upgradeSearchIndex: installSearchTriggers,
};

/**
 * Several processes may start at once: a transaction that takes the write lock first (a deferred one could read the
 * migration table, then find the tables created by another process) serialises them, waiting up to the busy timeout.
 */
export async function migrate(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  const result = await db.connection().execute(async (connection) => {
    await retryWhileBusy(() => sql`begin immediate`.execute(connection));
    try {
      const outcome = await new Migrator({
        db: connection,
        provider: { getMigrations: async () => migrations },
        // Our own IMMEDIATE transaction above holds the write lock.
        disableTransactions: true,
      }).migrateToLatest();
      await sql.raw(outcome.error ? 'rollback' : 'commit').execute(connection);
      return outcome;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
  if (result.error) throw result.error;
}
