import { sql } from 'kysely';
import type { BulkLoadUpkeep, DeferredDefinition } from '../dialect.ts';
import { backfillSearchIndex, SEARCH_INSERT_TRIGGER } from './search.ts';

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
    if (!tables.includes('posts')) return indexes.rows;
    // D30: the search index's insert trigger too (as it stands); the loaded events are indexed at the end in one statement.
    const triggers = await sql<DeferredDefinition>`select 'drop trigger "' || name || '"' as "drop", sql as "create"
      from sqlite_master where type = 'trigger' and name = ${SEARCH_INSERT_TRIGGER}`.execute(db);
    return [...indexes.rows, ...triggers.rows];
  },
  async afterLoad(db, tables) {
    if (tables.includes('posts')) await backfillSearchIndex(db);
  },
};
