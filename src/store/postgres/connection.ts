import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.ts';
import { PreparedStatementClient } from './prepared-client.ts';
import { ensureSearchPathSchema } from './search-path.ts';

// COUNT(*) and other bigint results arrive as strings by default; our counts (and change seqs) fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PostgresConnection {
  db: Kysely<Database>;
  pool: pg.Pool;
}

/**
 * PostgreSQL's own choice between a statement's plan for its values and the plan it keeps (prepared-client.ts),
 * whatever the server's configuration says: a statement sent unnamed is then planned for its values, as the lists'
 * selections must be. The pool awaits it before it hands a new connection out, so it precedes every statement on it
 * and none waits behind it on the connection (a `connect` listener sent it without waiting: the first statement then
 * queued behind it, which pg 8 warns about and pg 9 refuses). A server that refuses the setting still serves, as
 * before, planning as it would.
 */
const planAsPostgresChooses = (client: pg.ClientBase): Promise<void> =>
  client.query('set plan_cache_mode = auto').then(
    () => {},
    () => {},
  );

/**
 * A pool of connections to `url`; with `schema`, every table lives in that schema. The schema the search_path names
 * first (`schema`, or one DATABASE_URL sets) is created when missing. With `statementTimeoutMs`, every statement on
 * these connections is cancelled by the server after that long (D31, `statement_timeout`: error 57014, answered 503
 * `rest_timeout`). With `preparedStatements`, each connection keeps what it runs prepared (prepared-client.ts).
 */
export async function openPostgresConnection(
  url: string,
  schema?: string,
  statementTimeoutMs?: number,
  preparedStatements = true,
): Promise<PostgresConnection> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(preparedStatements ? { Client: PreparedStatementClient, onConnect: planAsPostgresChooses } : {}),
    ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  try {
    await ensureSearchPathSchema(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}
