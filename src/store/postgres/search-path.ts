import pg from 'pg';
import { ConfigError } from '../../config.ts';

/** Entries of a search_path that stand for a schema PostgreSQL picks itself (the user's own, the session's temporary one). */
const RESOLVED_BY_POSTGRES = new Set(['$user', 'pg_temp']);

/**
 * The schema PostgreSQL creates new tables in under `searchPath` (a `search_path` setting), when that is a schema of
 * its own: the first entry, read as PostgreSQL reads it (double-quoted with `""` for a quote, or folded to lower case).
 */
export function firstSearchPathSchema(searchPath: string): string | undefined {
  const text = searchPath.trimStart();
  let schema: string;
  if (text.startsWith('"')) {
    const quoted = /^"((?:[^"]|"")*)"/.exec(text);
    if (!quoted) return undefined;
    schema = quoted[1].replaceAll('""', '"');
  } else {
    schema = text
      .split(',', 1)[0]
      .trim()
      .replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  }
  return schema === '' || RESOLVED_BY_POSTGRES.has(schema) ? undefined : schema;
}

const schemaExists = async (client: pg.PoolClient, schema: string) =>
  (await client.query('select 1 from pg_namespace where nspname = $1', [schema])).rowCount === 1;

/**
 * Creates the schema the connections' search_path names first (e.g. DATABASE_URL's `options=-c search_path=calendar`)
 * when it does not exist yet: without it PostgreSQL has no schema to create the tables in and migrating fails with
 * "no schema has been selected to create in". A schema that exists is left alone, so a user who may not create
 * schemas can use one made for it. When it cannot be created: a ConfigError saying how to make it.
 */
export async function ensureSearchPathSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    const {
      rows: [session],
    } = await client.query<{ search_path: string; user: string; database: string }>(
      `select current_setting('search_path') as search_path, current_user as user, current_database() as database`,
    );
    const schema = firstSearchPathSchema(session.search_path);
    if (schema === undefined || (await schemaExists(client, schema))) return;
    try {
      await client.query(`create schema if not exists ${pg.escapeIdentifier(schema)}`);
    } catch (error) {
      // A broken connection says nothing about the schema.
      if (!(error instanceof pg.DatabaseError)) throw error;
      // Another process starting at the same time may have created it first (IF NOT EXISTS does not cover that race).
      if (await schemaExists(client, schema)) return;
      const user = pg.escapeIdentifier(session.user);
      throw new ConfigError(
        'DATABASE_URL',
        `connects with search_path ${pg.escapeIdentifier(schema)}, a schema that does not ` +
          `exist, and user ${user} could not create it (${error.message}). Create it as a user who may: ` +
          `CREATE SCHEMA ${pg.escapeIdentifier(schema)} AUTHORIZATION ${user}; or let ${user} create schemas: ` +
          `GRANT CREATE ON DATABASE ${pg.escapeIdentifier(session.database)} TO ${user};`,
      );
    }
  } finally {
    client.release();
  }
}
