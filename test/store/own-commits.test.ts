import assert from 'node:assert/strict';
import { it } from 'node:test';
import { leaveAlone, type OwnCommit } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

/**
 * Store.onOwnCommit: a commit of this process whose writer said it leaves some parts of the data alone is reported
 * with the data version just before it and just after it, one commit apart, so that a cache of those parts kept under
 * the first may move to the second. A commit of another process between them shows in `before`.
 */
describeEachDatabase('the commits of this process that leave parts of the data alone', (harness) => {
  /** What the store reports while `run` runs. */
  const reported = async (run: () => Promise<unknown>) => {
    const commits: OwnCommit[] = [];
    const stop = harness().store.onOwnCommit((commit) => commits.push(commit));
    try {
      await run();
    } finally {
      stop();
    }
    return commits;
  };

  const touch = (id: number) =>
    harness().store.transaction((trx) =>
      trx.updateTable('posts').set({ excerpt: 'touched' }).where('id', '=', id).execute(),
    );

  it('reports the versions before and after such a commit, and nothing of other commits', async () => {
    const { store, request, users } = harness();
    const venue = (await request('POST', '/venues', { as: users.administrator, body: { venue: 'Step Hall' } })).json();
    const before = await store.dataVersion();
    const commits = await reported(() =>
      store.transaction(async (trx) => {
        leaveAlone(trx, 'credentials');
        await trx.updateTable('posts').set({ excerpt: 'stepped' }).where('id', '=', venue.id).execute();
      }),
    );
    const after = await store.dataVersion();
    assert.notEqual(after, before);
    assert.deepEqual(
      commits.map(({ before, after, leftAlone }) => ({ before, after, leftAlone: [...leftAlone] })),
      [{ before, after, leftAlone: ['credentials'] }],
    );

    assert.deepEqual(await reported(() => touch(venue.id)), [], 'a write that says nothing');
    const rolledBack = await reported(() =>
      store
        .transaction(async (trx) => {
          leaveAlone(trx, 'terms');
          await trx.updateTable('posts').set({ excerpt: 'undone' }).where('id', '=', venue.id).execute();
          throw new Error('undone');
        })
        .catch(() => {}),
    );
    assert.deepEqual(rolledBack, [], 'a transaction rolled back');
  });

  it('shows a commit of another process in the version it moves on from', async () => {
    const { store, request, users } = harness();
    const venue = (await request('POST', '/venues', { as: users.administrator, body: { venue: 'Other Hall' } })).json();
    const before = await store.dataVersion();
    const another = await harness().openAnotherStore();
    try {
      await another.transaction((trx) =>
        trx.updateTable('posts').set({ excerpt: 'elsewhere' }).where('id', '=', venue.id).execute(),
      );
    } finally {
      await another.close();
    }
    const commits = await reported(() =>
      store.transaction(async (trx) => {
        leaveAlone(trx, 'terms', 'credentials');
        await trx.updateTable('posts').set({ excerpt: 'here' }).where('id', '=', venue.id).execute();
      }),
    );
    assert.equal(commits.length, 1);
    assert.notEqual(commits[0].before, before, 'the other commit came between');
    assert.equal(commits[0].after, await store.dataVersion());
  });
});
