// SQLite: a write that finds another connection's write lock waits for it without holding the event loop. Its BEGIN
// IMMEDIATE asks with no busy timeout and asks again after a pause (store/sqlite/connection.ts), since better-sqlite3
// would otherwise sleep in this thread for as long as the lock is held, up to the busy timeout. (SQLite alone: a wait
// for PostgreSQL never holds the process.)
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { openSqliteConnection } from '../../src/store/sqlite/connection.ts';

describe('SQLite: a write waiting for another connection’s write lock', () => {
  it('asks for the lock without a busy timeout from its connection’s first write on, and writes once it is free', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'calendar-events-lock-')), 'test.db');
    const setup = new BetterSqlite3(path);
    setup.pragma('journal_mode = WAL');
    setup.exec('create table probe (value text)');
    setup.close();
    // Another connection (another process's, in production) holds the write lock until this process's event loop
    // lets it go, twenty-five timers later.
    const holder = new BetterSqlite3(path);
    holder.exec('begin immediate');
    const { db, database } = openSqliteConnection(path);
    // The busy timeout each BEGIN IMMEDIATE of this connection runs under. SQLite applies `pragma busy_timeout` when
    // it compiles it: a pragma statement prepared once and run again took effect one run late, so a connection's
    // first write slept in this thread for the lock, holding the timers that would release it.
    const timeouts: number[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((text: string) => {
      const statement = prepare(text);
      if (text !== 'begin immediate') return statement;
      const run = statement.run.bind(statement);
      statement.run = ((...args: unknown[]) => {
        timeouts.push(Number(database.pragma('busy_timeout', { simple: true })));
        return run(...(args as []));
      }) as typeof statement.run;
      return statement;
    }) as typeof database.prepare;
    try {
      const released = (async () => {
        for (let tick = 0; tick < 25; tick++) await sleep(20);
        holder.exec('commit');
      })();
      await db.transaction().execute(async (trx) => {
        await sql`insert into probe (value) values ('written')`.execute(trx);
      });
      await released;
      assert.ok(timeouts.length > 1, `asked again after the lock was found held: ${timeouts.length} attempts`);
      assert.deepEqual(new Set(timeouts), new Set([0]));
      assert.deepEqual(database.prepare('select value from probe').all(), [{ value: 'written' }]);
      // Statements of the transaction, and every other, still wait for a lock as before.
      assert.ok(Number(database.pragma('busy_timeout', { simple: true })) > 0);
    } finally {
      if (holder.inTransaction) holder.exec('rollback');
      holder.close();
      await db.destroy();
    }
  });
});
