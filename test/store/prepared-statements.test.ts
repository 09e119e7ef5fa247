import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { PLANNED_PER_EXECUTION, plannedPerExecution } from '../../src/store/planned-per-execution.ts';
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

  it("leaves every plan to PostgreSQL, but a batch transaction's statements to their values", async () => {
    const { store } = harness;
    const mode = async (db: Harness['store']['db']) =>
      (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db)).rows[0].plan_cache_mode;
    assert.equal(await store.transaction(mode), 'auto');
    assert.equal(await mode(store.db), 'auto');
    // Not forced for the whole transaction: PostgreSQL's own statements (each foreign key's check of a row written)
    // keep their plans within a batch too.
    assert.equal(await store.batchTransaction(mode), 'auto');
    const read = (db: Harness['store']['db']) =>
      db.selectFrom('posts').select(['id', 'slug']).where('id', '=', 4242).where('slug', '=', 'batch-probe').execute();
    const probe = (text: string) => /select "id", "slug" from "posts" where "id" = \$1 and "slug" = \$2$/.test(text);
    // Within the batch the statement runs unnamed, each time, and the batch's commit waits for no disk.
    const inBatch = await store.batchTransaction(async (trx) => {
      for (let time = 0; time < 3; time++) await read(trx);
      const commit = (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(trx)).rows[0];
      return { named: (await preparedHere(trx)).filter(probe), synchronousCommit: commit.synchronous_commit };
    });
    assert.deepEqual(inBatch, { named: [], synchronousCommit: 'off' });
    // After the batch, on the same connections, it is named again, and a commit waits for the disk again.
    const later = await Promise.all(
      Array.from({ length: 4 }, () =>
        store.transaction(async (trx) => {
          await read(trx);
          const commit = (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(trx)).rows[0];
          return {
            named: (await preparedHere(trx)).filter(probe).length,
            synchronousCommit: commit.synchronous_commit,
          };
        }),
      ),
    );
    assert.deepEqual(later, Array(4).fill({ named: 1, synchronousCommit: 'on' }));
  });

  it('runs a statement marked planned per execution unnamed, whatever its values', async () => {
    await harness.store.transaction(async (trx) => {
      for (let id = 1; id <= 3; id++)
        await trx.selectFrom('posts').select('title').where('id', '=', id).modifyEnd(plannedPerExecution).execute();
      const marked = (await preparedHere(trx)).filter((text) => text.endsWith(PLANNED_PER_EXECUTION));
      assert.deepEqual(marked, []);
      // The same statement unmarked is named, as every other.
      await trx.selectFrom('posts').select('title').where('id', '=', 1).execute();
      const named = (await preparedHere(trx)).filter((text) =>
        /select "title" from "posts" where "id" = \$1$/.test(text),
      );
      assert.equal(named.length, 1);
    });
  });

  it("plans a list's selection for its values and keeps the plan of its documents' read", async () => {
    const { users } = harness;
    const created = await harness.request('POST', '/events', {
      as: users.administrator,
      body: { title: 'Planned', status: 'publish', start_date: '2031-03-04 10:00', end_date: '2031-03-04 11:00' },
    });
    assert.equal(created.statusCode, 201, created.body);
    // What the store's connections are sent: a named statement goes as a config object with its name.
    const query = pg.Client.prototype.query;
    const sent: { text: string; named: boolean }[] = [];
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [config] = args;
      if (typeof config === 'string') sent.push({ text: config, named: false });
      else if (typeof config === 'object' && config !== null && 'text' in config)
        sent.push({ text: String(config.text), named: 'name' in config && config.name !== undefined });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const list = await harness.request('GET', '/events', {
        query: { start_date: '2031-03-01', end_date: '2031-03-31', search: 'planned' },
      });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().events.map((event: { title: string }) => event.title),
        ['Planned'],
      );
    } finally {
      pg.Client.prototype.query = query;
    }
    const selections = sent.filter(({ text }) => text.includes('from "occurrences"'));
    assert.ok(selections.length > 0, 'the list selected its occurrences');
    for (const { text, named } of selections) {
      assert.ok(text.endsWith(PLANNED_PER_EXECUTION), text);
      assert.equal(named, false, `sent named: ${text}`);
    }
    const documents = sent.filter(({ text }) => text.includes('from event_documents'));
    assert.ok(documents.length > 0, 'the list read its stored documents');
    assert.ok(
      documents.every(({ named }) => named),
      'the documents read is a prepared statement of its own',
    );
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
