import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  coalesce,
  formatAt,
  onChangesCommitted,
  recordChange,
  type ChangeAction,
  type CommittedChange,
} from '../../src/core/change-log/log.ts';
import { changesRetainedAfter, latestSeq, oldestRetainedSeq, readChanges } from '../../src/core/change-log/read.ts';
import {
  insertEventsBulk,
  insertOrganizersBulk,
  insertTermsBulk,
  insertVenuesBulk,
} from '../../src/core/bulk-load/bulk.ts';
import { afterCommit, beforeCommit } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

/** Item ids no other test of the file uses. */
let nextId = 1_000_000;
const freshId = () => nextId++;

describe('coalesce', () => {
  it('keeps the action that tells a reader most', () => {
    const cases: Array<[ChangeAction[], ChangeAction]> = [
      [['created', 'updated'], 'created'],
      [['created', 'updated', 'trashed'], 'created'],
      [['created', 'deleted'], 'deleted'],
      [['updated', 'updated'], 'updated'],
      [['updated', 'trashed'], 'trashed'],
      [['trashed', 'updated'], 'trashed'],
      [['trashed', 'restored'], 'restored'],
      [['restored', 'trashed'], 'trashed'],
      [['restored', 'updated'], 'restored'],
      [['updated', 'deleted'], 'deleted'],
      [['deleted', 'updated'], 'deleted'],
      [['trashed', 'deleted', 'restored'], 'deleted'],
    ];
    for (const [actions, expected] of cases) {
      assert.equal(actions.slice(1).reduce(coalesce, actions[0]), expected, actions.join(' then '));
    }
  });
});

describeEachDatabase('change log', (h) => {
  const since = async (seq: number) => readChanges(h().store.db, { afterSeq: seq, limit: 10_000 });

  it('writes one row per recorded item in the transaction, in commit order, with UTC time', async () => {
    const before = await latestSeq(h().store.db);
    const [a, b] = [freshId(), freshId()];
    const writtenFrom = formatAt(new Date());
    await h().store.transaction(async (trx) => {
      recordChange(trx, { type: 'event', id: a, action: 'created' });
      recordChange(trx, { type: 'venue', id: b, action: 'updated' });
    });
    const writtenUntil = formatAt(new Date());
    const rows = await since(before);
    assert.deepEqual(
      rows.map(({ type, id, action }) => ({ type, id, action })),
      [
        { type: 'event', id: a, action: 'created' },
        { type: 'venue', id: b, action: 'updated' },
      ],
    );
    assert.ok(rows[0].seq > before && rows[1].seq > rows[0].seq);
    assert.match(rows[0].at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.ok(writtenFrom <= rows[0].at && rows[0].at <= writtenUntil, `${rows[0].at} is the time of the write (UTC)`);
    assert.equal(await latestSeq(h().store.db), rows[1].seq);
  });

  it('leaves no row when the transaction rolls back', async () => {
    const before = await latestSeq(h().store.db);
    const heard: CommittedChange[] = [];
    const stop = onChangesCommitted(h().store, (changes) => heard.push(...changes));
    let hookRan = false;
    try {
      await assert.rejects(
        h().store.transaction(async (trx) => {
          recordChange(trx, { type: 'event', id: freshId(), action: 'created' });
          afterCommit(trx, () => {
            hookRan = true;
          });
          throw new Error('validation failed');
        }),
        /validation failed/,
      );
      // A failure after the change rows were written (a later before-commit hook) rolls them back with the write.
      await assert.rejects(
        h().store.transaction(async (trx) => {
          await trx
            .insertInto('terms')
            .values({
              taxonomy: 'event_tag',
              name: 'Rolled back',
              slug: `rolled-back-${freshId()}`,
              description: '',
              parent_id: 0,
            })
            .execute();
          recordChange(trx, { type: 'tag', id: freshId(), action: 'created' });
          beforeCommit(trx, async () => {
            assert.equal((await trx.selectFrom('changes').select('seq').where('seq', '>', before).execute()).length, 1);
            throw new Error('late failure');
          });
        }),
        /late failure/,
      );
    } finally {
      stop();
    }
    assert.deepEqual(await since(before), []);
    assert.equal(
      await h().store.db.selectFrom('terms').select('id').where('name', '=', 'Rolled back').executeTakeFirst(),
      undefined,
    );
    assert.deepEqual(heard, []);
    assert.equal(hookRan, false);
  });

  it('coalesces several records of one item into one row, in the order first recorded', async () => {
    const before = await latestSeq(h().store.db);
    const [created, trashed, deleted, updated] = [freshId(), freshId(), freshId(), freshId()];
    await h().store.transaction(async (trx) => {
      recordChange(trx, { type: 'event', id: created, action: 'created' });
      recordChange(trx, { type: 'event', id: trashed, action: 'updated' });
      recordChange(trx, { type: 'event', id: created, action: 'updated' });
      recordChange(trx, { type: 'organizer', id: deleted, action: 'updated' });
      recordChange(trx, { type: 'event', id: trashed, action: 'trashed' });
      recordChange(trx, { type: 'organizer', id: deleted, action: 'deleted' });
      recordChange(trx, { type: 'category', id: updated, action: 'updated' });
      recordChange(trx, { type: 'category', id: updated, action: 'updated' });
      // The same id as another type is another item.
      recordChange(trx, { type: 'tag', id: updated, action: 'updated' });
    });
    assert.deepEqual(
      (await since(before)).map(({ type, id, action }) => `${type}:${id}:${action}`),
      [
        `event:${created}:created`,
        `event:${trashed}:trashed`,
        `organizer:${deleted}:deleted`,
        `category:${updated}:updated`,
        `tag:${updated}:updated`,
      ],
    );
  });

  it('writes nothing for a transaction that records nothing', async () => {
    const before = await latestSeq(h().store.db);
    await h().store.transaction(async (trx) => {
      await trx.selectFrom('posts').select('id').limit(1).execute();
    });
    assert.equal(await latestSeq(h().store.db), before);
  });

  it('refuses a transaction that is not the store’s, and a non-id', async () => {
    await assert.rejects(
      h()
        .store.db.transaction()
        .execute(async (trx) => {
          recordChange(trx, { type: 'event', id: 1, action: 'created' });
        }),
      /not a transaction of Store\.transaction/,
    );
    await assert.rejects(
      h().store.transaction(async (trx) => {
        recordChange(trx, { type: 'event', id: 1.5, action: 'created' });
      }),
      RangeError,
    );
  });

  it('tells after-commit listeners the committed changes with their seqs, after the commit', async () => {
    const before = await latestSeq(h().store.db);
    const heard: CommittedChange[][] = [];
    const order: string[] = [];
    const stop = onChangesCommitted(h().store, (changes) => {
      order.push('listener');
      heard.push([...changes]);
    });
    const failing = onChangesCommitted(h().store, () => {
      throw new Error('a broken listener');
    });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const id = freshId();
      await h().store.transaction(async (trx) => {
        recordChange(trx, { type: 'venue', id, action: 'created' });
        afterCommit(trx, () => order.push('hook'));
        order.push('work');
      });
      order.push('returned');
      assert.deepEqual(order, ['work', 'hook', 'listener', 'returned']);
      assert.deepEqual(heard, [await since(before)]);
      assert.equal(heard[0][0].id, id);
      // A commit without changes is not announced.
      await h().store.transaction(async () => {});
      assert.equal(heard.length, 1);
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(warnings.some((warning) => /a broken listener/.test(warning.message)));
    } finally {
      stop();
      failing();
      process.off('warning', onWarning);
    }
  });

  it('logs everything the batch import path writes as created, in its batch transactions', async () => {
    const before = await latestSeq(h().store.db);
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const author = h().users.editor.id;
    const categories = await insertTermsBulk(h().store, 'event_category', ['Logged A', 'Logged B']);
    const tags = await insertTermsBulk(h().store, 'event_tag', ['Logged tag']);
    const venues = await insertVenuesBulk(
      h().store,
      [{ title: 'Logged Hall', authorId: author, published: stamp }],
      stamp,
    );
    const organizers = await insertOrganizersBulk(
      h().store,
      [{ title: 'Logged Org', authorId: author, published: stamp }],
      stamp,
    );
    const events = await insertEventsBulk(
      h().store,
      Array.from({ length: 2100 }, (_, index) => ({
        title: `Logged ${index}`,
        authorId: author,
        published: stamp,
        timezone: 'UTC',
        start: '2027-05-01 09:00:00',
        end: '2027-05-01 10:00:00',
        venueId: venues[0],
        categoryIds: categories,
      })),
      stamp,
    );
    const rows = await since(before);
    const logged = (type: string) =>
      rows
        .filter((row) => row.type === type)
        .map((row) => row.id)
        .sort((x, y) => x - y);
    assert.ok(rows.every((row) => row.action === 'created'));
    assert.deepEqual(logged('category'), categories);
    assert.deepEqual(logged('tag'), tags);
    assert.deepEqual(logged('venue'), venues);
    assert.deepEqual(logged('organizer'), organizers);
    assert.deepEqual(
      logged('event'),
      [...events].sort((x, y) => x - y),
    );
    assert.equal(rows.length, 2 + 1 + 1 + 1 + 2100);
  });

  it('reads pages after a seq and says whether retention kept everything after it', async () => {
    const before = await latestSeq(h().store.db);
    const ids = [freshId(), freshId(), freshId()];
    for (const id of ids) {
      await h().store.transaction(async (trx) => recordChange(trx, { type: 'tag', id, action: 'updated' }));
    }
    const first = await readChanges(h().store.db, { afterSeq: before, limit: 2 });
    assert.deepEqual(
      first.map((row) => row.id),
      ids.slice(0, 2),
    );
    const rest = await readChanges(h().store.db, { afterSeq: first[1].seq, limit: 2 });
    assert.deepEqual(
      rest.map((row) => row.id),
      ids.slice(2),
    );
    const oldest = await oldestRetainedSeq(h().store.db);
    assert.ok(oldest !== null && oldest <= first[0].seq);
    assert.equal(await changesRetainedAfter(h().store.db, before), true);
    assert.equal(await changesRetainedAfter(h().store.db, oldest - 2), false);
  });
});
