import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { MAX_PREPARED_PER_CONNECTION, MAX_PREPARED_VALUES } from '../../src/store/postgres/prepared-client.ts';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from '../helpers/harness.ts';

const preparedHere = async (db: Harness['store']['db']) =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
    (row) => row.statement,
  );

describe('PostgreSQL prepared statements', { skip: POSTGRES_AVAILABLE ? false : 'PostgreSQL does not answer' }, () => {
  let harness: Harness;
  before(async () => {
    harness = await createHarness('postgres');
  });
  after(async () => {
    await harness?.close();
  });

  it('prepares a statement with values once per connection and runs it again by name', async () => {
    const { store } = harness;
    await store.transaction(async (trx) => {
      for (let id = 1; id <= 3; id++) await trx.selectFrom('posts').select('id').where('id', '=', id).execute();
      const mine = (await preparedHere(trx)).filter((text) => /from "posts" where "id" = \$1/.test(text));
      assert.equal(mine.length, 1, 'one prepared statement for the three reads');
    });
  });

  it('runs a statement of many values unnamed', async () => {
    await harness.store.transaction(async (trx) => {
      const ids = Array.from({ length: MAX_PREPARED_VALUES + 1 }, (_, index) => index + 1);
      await trx.selectFrom('posts').select('id').where('id', 'in', ids).execute();
      const long = (await preparedHere(trx)).filter((text) => text.includes(`$${MAX_PREPARED_VALUES + 1}`));
      assert.deepEqual(long, []);
      const few = ids.slice(0, MAX_PREPARED_VALUES);
      await trx.selectFrom('posts').select('id').where('id', 'in', few).execute();
      const named = (await preparedHere(trx)).filter((text) => text.includes(`$${MAX_PREPARED_VALUES})`));
      assert.equal(named.length, 1);
    });
  });

  it('plans every execution for its values', async () => {
    await harness.store.transaction(async (trx) => {
      const { rows } = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(trx);
      assert.equal(rows[0].plan_cache_mode, 'force_custom_plan');
    });
  });

  it('runs a text of several statements without values (a migration) as before', async () => {
    await sql.raw('select 1; select 2').execute(harness.store.db);
  });

  it('PG_PREPARED_STATEMENTS=0 prepares nothing', async () => {
    const plain = await createHarness('postgres', { PG_PREPARED_STATEMENTS: '0' });
    try {
      await plain.store.transaction(async (trx) => {
        await trx.selectFrom('posts').select('id').where('id', '=', 1).execute();
        assert.deepEqual(await preparedHere(trx), []);
      });
    } finally {
      await plain.close();
    }
  });
  // Last: it fills its connection's names.
  it('keeps at most the bounded number per connection; later texts still run, unnamed', async () => {
    const { store } = harness;
    await store.transaction(async (trx) => {
      // Distinct texts of few values: as many as the bound, and more.
      for (let count = 1; count <= MAX_PREPARED_PER_CONNECTION + 20; count++) {
        const rows = await trx
          .selectFrom('posts')
          .select('id')
          .where('id', 'in', [count % MAX_PREPARED_VALUES, -1])
          .where(sql.lit(count), '>', 0)
          .execute();
        assert.ok(Array.isArray(rows));
      }
      const prepared = await preparedHere(trx);
      assert.ok(prepared.length <= MAX_PREPARED_PER_CONNECTION, `${prepared.length} prepared`);
      assert.ok(prepared.length >= MAX_PREPARED_PER_CONNECTION - 50, 'the connection did prepare what it ran');
    });
  });
});
