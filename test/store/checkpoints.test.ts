import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { createCheckpoints } from '../../src/store/sqlite/checkpoints.ts';

const PAGE = 4096;
const directory = mkdtempSync(join(tmpdir(), 'calendar-events-checkpoints-'));
after(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
/** A database file as the store opens one (connection.ts), with a table whose rows fill about a page each. */
function openDatabase() {
  const path = join(directory, `test-${++files}.db`);
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.exec('create table pages (id integer primary key, body blob not null)');
  const insert = database.prepare('insert into pages (body) values (?)');
  const body = Buffer.alloc(PAGE - 200, 7);
  const write = database.transaction((pages: number) => {
    for (let page = 0; page < pages; page++) insert.run(body);
  });
  return { path, database, write };
}

/**
 * How many times the write-ahead log of the database at `path` has been started over: its header's checkpoint
 * sequence number, which SQLite moves on at every restart (https://www.sqlite.org/fileformat.html#wal_file_format).
 */
function logRestarts(path: string): number {
  const header = Buffer.alloc(32);
  const file = openSync(`${path}-wal`, 'r');
  try {
    readSync(file, header, 0, 32, 0);
  } finally {
    closeSync(file);
  }
  return header.readUInt32BE(12);
}

describe('SQLite checkpoints in their own thread', () => {
  it('copies a few small commits into the database file soon after them', async () => {
    const { path, database, write } = openDatabase();
    const checkpoints = createCheckpoints(database, path);
    try {
      const before = statSync(path).size;
      // 100 pages: far below the 1,000 at which a commit would copy the log itself.
      for (let commit = 0; commit < 5; commit++) {
        write(20);
        checkpoints.committed();
      }
      await checkpoints.settled();
      assert.ok(
        statSync(path).size >= before + 100 * PAGE,
        `the database file grew by ${statSync(path).size - before} bytes`,
      );
      assert.equal(
        database.pragma('wal_autocheckpoint', { simple: true }),
        4_000,
        'commits copy four times more rarely',
      );
    } finally {
      await checkpoints.close();
      database.close();
    }
  });

  it('starts the log over under a steady load of commits', async () => {
    const { path, database, write } = openDatabase();
    const checkpoints = createCheckpoints(database, path, { commitCheckpointPages: 200, afterCommitMs: 1 });
    try {
      // The thread started (it starts at the first commit), then 3,000 pages in commits of 10 with the thread
      // checkpointing beside them: a log that were never started over would hold all of them.
      write(1);
      checkpoints.committed();
      await checkpoints.settled();
      const startedBefore = logRestarts(path);
      for (let commit = 0; commit < 300; commit++) {
        write(10);
        checkpoints.committed();
        await new Promise(setImmediate);
      }
      await checkpoints.settled();
      // How often, and so how long the log grows in between, depends on how often a commit's own checkpoint finds
      // the thread copying (it then leaves it to the thread): on a quiet machine it stayed under 1,000 pages, on two
      // busy cores it reached 1,954 once. That it was started over at all is what the thread alone would not do.
      const restarts = logRestarts(path) - startedBefore;
      assert.ok(restarts >= 1, `the log was started over ${restarts} times`);
      const logPages = statSync(`${path}-wal`).size / PAGE;
      assert.ok(logPages < 3_000, `the log reached ${Math.round(logPages)} pages`);
      assert.equal(database.prepare('select count(*) from pages').pluck().get(), 3_001);
    } finally {
      await checkpoints.close();
      database.close();
    }
  });

  it('hands checkpoints back to the commits, with a warning, when its thread fails', async () => {
    const { database } = openDatabase();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    // The thread opens the file by its path: one it cannot open makes it fail as it starts.
    const checkpoints = createCheckpoints(database, join(directory, 'missing', 'test.db'));
    try {
      checkpoints.committed();
      await checkpoints.settled();
      assert.equal(database.pragma('wal_autocheckpoint', { simple: true }), 1_000, "SQLite's own default again");
      await new Promise(setImmediate);
      assert.ok(
        warnings.some((warning) => (warning as Error & { code?: string }).code === 'SQLITE_CHECKPOINT_THREAD'),
        warnings.map(String).join('; '),
      );
    } finally {
      process.off('warning', onWarning);
      await checkpoints.close();
      database.close();
    }
  });
});
