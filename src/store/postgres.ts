import pg from 'pg';
import { PostgresDialect } from 'kysely';

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
