// The ledger of occurrence counts is compacted every minute by every process of the service (core/background/
// occurrence-counts.ts). Two processes compacting one database at once must not both replace the same rows with their
// sums: on PostgreSQL each had read the rows before the other deleted them, and both inserted the sums, doubling every
// total they touched (seen in a benchmark with two services on one database: months counted in the billions).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { compactAllCounts } from '../../src/core/background/occurrence-counts.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

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
});
