// A new PostgreSQL connection of the store is set up (plan_cache_mode, postgres/connection.ts) before the pool hands it
// out: no statement of the service is ever sent while another is still under way on its connection, which pg 8
// queues with a deprecation warning and pg 9 refuses.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../../src/store/store.ts';
import { POSTGRES_AVAILABLE, TEST_DATABASE_URL } from '../helpers/harness.ts';

describe('PostgreSQL connections of the store', { skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer' }, () => {
  it('are set up before their first statement, which never waits behind another on its connection', async () => {
    const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    const store = await openStore({ dialect: 'postgres', url: TEST_DATABASE_URL }, { schema });
    // pg's own bookkeeping (8.x): `_queryQueue` holds what waits behind the statement under way.
    const query = pg.Client.prototype.query;
    let sent = 0;
    let queued = 0;
    pg.Client.prototype.query = function (this: pg.Client & { _queryQueue: unknown[] }, ...args: unknown[]) {
      sent++;
      if (this._queryQueue.length > 0) queued++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      // The store's one open connection held by a read, the data version is read through the pool itself
      // (pool.query), on a connection the pool opens for it and sends the statement on as soon as it hands it out.
      const held = sql`select pg_sleep(0.1)`.execute(store.db);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await store.dataVersion();
      // And through Kysely, on connections opened for them while the others are busy.
      const modes = await Promise.all(
        Array.from({ length: 5 }, () =>
          sql<{ plan_cache_mode: string }>`show plan_cache_mode`
            .execute(store.db)
            .then((result) => result.rows[0].plan_cache_mode),
        ),
      );
      await held;
      assert.deepEqual(new Set(modes), new Set(['auto']));
      assert.ok(sent >= 7, `${sent} statements seen`);
      assert.equal(queued, 0, `${queued} of ${sent} statements were sent behind another on their connection`);
    } finally {
      pg.Client.prototype.query = query;
      await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
      await store.close();
    }
  });
});
