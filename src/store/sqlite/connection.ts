import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type KyselyPlugin, type SqliteDatabase } from 'kysely';
import { yieldIfBusy } from '../event-loop.ts';
import type { Database } from '../schema.ts';
import { registerTextFunctions } from './text.ts';

export interface SqliteConnection {
  db: Kysely<Database>;
  /** The one connection Kysely runs every query on (better-sqlite3 is synchronous): row writers share it. */
  database: BetterSqlite3.Database;
}

/** WAL so readers never wait for the writer; a busy timeout so concurrent processes queue instead of failing. */
export function openSqliteConnection(path: string): SqliteConnection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  registerTextFunctions(database);
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }), plugins: [yieldingPlugin] }), database };
}

/**
 * D31: better-sqlite3 runs each query synchronously, so without this a whole request (a create with 50 inline
 * organizers: a hundred queries) would be one turn of the event loop. After each query, once the turn has lasted
 * 20 ms, the loop gets a turn. Inside a transaction that is safe: Kysely's connection mutex keeps other queries of
 * this process off the connection until the transaction ends.
 */
const yieldingPlugin: KyselyPlugin = {
  transformQuery: (args) => args.node,
  async transformResult(args) {
    await yieldIfBusy();
    return args.result;
  },
};

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, which costs about as much as running a primary-key read; the SQL text of a
 * query builder is stable, so prepared statements are kept (least recently used ones dropped) and reused.
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
        statement = database.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}
