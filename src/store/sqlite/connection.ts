import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type KyselyPlugin,
  type SqliteDatabase,
} from 'kysely';
import { yieldIfBusy } from '../event-loop.ts';
import type { Database } from '../schema.ts';
import { withStablePlan } from './stable-plans.ts';
import { registerTextFunctions } from './text.ts';
import { isBusy } from './transaction.ts';

export interface SqliteConnection {
  db: Kysely<Database>;
  /** The one connection Kysely runs every query on (better-sqlite3 is synchronous): row writers share it. */
  database: BetterSqlite3.Database;
}

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * WAL so readers never wait for the writer; a busy timeout so concurrent processes queue instead of failing.
 * `committed` runs right after each transaction's COMMIT, before anything else can use the connection.
 */
export function openSqliteConnection(path: string, committed: () => void = () => {}): SqliteConnection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  temporaryFilesInMemory(database, true);
  registerTextFunctions(database);
  return {
    db: new Kysely<Database>({ dialect: new ImmediateSqliteDialect(database, committed), plugins: [yieldingPlugin] }),
    database,
  };
}

/**
 * Keeps SQLite's temporary files in memory, or on disk (its default). A savepoint keeps the original of every page its
 * write changes in a journal of its own, which SQLite writes to a temporary file once past 64 KiB; each write of a
 * group commit has one (a create changes about forty pages: group-commit.ts), so in memory is the connection's
 * setting. On disk for what sorts whole tables (a migration, a first load's index builds), which would otherwise take
 * their whole size in memory. Switching resets the connection's schemas, so that every prepared statement is prepared
 * again: only for those rare operations, and outside any transaction. Compiled at every call, as `database.pragma()`
 * does: SQLite applies it when it compiles the statement.
 */
export function temporaryFilesInMemory(database: BetterSqlite3.Database, inMemory: boolean): void {
  database.pragma(`temp_store = ${inMemory ? 'memory' : 'default'}`);
}

/**
 * D31: better-sqlite3 runs each query synchronously, so without this a whole request (a create with 50 inline
 * organizers: a hundred queries) would be one turn of the event loop. After each query, once the turn has lasted
 * SLICE_MS (event-loop.ts), the loop gets a turn. Inside a transaction that is safe: Kysely's connection mutex keeps
 * other queries of this process off the connection until the transaction ends.
 */
const yieldingPlugin: KyselyPlugin = {
  transformQuery: (args) => args.node,
  async transformResult(args) {
    await yieldIfBusy('statement');
    return args.result;
  },
};

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, which costs about as much as running a primary-key read; the SQL text of a
 * query builder is stable, so prepared statements are kept (least recently used ones dropped) and reused, each
 * prepared so that SQLite never prepares it again for its values (stable-plans.ts).
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text);
      } else {
        statement = database.prepare(withStablePlan(text));
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

/**
 * Write transactions begin IMMEDIATE: they take the write lock first. A plain (deferred) BEGIN reads first and asks
 * for the lock at its first write; when another process has committed meanwhile, SQLite refuses that upgrade at once
 * (the snapshot is stale), and the whole transaction is run again: under a steady write load from several processes
 * (WORKERS on one file) a write could lose that race eight times in a row and fail with SQLITE_BUSY.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #busyTimeout: BusyTimeout;
  readonly #committed: () => void;

  constructor(database: BetterSqlite3.Database, committed: () => void) {
    super({ database: withStatementCache(database) });
    this.#committed = committed;
    // Compiled at every call, as `database.pragma()` does: SQLite applies `pragma busy_timeout = N` when it compiles
    // the statement, so a statement prepared once and run again changes nothing. (Prepared once, as they were for a
    // while, the timeout stayed at BUSY_TIMEOUT_MS: BEGIN IMMEDIATE then slept in this thread while another connection
    // wrote, and with both connections in one process, waited out the whole timeout.)
    this.#busyTimeout = {
      off: () => database.pragma('busy_timeout = 0'),
      on: () => database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`),
    };
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = (connection) => beginImmediate(this.#busyTimeout, connection);
    // Counted at the COMMIT, while the transaction still holds the connection: no other transaction of this process
    // can commit first, so each commit is counted in commit order (sqlite/data-version.ts).
    const commit = driver.commitTransaction.bind(driver);
    driver.commitTransaction = async (connection) => {
      await commit(connection);
      this.#committed();
    };
    return driver;
  }
}

interface BusyTimeout {
  off(): void;
  on(): void;
}

/**
 * BEGIN IMMEDIATE, waiting for another connection's writer without blocking: better-sqlite3's busy timeout sleeps in
 * the calling thread, which would hold this process's event loop (and, in one process with two connections, the very
 * transaction it waits for) while the other writer finishes. So the lock is asked for with no busy timeout, and
 * asked again after a short pause, until BUSY_TIMEOUT_MS have passed.
 */
async function beginImmediate(busyTimeout: BusyTimeout, connection: DatabaseConnection): Promise<void> {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    busyTimeout.off();
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= giveUpAt) throw error;
    } finally {
      busyTimeout.on();
    }
    // 1–20 ms, jittered, so that waiting processes do not retry in step.
    await sleep(Math.min(attempt, 20) * (0.5 + Math.random()));
  }
}
