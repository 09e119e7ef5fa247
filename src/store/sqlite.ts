import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql, SqliteDialect, type Kysely, type SqliteDatabase } from 'kysely';
import type { BulkLoadUpkeep, DeferredDefinition } from './dialect.ts';

export const SQLITE_LOWER = 'unicode_lower';

/** WAL so readers never wait for the writer; a busy timeout so concurrent processes queue instead of failing. */
export function createSqliteDialect(path: string): { dialect: SqliteDialect; database: BetterSqlite3.Database } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  // SQLite's own lower() only folds ASCII; D11 wants non-ASCII letters folded too.
  database.function(SQLITE_LOWER, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value);
  return { dialect: new SqliteDialect({ database: withStatementCache(database) }), database };
}

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

export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Rows per INSERT of the batch writer: measured, 16 rows a statement write about 1.6× as many rows a second as one. */
const ROWS_PER_STATEMENT = 16;

/**
 * Many rows into one table, {@link ROWS_PER_STATEMENT} rows per multi-row INSERT, through prepared statements kept per
 * (table, columns, row count): far cheaper than building, compiling and preparing a large INSERT per batch, and than a
 * native call per row. Runs on the same connection, so inside the current transaction. With `returnIds`, the rowids
 * in input order: one statement's rows get consecutive rowids under the write lock, the last one reported by SQLite.
 */
export function createSqliteRowWriter(database: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const statementFor = (table: string, columns: string[], rowCount: number) => {
    const key = `${table}(${columns.join(',')})×${rowCount}`;
    let statement = statements.get(key);
    if (!statement) {
      const row = `(${columns.map(() => '?').join(', ')})`;
      const quoted = columns.map((column) => `"${column}"`).join(', ');
      statement = database.prepare(`insert into "${table}" (${quoted}) values ${Array(rowCount).fill(row).join(', ')}`);
      statements.set(key, statement);
    }
    return statement;
  };
  return (table: string, rows: readonly Record<string, unknown>[], returnIds: boolean): number[] => {
    const ids: number[] = [];
    if (rows.length === 0) return ids;
    const columns = Object.keys(rows[0]);
    for (let offset = 0; offset < rows.length; offset += ROWS_PER_STATEMENT) {
      const count = Math.min(ROWS_PER_STATEMENT, rows.length - offset);
      const values: unknown[] = new Array(count * columns.length);
      let index = 0;
      for (let row = offset; row < offset + count; row++) for (const column of columns) values[index++] = rows[row][column] ?? null;
      const lastId = Number(statementFor(table, columns, count).run(values).lastInsertRowid);
      if (returnIds) for (let id = lastId - count + 1; id <= lastId; id++) ids.push(id);
    }
    return ids;
  };
}

/**
 * A bulk load on SQLite goes without the indexes made by CREATE INDEX (not by a key constraint) that are not unique.
 * Its foreign keys are part of the table and stay: checked row by row, they cost little next to index upkeep
 * (measured: switching them off for a load gained about 3 %, within the noise).
 */
export const sqliteBulkLoadUpkeep: BulkLoadUpkeep = {
  async deferrable(db, tables) {
    const indexes = await sql<DeferredDefinition>`select 'drop index "' || m.name || '"' as "drop", m.sql as "create"
      from sqlite_master m join pragma_index_list(m.tbl_name) l on l.name = m.name
      where m.type = 'index' and l.origin = 'c' and l."unique" = 0 and m.tbl_name in (${sql.join(tables)})
      order by m.name`.execute(db);
    return indexes.rows;
  },
};
