import { sql, type Kysely } from 'kysely';
import { preparedQuery, type PreparedQuery } from '../prepared-query.ts';

/**
 * Many rows into one table in one statement with a single parameter: the rows travel as JSON and
 * `json_populate_recordset` types them by the table's own columns. With `returning` (a generated key column), the
 * keys come back in input order (the sequence hands them out in row order).
 */
export async function insertRows(
  db: Kysely<any>,
  table: string,
  rows: readonly Record<string, unknown>[],
  returning?: string,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const insert = insertOf(table, Object.keys(rows[0]), returning);
  const result = await insert.rows(db, JSON.stringify(rows));
  return returning === undefined ? [] : result.map((row) => row.key).sort((a, b) => a - b);
}

/**
 * {@link insertRows}, answering the new rows whole (`returning *`) in the order of `key` (an integer primary key): in
 * the same statement, instead of a read of them after it.
 */
export async function insertRowsReturningAll(
  db: Kysely<any>,
  table: string,
  rows: readonly Record<string, unknown>[],
  key: string,
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const inserted = await insertOf(table, Object.keys(rows[0]), WHOLE_ROWS).rows(db, JSON.stringify(rows));
  // A statement returning whole rows answers them, not the `{ key }` the map's type names for the other statements.
  const whole = inserted as unknown as Record<string, unknown>[];
  return whole.sort((a, b) => Number(a[key]) - Number(b[key]));
}

/** What {@link insertOf} returns instead of one key column: every column (`returning *`). */
const WHOLE_ROWS = { whole: true } as const;

/** One statement text per table, columns and key returned, whatever the number of rows: compiled once. */
const inserts = new Map<string, PreparedQuery<[rows: string], { key: number }>>();

function insertOf(table: string, columnNames: readonly string[], returning: string | typeof WHOLE_ROWS | undefined) {
  const key = JSON.stringify([table, columnNames, returning]);
  let insert = inserts.get(key);
  if (insert === undefined) {
    const columns = sql.join(columnNames.map((column) => sql.id(column)));
    insert = preparedQuery((_db, rows: string) => {
      const select = sql<{
        key: number;
      }>`insert into ${sql.id(table)} (${columns}) select ${columns} from json_populate_recordset(null::${sql.id(table)}, ${rows}::json)`;
      if (returning === undefined) return select;
      return typeof returning === 'string'
        ? sql<{ key: number }>`${select} returning ${sql.id(returning)} as key`
        : sql<{ key: number }>`${select} returning *`;
    });
    inserts.set(key, insert);
  }
  return insert;
}
