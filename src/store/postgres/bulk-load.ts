import { sql } from 'kysely';
import type { BulkLoadUpkeep, DeferredDefinition } from '../dialect.ts';

/**
 * A bulk load on PostgreSQL goes without the non-unique indexes of the loaded tables (in the current schema) and
 * without their foreign keys, whose per-row checks cost more than the inserts themselves (measured: two thirds of the
 * time of a link-table load). Foreign keys come back last, each checked once for its whole table.
 */
export const bulkLoadUpkeep: BulkLoadUpkeep = {
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
