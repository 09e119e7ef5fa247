import pg from 'pg';
import { PostgresDialect, sql, type Kysely } from 'kysely';
import type { BulkLoadUpkeep, DeferredDefinition } from './dialect.ts';

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

/**
 * A bulk load on PostgreSQL goes without the non-unique indexes of the loaded tables (in the current schema) and
 * without their foreign keys, whose per-row checks cost more than the inserts themselves (measured: two thirds of the
 * time of a link-table load). Foreign keys come back last, each checked once for its whole table.
 */
export const postgresBulkLoadUpkeep: BulkLoadUpkeep = {
  async deferrable(db, tables) {
    const result = await sql<DeferredDefinition>`select "drop", "create" from (
        select 1 as position, format('drop index %I', i.relname) as "drop", pg_get_indexdef(i.oid) as "create"
        from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
        where t.relnamespace = current_schema()::regnamespace and not x.indisunique and t.relname in (${sql.join(tables)})
        union all
        select 2, format('alter table %I drop constraint %I', t.relname, c.conname),
          format('alter table %I add constraint %I ', t.relname, c.conname) || pg_get_constraintdef(c.oid)
        from pg_constraint c join pg_class t on t.oid = c.conrelid
        where t.relnamespace = current_schema()::regnamespace and c.contype = 'f' and t.relname in (${sql.join(tables)})
      ) definitions order by position, "drop"`.execute(db);
    return result.rows;
  },
  // Plans use statistics and index-only scans the visibility map, both stale right after a load until autovacuum
  // comes by: they are refreshed now rather than serving the first minutes with bad plans.
  async afterLoad(db, tables) {
    await sql`vacuum (analyze) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
  },
};
