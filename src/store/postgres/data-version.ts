import { sql } from 'kysely';
import type pg from 'pg';
import { readStartedAfterCall } from '../fresh-read.ts';

/**
 * The data version is the one row of `data_version`, which every write transaction moves as it enters commit order
 * (transaction.ts). Read as a statement prepared once per connection; concurrent callers share reads
 * (readStartedAfterCall) without ever getting one older than their call.
 */
export function createDataVersion(pool: pg.Pool) {
  return {
    read: readStartedAfterCall(async () => {
      const result = await pool.query<{ version: string | number }>({
        name: 'data_version',
        text: 'select version from data_version where id = 1',
      });
      return String(result.rows[0].version);
    }),
    /** The same version as a subquery, text as {@link read} returns it. */
    column: sql<string>`(select cast(version as text) from data_version where id = 1)`,
  };
}
