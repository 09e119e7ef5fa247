import pg from 'pg';
import { PostgresDialect, sql, type Kysely } from 'kysely';

// COUNT(*) and other bigint results arrive as strings by default; our counts always fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPostgresDialect(url: string, schema?: string): { dialect: PostgresDialect; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return { dialect: new PostgresDialect({ pool }), pool };
}

/**
 * Many rows into one table in one statement with a single parameter: the rows travel as JSON and
 * `json_populate_recordset` types them by the table's own columns. Ids come back in input order (the sequence hands
 * them out in row order).
 */
export async function insertRowsPostgres(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[], returnIds: boolean): Promise<number[]> {
  if (rows.length === 0) return [];
  const columns = sql.join(Object.keys(rows[0]).map((column) => sql.id(column)));
  const select = sql`insert into ${sql.id(table)} (${columns}) select ${columns} from json_populate_recordset(null::${sql.id(table)}, ${JSON.stringify(rows)}::json)`;
  if (!returnIds) {
    await select.execute(db);
    return [];
  }
  const result = await sql<{ id: number }>`${select} returning id`.execute(db);
  return result.rows.map((row) => row.id).sort((a, b) => a - b);
}

/** The data version (see Store.dataVersion), as a statement prepared once per connection. */
export async function readDataVersion(pool: pg.Pool): Promise<string> {
  const result = await pool.query<{ version: string | number }>({ name: 'data_version', text: 'select version from data_version where id = 1' });
  return String(result.rows[0].version);
}
