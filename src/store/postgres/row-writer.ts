import { sql, type Kysely } from 'kysely';

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
  const columns = sql.join(Object.keys(rows[0]).map((column) => sql.id(column)));
  const select = sql`insert into ${sql.id(table)} (${columns}) select ${columns} from json_populate_recordset(null::${sql.id(table)}, ${JSON.stringify(rows)}::json)`;
  if (!returning) {
    await select.execute(db);
    return [];
  }
  const result = await sql<{ key: number }>`${select} returning ${sql.id(returning)} as key`.execute(db);
  return result.rows.map((row) => row.key).sort((a, b) => a - b);
}
