import { sql } from 'kysely';
import type { BulkLoadUpkeep, DeferredDefinition } from '../dialect.ts';

/**
 * A bulk load on SQLite goes without the indexes made by CREATE INDEX (not by a key constraint) that are not unique.
 * Its foreign keys are part of the table and stay: checked row by row, they cost little next to index upkeep
 * (measured: switching them off for a load gained about 3 %, within the noise).
 */
export const bulkLoadUpkeep: BulkLoadUpkeep = {
  async deferrable(db, tables) {
    const indexes = await sql<DeferredDefinition>`select 'drop index "' || m.name || '"' as "drop", m.sql as "create"
      from sqlite_master m join pragma_index_list(m.tbl_name) l on l.name = m.name
      where m.type = 'index' and l.origin = 'c' and l."unique" = 0 and m.tbl_name in (${sql.join(tables)})
      order by m.name`.execute(db);
    return indexes.rows;
  },
};
