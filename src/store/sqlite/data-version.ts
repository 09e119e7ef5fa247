import type BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import type { VersionStep } from '../dialect.ts';

/** The SQL function that gives this process's own commits (registered on its connection), as text. */
const OWN_COMMITS = 'own_commits';

/**
 * SQLite's `data_version` moves when another connection commits; this process's own commits are counted here (the
 * connection reports each one at its COMMIT: connection.ts).
 */
export function createDataVersion(database: BetterSqlite3.Database) {
  let ownCommits = 0;
  const readDataVersion = database.prepare('pragma data_version').pluck();
  database.function(OWN_COMMITS, { deterministic: false }, () => String(ownCommits));
  return {
    read: async () => `${readDataVersion.get()}:${ownCommits}`,
    /**
     * The same version as an expression a query selects, read in that query's own read transaction: the pragma's
     * table-valued form, and the own commits as the statement runs. A commit reported a moment after it happened
     * makes the version older than the data, never newer: a cache keyed by it misses once, and never serves stale.
     */
    column: sql<string>`((select data_version from pragma_data_version) || ':' || ${sql.raw(OWN_COMMITS)}())`,
    committed: () => {
      ownCommits++;
    },
    /**
     * Inside a write transaction, before its commit: the version now, and the one its commit makes. No other
     * connection can commit while this one holds the write lock, and the own commits move by this one alone.
     */
    step: (): VersionStep => {
      const moved = readDataVersion.get();
      return { before: `${moved}:${ownCommits}`, after: `${moved}:${ownCommits + 1}` };
    },
  };
}
