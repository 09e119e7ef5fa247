import { errorMessage } from '../../domain/errors.ts';
import { sql, type Kysely } from 'kysely';

/**
 * D30: keyword search served by pg_trgm GIN indexes on the very expressions the search compares (`lower(title)`,
 * `lower(excerpt)`, `lower(content)` LIKE '%term%', see text.ts), so the queries stay as they are and the planner
 * picks the indexes (a bitmap per column, OR-ed) when they narrow the set. When the extension cannot be created (no
 * privilege, not installed), the migration logs a warning and searches keep scanning.
 */
export async function createSearchIndex(db: Kysely<any>): Promise<void> {
  const extensionSchema = async () =>
    (
      await sql<{ schema: string }>`select extnamespace::regnamespace::text as schema
    from pg_extension where extname = 'pg_trgm'`.execute(db)
    ).rows[0]?.schema;
  let schema = await extensionSchema();
  if (schema === undefined) {
    // In `public`, not in the current schema: a schema dropped later (a test's) would take the extension with it.
    await sql`savepoint create_pg_trgm`.execute(db);
    try {
      await sql`create extension if not exists pg_trgm with schema public`.execute(db);
      await sql`release savepoint create_pg_trgm`.execute(db);
    } catch (error) {
      await sql`rollback to savepoint create_pg_trgm`.execute(db);
      // Another process may have created it meanwhile.
      schema = await extensionSchema();
      if (schema === undefined) {
        console.warn(
          `D30: the pg_trgm extension could not be created (${errorMessage(error)}); keyword search scans instead of using an index`,
        );
        return;
      }
    }
    schema ??= await extensionSchema();
  }
  // regnamespace::text is the schema's name quoted as an identifier where it needs it.
  const opclass = sql.raw(`${schema!}.gin_trgm_ops`);
  for (const column of ['title', 'excerpt', 'content']) {
    await sql`create index ${sql.id(`posts_search_${column}`)} on posts using gin (lower(${sql.ref(column)}) ${opclass})`.execute(
      db,
    );
  }
}
