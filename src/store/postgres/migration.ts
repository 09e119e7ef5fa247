import { errorCode } from '../../domain/errors.ts';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import type { SchemaDialect } from '../dialect.ts';
import { createSearchIndex } from './search.ts';
import { lower } from './text.ts';

export const schema: SchemaDialect = {
  serialId: (column) => column.primaryKey().generatedByDefaultAsIdentity(),
  serialBigKey: { type: 'bigint', tweak: (column) => column.primaryKey().generatedByDefaultAsIdentity() },
  dataVersionTable: true,
  writers: 'many',
  lower,
  createSearchIndex,
  // GIN indexes keep their own list of pending entries (fastupdate); nothing to change.
  upgradeSearchIndex: async () => {},
};

/** Several processes may start at once: the migrator serialises them with an advisory lock. */
export async function migrate(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema it can see; naming ours keeps another schema's tables
  // (another application's, or another test's) from being mistaken for them.
  const migrationTableSchema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
    .schema;
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableSchema });
  const result = await retryWhileCatalogChanges(() => migrator.migrateToLatest());
  if (result.error) throw result.error;
}

/** What a listing of the catalog answers when another schema's tables are dropped under it. */
const CATALOG_RACES = new Set(['3F000', '42P01', '42703']);

/**
 * Kysely's migrator lists the tables (and, through pg_get_serial_sequence, the columns) of every schema it can see; a
 * schema dropped by someone else during that listing makes it fail (`3F000`, `42P01`, or `42703` "column … does not
 * exist") although nothing is wrong with ours, so the attempt is simply made again.
 */
async function retryWhileCatalogChanges(attempt: () => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let tries = 1; ; tries++) {
    const result = await attempt();
    const code = errorCode(result.error);
    if (typeof code !== 'string' || !CATALOG_RACES.has(code) || tries >= 5) return result;
    await new Promise((resolve) => setTimeout(resolve, 50 * tries));
  }
}
