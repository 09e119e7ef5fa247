import { errorCode } from '../domain/errors.ts';
import type { Expression, Insertable, Kysely, RawBuilder, Selectable, SqlBool, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { DatabaseConfig } from '../config.ts';
import { claimCommit } from './deadline.ts';
import type { StoreDialect } from './dialect.ts';
import { migrations } from './migrations.ts';
import { ownCommitOf, type OwnCommitListener, type WriteReport } from './own-commits.ts';
import { openPostgresDialect } from './postgres/dialect.ts';
import type { Database } from './schema.ts';
import { openSqliteDialect } from './sqlite/dialect.ts';
import {
  openerOf,
  openHooks,
  runAfterCommit,
  runAfterWork,
  runBeforeCommit,
  runLastWrites,
} from './transaction-hooks.ts';

export {
  afterCommit,
  afterWork,
  beforeCommit,
  lastWrite,
  leaveAlone,
  recordTermCountDeltas,
  type DataPart,
} from './transaction-hooks.ts';

/** The store whose transaction `trx` is (only stores open transactions with hooks: the cast holds). */
export const storeOf = (trx: Trx): Store => openerOf(trx) as Store;
export { escapeLike } from './text.ts';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;

export interface Store {
  readonly db: Db;
  /** How writers share the database (StoreDialect.writers): row-locked claims and a background thread, or neither. */
  readonly writers: 'many' | 'one';
  /** How a process's reads share the database (StoreDialect.readers): at once on several connections, or in turn. */
  readonly readers: 'many' | 'one';
  /** Unicode-aware lower-casing of a text expression, the same on both databases. */
  lower(expression: Expression<string> | RawBuilder<string>): RawBuilder<string>;
  /**
   * `text` contains `needle`, ignoring case for every letter (D11), as an SQL condition. SQLite's LIKE already
   * ignores ASCII case, so the Unicode lower-casing (a call into JavaScript per row) is paid only for non-ASCII needles.
   */
  containsText(text: Expression<string> | RawBuilder<unknown>, needle: string): RawBuilder<SqlBool>;
  /** `expression` as a sort key that compares Unicode code points on both databases, whatever their collation. */
  orderByCodePoint(expression: Expression<string> | RawBuilder<unknown>): RawBuilder<string>;
  /**
   * D30: a condition on an event id that the search index answers, true for every event whose title, excerpt or
   * content contains each of `terms` (and for some others: the exact containsText conditions must still be applied);
   * undefined when the index cannot narrow the set (no term long enough, or the database serves containsText itself).
   */
  searchIndexFilter(
    id: Expression<number> | RawBuilder<unknown>,
    terms: readonly string[],
  ): RawBuilder<SqlBool> | undefined;
  /**
   * One transaction per write; retried whole when a concurrent SQLite writer holds the lock. After `work`, its
   * {@link afterWork} hooks run (the stored documents are rendered there), then its {@link lastWrite} hooks (the
   * terms' counts), then the transaction enters commit order, runs its {@link beforeCommit} hooks (the change log is
   * written there) and commits; then its {@link afterCommit} hooks run.
   */
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
  /** Batch transactions a batch writer keeps in flight at once (more than one only helps PostgreSQL). */
  readonly batchConcurrency: number;
  /**
   * A lock named `key`, held until `trx` ends: transactions that take the same key run one after the other (to
   * check-then-write safely). No-op on SQLite, whose single writer serialises them already.
   */
  lock(trx: Trx, key: string): Promise<void>;
  /** {@link lock} of every key, in the order given, in one statement. */
  lockAll(trx: Trx, keys: readonly string[]): Promise<void>;
  /**
   * The batch write path (imports, seeding): many rows into one table inside `trx`. Rows are written as given
   * (already validated); every row has the same columns.
   */
  insertRows<T extends keyof Database>(trx: Trx, table: T, rows: readonly Insertable<Database[T]>[]): Promise<void>;
  /** {@link insertRows} into a table with a generated `id`, returning the new ids in input order. */
  insertRowsReturningIds<T extends 'posts' | 'terms'>(
    trx: Trx,
    table: T,
    rows: readonly Insertable<Database[T]>[],
  ): Promise<number[]>;
  /** {@link insertRows} into a table with a generated integer primary key `key`, returning the new keys in input order. */
  insertRowsReturning<T extends keyof Database>(
    trx: Trx,
    table: T,
    rows: readonly Insertable<Database[T]>[],
    key: keyof Database[T] & string,
  ): Promise<number[]>;
  /**
   * {@link insertRows}, answering the new rows whole (as `select *` reads them: defaults filled) in the order of their
   * integer primary key `key`: what a batch writer tells its transaction's followers instead of their reading them.
   */
  insertRowsReturningAll<T extends keyof Database>(
    trx: Trx,
    table: T,
    rows: readonly Insertable<Database[T]>[],
    key: keyof Database[T] & string,
  ): Promise<Selectable<Database[T]>[]>;
  /**
   * Runs `load` as a bulk load into `tables` of a database that no service is using meanwhile: their non-unique
   * indexes (and on PostgreSQL their foreign keys) are dropped first and created again at the end, also when `load`
   * fails: one sort and one check per table instead of work per row (see each dialect's bulk-load.ts). Unique
   * indexes stay, as they keep slugs unique and find them. A service reading meanwhile would get correct but slow
   * answers.
   */
  bulkLoad<T>(tables: readonly (keyof Database)[], load: () => Promise<T>): Promise<T>;
  /**
   * Changes whenever any process commits a write transaction: what a cache of database-derived answers compares
   * against to stay correct with several processes on one database.
   */
  dataVersion(): Promise<string>;
  /**
   * The data version as an expression that a query selects beside its own columns, so that both are read in one
   * statement, from one snapshot (one round trip on PostgreSQL): the version is exactly that of the rows beside it.
   */
  readonly dataVersionColumn: RawBuilder<string>;
  /**
   * Calls `listener` after each commit of this process whose writer said it left some parts of the data alone
   * (leaveAlone), with the data version just before that commit and just after it (no other commit between) and those
   * parts: a cache of them kept under `before` holds under `after`. Returns a function that removes it.
   */
  onOwnCommit(listener: OwnCommitListener): () => void;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** PostgreSQL only: keep every table in this schema (tests isolate themselves this way). */
  schema?: string;
  /** Imports and upkeep are not requests: their statements run without the requests' time limit (D31). */
  withoutStatementTimeout?: boolean;
}

export type { OwnCommit, OwnCommitListener } from './own-commits.ts';

/** Ids are 32-bit `integer` columns: a larger (or non-positive) number names no row, and PostgreSQL would reject it. */
export const isRowId = (id: number) => Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647;

export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A row refers to one that is not there (any more): e.g. an item deleted for good while a write linking it ran. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** A write whose transaction is about to commit: its hooks, and the data version step it read for the caches. */
interface CommittedWrite {
  trx: Trx;
  hooks: ReturnType<typeof openHooks>;
  step?: WriteReport['step'];
}

/** Each open store by its own `db`: what a reader outside any transaction reads through (see {@link outsideTransaction}). */
const storesByDb = new WeakMap<Db, Store>();

/**
 * The store whose own `db` this is, or undefined for a transaction: a per-process cache of database-derived values,
 * compared against {@link Store.dataVersion}, may answer reads outside transactions, never reads inside a write (which
 * must see its own uncommitted changes).
 */
export const outsideTransaction = (db: Db): Store | undefined => storesByDb.get(db);

/** The one place that knows which implementation of StoreDialect serves which configuration. */
function openDialect(config: DatabaseConfig, options: OpenStoreOptions): Promise<StoreDialect> {
  switch (config.dialect) {
    case 'sqlite':
      return openSqliteDialect(config.path);
    case 'postgres':
      return openPostgresDialect(
        config.url,
        options.schema,
        options.withoutStatementTimeout ? undefined : config.statementTimeoutMs,
        config.preparedStatements ?? true,
      );
  }
}

export async function openStore(config: DatabaseConfig, options: OpenStoreOptions = {}): Promise<Store> {
  const dialect = await openDialect(config, options);
  const db = dialect.db;
  try {
    await dialect.migrate(migrations(dialect.schema));
  } catch (error) {
    await dialect.close();
    throw error;
  }

  const ownCommitListeners = new Set<OwnCommitListener>();
  /** The writes each commit holds (several on SQLite, which commits the writes that arrive together at once). */
  const writesOf = new WeakMap<object, CommittedWrite[]>();

  /** After a commit: the caches are told of it once, whatever writes it holds, then each write's own hooks run. */
  const announce = (writes: readonly CommittedWrite[]) => {
    // Before the hooks: a listener told of the commit a moment late only makes a cache miss (its version moved on).
    const commit = ownCommitOf(
      writes.map(({ step, hooks }) => ({ step, leftAlone: hooks.leftAlone, termCountDeltas: hooks.termCountDeltas })),
    );
    if (commit)
      for (const listener of ownCommitListeners) {
        try {
          listener(commit);
        } catch (error) {
          process.emitWarning(error instanceof Error ? error : new Error(String(error)), { code: 'OWN_COMMIT' });
        }
      }
    for (const { trx, hooks } of writes) runAfterCommit(trx, hooks);
  };

  const run = async <T>(work: (trx: Trx) => Promise<T>, batch: boolean): Promise<T> => {
    let releaseCommit: (() => void) | undefined;
    try {
      return await dialect.transaction(
        async (trx, commit) => {
          // A new set of hooks per attempt: an attempt SQLite runs again starts afresh.
          const hooks = openHooks(trx, store);
          const value = await work(trx);
          await runAfterWork(trx, hooks);
          await runLastWrites(trx, hooks);
          await dialect.enterCommitOrder(trx);
          await runBeforeCommit(trx, hooks);
          // Asked only when some cache may outlive the commit: on SQLite it reads the data version's pragma.
          const step =
            hooks.leftAlone.size > 0 && ownCommitListeners.size > 0 ? await dialect.commitStep(trx) : undefined;
          // D31: past the request's deadline this throws, and the write rolls back.
          releaseCommit?.();
          releaseCommit = claimCommit();
          // The last step of the write, which cannot fail on its own after it: the first write of a commit to get
          // here announces it, with every write that got here.
          let writes = writesOf.get(commit.key);
          if (writes === undefined) {
            const held: CommittedWrite[] = [];
            writesOf.set(commit.key, held);
            commit.afterCommit(() => announce(held));
            writes = held;
          }
          writes.push({ trx, hooks, step });
          return value;
        },
        { batch },
      );
    } finally {
      releaseCommit?.();
    }
  };

  const store: Store = {
    db,
    lower: dialect.lower,
    containsText: dialect.containsText,
    searchIndexFilter: dialect.searchIndexFilter,
    orderByCodePoint: dialect.orderByCodePoint,
    transaction: (work) => run(work, false),
    batchTransaction: (work) => run(work, true),
    flushBatches: () => dialect.flushBatches(),
    writers: dialect.writers,
    readers: dialect.readers,
    batchConcurrency: dialect.batchConcurrency,
    lock: (trx, key) => dialect.lock(trx, key),
    lockAll: (trx, keys) => dialect.lockAll(trx, keys),
    dataVersion: () => dialect.dataVersion(),
    dataVersionColumn: dialect.dataVersionColumn,
    onOwnCommit(listener) {
      ownCommitListeners.add(listener);
      return () => {
        ownCommitListeners.delete(listener);
      };
    },
    insertRows: async (trx, table, rows) => {
      await dialect.insertRows(trx, table, rows);
    },
    insertRowsReturningIds: (trx, table, rows) => dialect.insertRows(trx, table, rows, 'id'),
    insertRowsReturning: (trx, table, rows, key) => dialect.insertRows(trx, table, rows, key),
    insertRowsReturningAll: async <T extends keyof Database>(
      trx: Trx,
      table: T,
      rows: readonly Insertable<Database[T]>[],
      key: keyof Database[T] & string,
    ) => (await dialect.insertRowsReturningAll(trx, table, rows, key)) as Selectable<Database[T]>[],
    async bulkLoad(tables, load) {
      const deferred = await dialect.bulkLoadUpkeep.deferrable(db, tables);
      // All or none: a drop that fails leaves nothing to build again.
      await store.transaction(async (trx) => {
        for (const { drop } of deferred) await sql.raw(drop).execute(trx);
      });
      // Whatever the load did, the deferred definitions are made again, one statement at a time: one that fails (a
      // foreign key the loaded rows break) leaves the others standing. A failed load's own error is the one reported.
      const restore = async () => {
        const failures: unknown[] = [];
        for (const { create } of deferred)
          await sql
            .raw(create)
            .execute(db)
            .catch((error: unknown) => failures.push(error));
        if (failures.length > 0) throw failures[0];
        await dialect.bulkLoadUpkeep.afterLoad?.(db, tables);
      };
      try {
        let loaded: Awaited<ReturnType<typeof load>>;
        try {
          loaded = await load();
        } catch (error) {
          await restore().catch(() => {});
          throw error;
        }
        await restore();
        return loaded;
      } finally {
        dialect.bulkLoadUpkeep.settled?.();
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
    close: () => dialect.close(),
  };
  storesByDb.set(db, store);
  return store;
}
