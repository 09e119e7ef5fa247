// The ledger of occurrence counts is compacted every minute by every process of the service (core/background/
// occurrence-counts.ts). Two processes compacting one database at once must not both replace the same rows with their
// sums: on PostgreSQL each had read the rows before the other deleted them, and both inserted the sums, doubling every
// total they touched (seen in a benchmark with two services on one database: months counted in the billions).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { compactAllCounts } from '../../src/core/background/occurrence-counts.ts';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { everyQueryDuring, queryPlan } from '../helpers/queries.ts';

describeEachDatabase('the occurrence counts compacted by two processes at once', (h) => {
  it('keep every total equal to the events it counts', async () => {
    const admin = h().users.administrator;
    h().setNow('2030-01-01T12:00:00Z');
    const category = (await h().request('POST', '/categories', { as: admin, body: { name: 'Twice' } })).json().id;
    const other = await h().openAnotherStore();
    try {
      const events: number[] = [];
      for (let round = 1; round <= 4; round++) {
        // Events of one day and category: each adds the same keys to the ledger, so every key has rows to merge.
        for (let index = 0; index < 6; index++) {
          const created = await h().request('POST', '/events', {
            as: admin,
            body: {
              title: `Round ${round}, event ${index}`,
              status: 'publish',
              start_date: `2030-02-1${round} 10:00:00`,
              end_date: `2030-02-1${round} 11:00:00`,
              categories: [category],
            },
          });
          assert.equal(created.statusCode, 201, created.body);
          events.push(created.json().id);
        }
        const duplicated = await sql<{ keys: number | string }>`
          select count(*) as keys from (select 1 from occurrence_counts
            group by dimension, status, start_day, end_day, published_utc having count(*) > 1) as merged`.execute(
          h().store.db,
        );
        assert.ok(Number(duplicated.rows[0].keys) > 0, 'the ledger has keys to merge');
        // Both processes' minute jobs at once.
        await Promise.all([compactAllCounts(h().store), compactAllCounts(other)]);
        const listed = await h().request('GET', '/events', {
          query: { categories: category, start_date: '2030-02-01', end_date: '2030-02-28' },
        });
        assert.equal(listed.statusCode, 200, listed.body);
        assert.equal(listed.headers['x-wp-total'], String(events.length), `after round ${round}`);
        const all = await h().request('GET', '/events', {
          query: { start_date: '2030-02-01', end_date: '2030-02-28' },
        });
        assert.equal(all.headers['x-wp-total'], String(events.length), `after round ${round}, every event`);
      }
    } finally {
      await other.close();
    }
  });

  it('merges the keys of the rows appended since the last compaction, a range of ledger ids a statement', async () => {
    const admin = h().users.administrator;
    const category = (await h().request('POST', '/categories', { as: admin, body: { name: 'Ranges' } })).json().id;
    const create = async (index: number) => {
      const created = await h().request('POST', '/events', {
        as: admin,
        body: {
          title: `Ranged ${index}`,
          status: 'publish',
          start_date: '2031-03-10 10:00:00',
          end_date: '2031-03-10 11:00:00',
          categories: [category],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
    };
    await create(1);
    await compactAllCounts(h().store);
    const idle = await everyQueryDuring(h().store, () => compactAllCounts(h().store));
    const idleRanges = compactionRanges(idle);
    // The rows the last compaction read are read once more (a row may commit after a compaction passed its id), then
    // nothing is left to read.
    const version = await h().store.dataVersion();
    const quiet = await everyQueryDuring(h().store, () => compactAllCounts(h().store));
    assert.equal(await h().store.dataVersion(), version, 'nothing to merge: nothing committed, no cache moved');
    assert.deepEqual(
      compactionRanges(quiet),
      [],
      `nothing appended: nothing read\n${quiet.map((q) => q.sql).join('\n')}`,
    );
    assert.ok(idleRanges.length <= 1, JSON.stringify(idleRanges));

    const before = await lastId(h());
    for (let index = 2; index <= 4; index++) await create(index);
    const appended = (await lastId(h())) - before;
    let removed = 0;
    const statements = await everyQueryDuring(h().store, async () => {
      removed = await compactAllCounts(h().store, () => false, 3);
    });
    assert.ok(removed > 0, 'the new rows were merged with the old ones of their keys');
    const ranges = compactionRanges(statements);
    assert.equal(ranges[0].after, before, 'it starts after the rows compacted before');
    assert.ok(ranges.length >= Math.ceil(appended / 3), `${ranges.length} ranges for ${appended} rows`);
    for (const range of ranges) assert.ok(range.through - range.after <= 3, JSON.stringify(range));
    const duplicated = await sql<{ keys: number | string }>`
      select count(*) as keys from (select 1 from occurrence_counts
        group by dimension, status, start_day, end_day, published_utc having count(*) > 1) as merged`.execute(
      h().store.db,
    );
    assert.equal(Number(duplicated.rows[0].keys), 0, 'every key is one row again');
    const listed = await h().request('GET', '/events', {
      query: { categories: category, start_date: '2031-03-01', end_date: '2031-03-31' },
    });
    assert.equal(listed.headers['x-wp-total'], '4');

    const plan = await queryPlan(h(), ranges[0].query);
    if (h().database === 'sqlite') {
      assert.match(plan, /SEARCH occurrence_counts USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/, plan);
      assert.match(plan, /USING COVERING INDEX occurrence_counts_key \(dimension=\? AND/, plan);
    } else {
      assert.match(plan, /Index Cond: \(\(id > /, plan);
      assert.match(plan, /occurrence_counts_key/, plan);
    }
  });
});

const lastId = async (h: Harness) =>
  Number(
    (await sql<{ id: number | string }>`select max(id) as id from occurrence_counts`.execute(h.store.db)).rows[0].id,
  );

/** The compaction statements among `statements`, with the range of ledger ids each read. */
function compactionRanges(statements: CompiledQuery[]) {
  return statements
    .filter((query) => /from "occurrence_counts" where "id" > .* and "id" <= /.test(query.sql))
    .map((query) => {
      const values = query.parameters.map(Number);
      return { query, after: values[0], through: values[1] };
    });
}
