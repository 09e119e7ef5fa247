import type {
  ColumnDataType,
  ColumnDefinitionBuilder,
  Expression,
  Kysely,
  RawBuilder,
  SqlBool,
  Transaction,
} from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Commit } from './commit.ts';
import type { Database } from './schema.ts';

/**
 * Everything that differs between the two databases, as one interface (as Kysely's own `Dialect`/`DialectAdapter`).
 * `store/sqlite/` and `store/postgres/` implement it with the same file names in each folder; `store.ts` picks one
 * implementation when it opens the database, and nothing else asks which database it talks to.
 */
export interface StoreDialect {
  /** For messages only: never branch on it (add a member here instead). */
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;

  // --- Text -----------------------------------------------------------------------------------------------------
  /** Unicode-aware lower-casing of a text expression, the same on both databases. */
  lower(expression: Expression<string> | RawBuilder<unknown>): RawBuilder<string>;
  /** `text` contains `needle` ignoring case for every letter (D11); see Store.containsText. */
  containsText(text: Expression<string> | RawBuilder<unknown>, needle: string): RawBuilder<SqlBool>;
  /** `expression` as a sort key compared by Unicode code points, whatever the database's collation. */
  orderByCodePoint(expression: Expression<string> | RawBuilder<unknown>): RawBuilder<string>;
  /** See Store.searchIndexFilter. */
  searchIndexFilter(
    id: Expression<number> | RawBuilder<unknown>,
    terms: readonly string[],
  ): RawBuilder<SqlBool> | undefined;

  // --- Transactions ---------------------------------------------------------------------------------------------
  /**
   * Runs `work` in a transaction and commits it; `commit` runs what must follow once the commit happened. `batch`: a
   * transaction of the batch write path, whose commit need not be durable before {@link flushBatches}. SQLite commits
   * the writes that arrive together in one transaction, each under a savepoint of its own (a write that throws undoes
   * only its own part; `commit` is then shared by the writes it holds), and retries the whole transaction while
   * another process holds the write lock (`work` must be safe to run again). PostgreSQL commits each write alone.
   */
  transaction<T>(
    work: (trx: Transaction<Database>, commit: Commit) => Promise<T>,
    options: { batch: boolean },
  ): Promise<T>;
  /**
   * The last step of a write transaction before its hooks and its commit: from here to the commit, this transaction
   * holds what orders commits, so that what it allocates next (change seqs) is in commit order. PostgreSQL: the row
   * lock of `data_version` (also moving the data version); SQLite: nothing, its single writer already orders them.
   */
  enterCommitOrder(trx: Transaction<Database>): Promise<void>;
  /**
   * After {@link enterCommitOrder}, just before the commit: the data version `trx`'s commit moves on from, and the one
   * it moves to, with no other commit between them. PostgreSQL: the version its step into commit order took, and the
   * one before; SQLite: its own commits, counted at each commit, one more, under a `data_version` that no other
   * connection can move while this one holds the write lock.
   */
  commitStep(trx: Transaction<Database>): Promise<VersionStep>;
  /** Makes every batch transaction committed so far durable. */
  flushBatches(): Promise<void>;
  /**
   * A named lock held until `trx` ends: writers taking the same key run one after the other. PostgreSQL: an advisory
   * transaction lock; SQLite: nothing, as its writers are serialised (and a writer whose snapshot went stale is
   * retried).
   */
  lock(trx: Transaction<Database>, key: string): Promise<void>;
  /** {@link lock} of every key, in the order given (callers sort them, so that two never wait on each other in a circle). */
  lockAll(trx: Transaction<Database>, keys: readonly string[]): Promise<void>;
  /** See Store.dataVersion. */
  dataVersion(): Promise<string>;
  /** See Store.dataVersionColumn. */
  readonly dataVersionColumn: RawBuilder<string>;

  // --- Batch write path -------------------------------------------------------------------------------------------
  /**
   * Many rows into one table inside `trx`, every row with the same columns. With `returning` (a generated integer
   * key column), the new keys in input order.
   */
  insertRows(
    trx: Transaction<Database>,
    table: string,
    rows: readonly Record<string, unknown>[],
    returning?: string,
  ): Promise<number[]>;
  /**
   * {@link insertRows}, answering every new row whole, as a `select *` of it would (defaults and generated columns
   * filled), in the order of `key` (an integer primary key; a generated one hands out keys in input order): what a
   * batch writer tells the followers of its transaction instead of their reading the rows again.
   */
  insertRowsReturningAll(
    trx: Transaction<Database>,
    table: string,
    rows: readonly Record<string, unknown>[],
    key: string,
  ): Promise<Record<string, unknown>[]>;
  /** What a bulk load may go without (see Store.bulkLoad). */
  readonly bulkLoadUpkeep: BulkLoadUpkeep;
  /** Batch transactions an import keeps in flight at once. */
  readonly batchConcurrency: number;
  /**
   * How writers share the database. `many` (PostgreSQL): several connections write at once, so queued work is claimed
   * with row locks (`FOR UPDATE SKIP LOCKED`) and background work may run on a thread of its own with its own
   * connections. `one` (SQLite): one writer holds the whole database, so claims need no row locks and background work
   * stays on the process's one connection.
   */
  readonly writers: 'many' | 'one';
  /**
   * How a process's reads share the database. `many` (PostgreSQL): statements sent together run at once on connections
   * of the pool, each planned for what it alone asks. `one` (SQLite): the process's one connection runs them one after
   * another, so two statements that read the same rows read them twice.
   */
  readonly readers: 'many' | 'one';

  // --- Schema -----------------------------------------------------------------------------------------------------
  readonly schema: SchemaDialect;
  /** Brings the schema up to date with `migrations`, safely when several processes start at once. */
  migrate(migrations: Record<string, Migration>): Promise<void>;

  close(): Promise<void>;
}

export type ColumnTweak = (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** What migrations write differently. */
export interface SchemaDialect {
  /** A generated 32-bit integer primary key (`integer` column). */
  readonly serialId: ColumnTweak;
  /**
   * A generated, strictly increasing 64-bit primary key that never hands out a value twice, not even after the
   * newest rows were deleted.
   */
  readonly serialBigKey: { type: ColumnDataType; tweak: ColumnTweak };
  /** Whether the data version lives in the one-row `data_version` table (PostgreSQL) rather than in the database. */
  readonly dataVersionTable: boolean;
  /** Whether the transactions of several processes write at once (PostgreSQL): the store's StoreDialect.writers too. */
  readonly writers: 'one' | 'many';
  /** The dialect's Unicode lower-casing (`StoreDialect.lower`), for expression indexes its queries can use. */
  readonly lower: (expression: Expression<string> | RawBuilder<unknown>) => RawBuilder<string>;
  /** D30: the index that serves keyword search of events (migration 0012). */
  createSearchIndex(db: Kysely<any>): Promise<void>;
  /** D30: the index's upkeep as it is now, on a database whose index an earlier version made (migration 0023). */
  upgradeSearchIndex(db: Kysely<any>): Promise<void>;
}

/** Something a bulk load may do without and build again at its end, as the two statements that do that. */
export interface DeferredDefinition {
  drop: string;
  create: string;
}

/** How a dialect lightens a bulk load into `tables` (see Store.bulkLoad). */
export interface BulkLoadUpkeep {
  /** What the load goes without; created again in this order. */
  deferrable(db: Kysely<any>, tables: readonly string[]): Promise<DeferredDefinition[]>;
  /** Runs once everything is built again: statistics the load made stale. */
  afterLoad?(db: Kysely<any>, tables: readonly string[]): Promise<void>;
  /** Runs once the load is over, whatever its outcome (after {@link afterLoad} when it ran). */
  settled?(): void;
}

/** The data version before a commit and after it, one commit apart (StoreDialect.commitStep). */
export interface VersionStep {
  before: string;
  after: string;
}
