import type BetterSqlite3 from 'better-sqlite3';

/**
 * SQLite's `data_version` moves when another connection commits; this process's own commits are counted here (the
 * transaction runner reports each one).
 */
export function createDataVersion(database: BetterSqlite3.Database) {
  let ownCommits = 0;
  const readDataVersion = database.prepare('pragma data_version').pluck();
  return {
    read: async () => `${readDataVersion.get()}:${ownCommits}`,
    committed: () => {
      ownCommits++;
    },
  };
}
