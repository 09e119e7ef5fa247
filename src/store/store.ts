import { Kysely, sql, type Expression, type Insertable, type RawBuilder, type SqlBool, type Transaction } from 'kysely';
import { Migrator, type MigrationResultSet } from 'kysely/migration';
import type { DatabaseConfig } from '../config.ts';
import type { Dialect } from './dialect.ts';
import { migrations } from './migrations.ts';
import { createPostgresDialect, insertRowsPostgres, postgresBulkLoadUpkeep, readDataVersion } from './postgres.ts';
import { readStartedAfterCall } from './fresh-read.ts';
import type { Database } from './schema.ts';
import { createSqliteDialect, createSqliteRowWriter, isSqliteBusy, SQLITE_LOWER, sqliteBulkLoadUpkeep } from './sqlite.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

export interface Store {
  readonly db: Db;
  readonly dialect: Dialect;
  /** Unicode-aware lower-casing of a text expression, the same on both databases. */
  lower(expression: Expression<string> | RawBuilder<string>): RawBuilder<string>;
  /**
   * `text` contains `needle`, ignoring case for every letter (D11), as an SQL condition. SQLite's LIKE already
   * ignores ASCII case, so the Unicode lower-casing (a call into JavaScript per row) is paid only for non-ASCII needles.
   */
  containsText(text: Expression<string> | RawBuilder<unknown>, needle: string): RawBuilder<SqlBool>;
  /** One transaction per write; retried when a concurrent SQLite writer holds the lock. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * A transaction of the batch write path. On PostgreSQL its commit does not wait for the write-ahead log to reach
   * the disk (a server crash could undo it) until {@link flushBatches}. On SQLite it is an ordinary transaction.
   */
  batchTransaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * Makes every batch transaction committed so far durable: on PostgreSQL one ordinary commit, which flushes the log
   * up to itself; nothing to do on SQLite. Batch writers end with it.
   */
  flushBatches(): Promise<void>;
  /**
   * The batch write path (imports, seeding): many rows into one table inside `trx`. Rows are written as given
   * (already validated); every row has the same columns.
   */
  insertRows<T extends keyof Database>(trx: Trx, table: T, rows: readonly Insertable<Database[T]>[]): Promise<void>;
  /** {@link insertRows} into a table with a generated `id`, returning the new ids in input order. */
  insertRowsReturningIds<T extends 'posts' | 'terms'>(trx: Trx, table: T, rows: readonly Insertable<Database[T]>[]): Promise<number[]>;
  /**
   * Runs `load` as a bulk load into `tables` of a database that no service is using meanwhile: their non-unique
   * indexes (and on PostgreSQL their foreign keys) are dropped first and created again at the end, also when `load`
   * fails: one sort and one check per table instead of work per row (see each dialect's BulkLoadUpkeep). Unique
   * indexes stay, as they keep slugs unique and find them. A service reading meanwhile would get correct but slow
   * answers.
   */
  bulkLoad<T>(tables: readonly (keyof Database)[], load: () => Promise<T>): Promise<T>;
  /**
   * Changes whenever any process commits a write transaction: what a cache of database-derived answers compares
   * against to stay correct with several processes on one database.
   */
  dataVersion(): Promise<string>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL only: keep every table in this schema (tests isolate themselves this way). */
  schema?: string;
}

const BUSY_RETRIES = 8;

async function retryWhileBusy<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isSqliteBusy(error) || attempt >= BUSY_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

/** Ids are 32-bit `integer` columns: a larger (or non-positive) number names no row, and PostgreSQL would reject it. */
export const isRowId = (id: number) => Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;

/** A LIKE pattern's literal part, for `... like ? escape '\\'`. */
export const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema it can see; naming ours keeps another schema's
  // tables (another application's, or another test's) from being mistaken for them.
  const migrationTableSchema = dialect === 'postgres'
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0].schema
    : undefined;
  const migratorOn = (target: Kysely<any>) => new Migrator({
    db: target,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
    // SQLite: our own IMMEDIATE transaction below takes the write lock before anything is read.
    disableTransactions: dialect === 'sqlite',
  });
  // Several processes may start at once. PostgreSQL serialises them with an advisory lock inside the migrator;
  // SQLite with a transaction that takes the write lock first (a deferred one could read the migration table,
  // then find the tables created by another process), waiting up to the busy timeout.
  const result = dialect === 'sqlite'
    ? await db.connection().execute(async (connection) => {
      await retryWhileBusy(() => sql`begin immediate`.execute(connection));
      try {
        const outcome = await migratorOn(connection).migrateToLatest();
        await sql.raw(outcome.error ? 'rollback' : 'commit').execute(connection);
        return outcome;
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
    })
    : await retryWhileCatalogChanges(() => migratorOn(db).migrateToLatest());
  if (result.error) throw result.error;
}

/**
 * Kysely's migrator lists the tables of every schema it can see; a schema dropped by someone else during that listing
 * makes it fail (`3F000`/`42P01`) although nothing is wrong with ours, so the attempt is simply made again.
 */
async function retryWhileCatalogChanges(attempt: () => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let tries = 1; ; tries++) {
    const result = await attempt();
    const code = (result.error as { code?: string } | undefined)?.code;
    if ((code !== '3F000' && code !== '42P01') || tries >= 5) return result;
    await new Promise((resolve) => setTimeout(resolve, 50 * tries));
  }
}

export async function openStore(config: DatabaseConfig, options: OpenStoreOptions = {}): Promise<Store> {
  let db: Db;
  let dialect: Dialect;
  let insertRows: (trx: Trx, table: string, rows: readonly object[], returnIds: boolean) => Promise<number[]>;
  let dataVersion: () => Promise<string>;
  let transaction: Store['transaction'];
  if (config.dialect === 'sqlite') {
    const sqlite = createSqliteDialect(config.path);
    db = new Kysely<Database>({ dialect: sqlite.dialect });
    dialect = 'sqlite';
    const writeRows = createSqliteRowWriter(sqlite.database);
    insertRows = async (_trx, table, rows, returnIds) => writeRows(table, rows as Record<string, unknown>[], returnIds);
    // SQLite's data_version moves when another connection commits; this process's own commits are counted here.
    let ownCommits = 0;
    const readDataVersion = sqlite.database.prepare('pragma data_version').pluck();
    dataVersion = async () => `${readDataVersion.get()}:${ownCommits}`;
    transaction = async (work) => {
      const result = await retryWhileBusy(() => db.transaction().execute(work));
      ownCommits++;
      return result;
    };
  } else {
    if (options.schema) {
      const { dialect: bootstrap } = createPostgresDialect(config.url);
      const admin = new Kysely<any>({ dialect: bootstrap });
      try {
        await sql`create schema if not exists ${sql.id(options.schema)}`.execute(admin);
      } finally {
        await admin.destroy();
      }
    }
    const postgres = createPostgresDialect(config.url, options.schema);
    db = new Kysely<Database>({ dialect: postgres.dialect });
    dialect = 'postgres';
    insertRows = (trx, table, rows, returnIds) => insertRowsPostgres(trx, table, rows as Record<string, unknown>[], returnIds);
    dataVersion = readStartedAfterCall(() => readDataVersion(postgres.pool));
    // Every write transaction moves the version as its last statement, so it commits (or rolls back) with the write.
    transaction = (work) => db.transaction().execute(async (trx) => {
      const result = await work(trx);
      await trx.updateTable('data_version').set({ version: sql`version + 1` }).where('id', '=', 1).execute();
      return result;
    });
  }

  try {
    await migrateToLatest(db, dialect);
  } catch (error) {
    await db.destroy();
    throw error;
  }

  const lowerFunction = dialect === 'sqlite' ? SQLITE_LOWER : 'lower';
  const lower = (expression: Expression<string> | RawBuilder<unknown>) => sql<string>`${sql.raw(lowerFunction)}(${expression})`;
  return {
    db,
    dialect,
    lower,
    containsText(text, needle) {
      const pattern = `%${escapeLike(needle.toLowerCase())}%`;
      const asciiOnly = dialect === 'sqlite' && /^[\x00-\x7f]*$/.test(needle);
      return sql<SqlBool>`${asciiOnly ? text : lower(text)} like ${pattern} escape '\\'`;
    },
    transaction,
    batchTransaction: dialect === 'postgres'
      ? (work) => transaction(async (trx) => {
        await sql`set local synchronous_commit = off`.execute(trx);
        return work(trx);
      })
      : transaction,
    flushBatches: dialect === 'postgres' ? () => transaction(async () => {}) : async () => {},
    dataVersion,
    insertRows: async (trx, table, rows) => {
      await insertRows(trx, table, rows, false);
    },
    insertRowsReturningIds: (trx, table, rows) => insertRows(trx, table, rows, true),
    async bulkLoad(tables, load) {
      const upkeep = dialect === 'sqlite' ? sqliteBulkLoadUpkeep : postgresBulkLoadUpkeep;
      const deferred = await upkeep.deferrable(db, tables);
      // All or none: a drop that fails leaves nothing to build again.
      await transaction(async (trx) => {
        for (const { drop } of deferred) await sql.raw(drop).execute(trx);
      });
      try {
        return await load();
      } finally {
        // One statement at a time: one that fails (a foreign key the loaded rows break) leaves the others standing.
        const failures: unknown[] = [];
        for (const { create } of deferred) await sql.raw(create).execute(db).catch((error: unknown) => failures.push(error));
        if (failures.length > 0) throw failures[0];
        await upkeep.afterLoad?.(db, tables);
      }
    },
    async ping() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}
