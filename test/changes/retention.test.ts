import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatAt, recordChange } from '../../src/core/change-log/log.ts';
import { latestSeq, readChanges } from '../../src/core/change-log/read.ts';
import { keepChangesPruned, pruneChanges } from '../../src/core/change-log/retention.ts';
import { eventually } from '../helpers/eventually.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

const DAY = 24 * 60 * 60 * 1000;

describeEachDatabase('change log retention', (h) => {
  let nextId = 1;
  const log = (count: number) =>
    h().store.transaction(async (trx) => {
      for (let index = 0; index < count; index++) recordChange(trx, { type: 'event', id: nextId++, action: 'updated' });
    });
  const all = () => readChanges(h().store.db, { afterSeq: 0, limit: 100_000 });
  /** Dates the rows with seq ≤ `upTo` `days` days back. */
  const age = (upTo: number, days: number) =>
    h()
      .store.db.updateTable('changes')
      .set({ at: formatAt(new Date(Date.now() - days * DAY)) })
      .where('seq', '<=', upTo)
      .execute();

  it('deletes the rows older than the retention, and no others', async () => {
    await log(3);
    const old = await latestSeq(h().store.db);
    await age(old, 31);
    await log(1);
    const recent = await latestSeq(h().store.db);
    await age(recent, 29);
    await age(old, 31);
    await log(1);

    assert.equal(await pruneChanges(h().store, { retentionDays: 30 }), 3);
    const kept = await all();
    assert.equal(kept.length, 2);
    assert.ok(kept.every((row) => row.seq > old));
    assert.equal(await pruneChanges(h().store, { retentionDays: 30 }), 0);
    // A shorter retention reaches the row dated 29 days back.
    assert.equal(await pruneChanges(h().store, { retentionDays: 28 }), 1);
    assert.equal((await all()).length, 1);
  });

  it('always keeps the newest row, so the latest seq never goes back', async () => {
    await log(4);
    const newest = await latestSeq(h().store.db);
    await age(newest, 400);
    await pruneChanges(h().store, { retentionDays: 1 });
    assert.deepEqual(
      (await all()).map((row) => row.seq),
      [newest],
    );
    assert.equal(await latestSeq(h().store.db), newest);
    // And a new row still comes after it.
    await log(1);
    assert.ok((await latestSeq(h().store.db)) > newest);
  });

  it('prunes in chunks a backlog larger than one delete', async () => {
    await h().store.transaction(async (trx) => {
      for (let index = 0; index < 10_050; index++) recordChange(trx, { type: 'tag', id: nextId++, action: 'created' });
    });
    await log(1);
    const newest = await latestSeq(h().store.db);
    await age(newest - 1, 90);
    const before = (await all()).length;
    assert.equal(await pruneChanges(h().store, { retentionDays: 30 }), before - 1);
    assert.deepEqual(
      (await all()).map((row) => row.seq),
      [newest],
    );
  });

  it('prunes at start, then after a commit once the interval has passed, never more often', async () => {
    let now = Date.now();
    const clock = () => new Date(now);
    await log(2);
    await age(await latestSeq(h().store.db), 45);
    await log(1);
    const stop = await keepChangesPruned(h().store, { retentionDays: 30, intervalMs: 60_000, now: clock });
    try {
      assert.equal((await all()).length, 1, 'pruned at start');

      await log(2);
      await age(await latestSeq(h().store.db), 45);
      await log(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await all()).length, 4, 'not again within the interval');

      now += 61_000;
      await log(1);
      // The pruning runs after the commit, in the background.
      await eventually(async () => (await all()).length !== 5, 'the pruning after the commit has run');
      assert.equal((await all()).length, 2, 'pruned after a commit once the interval passed');
    } finally {
      stop();
    }
    now += 61_000;
    await log(1);
    await age((await latestSeq(h().store.db)) - 1, 45);
    await log(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await all()).length, 4, 'stopped');
  });
});
