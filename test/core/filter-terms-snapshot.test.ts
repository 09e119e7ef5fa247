import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { resolveFilterRefs, termTable } from '../../src/core/terms/filter-table.ts';
import { resolveTermsForFilter } from '../../src/core/terms/service.ts';
import { EmbeddedTermSnapshots } from '../../src/core/terms/embedded-cache.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { getWithStatements } from '../helpers/queries.ts';

describe('a list filter resolved from a table of terms', () => {
  const table = termTable([
    { id: 1, slug: 'music', parent_id: 0 },
    { id: 2, slug: 'jazz', parent_id: 1 },
    { id: 3, slug: 'bebop', parent_id: 2 },
    { id: 4, slug: 'film', parent_id: 0 },
    { id: 7, slug: '2024', parent_id: 0 },
  ]);

  it('names terms by id or slug, every value or none, descendants only where the taxonomy has them', () => {
    assert.deepEqual(resolveFilterRefs(table, ['1'], true), [1, 2, 3]);
    assert.deepEqual(resolveFilterRefs(table, ['1'], false), [1]);
    assert.deepEqual(resolveFilterRefs(table, ['jazz', '4'], true), [2, 3, 4]);
    assert.deepEqual(resolveFilterRefs(table, ['007', 'film', '4'], false), [4, 7], 'an id in any number of digits');
    assert.equal(resolveFilterRefs(table, ['1', 'opera'], true), null, 'one unknown value: the filter is invalid');
    assert.equal(resolveFilterRefs(table, ['99'], true), null);
    assert.equal(resolveFilterRefs(table, ['99999999999999999999'], true), null, 'past a row id');
    assert.equal(resolveFilterRefs(table, ['Jazz'], true), null, 'slugs as stored');
    assert.equal(resolveFilterRefs(table, ['2024'], false), null, 'all digits is an id, never a slug');
  });
});

/**
 * The `categories` and `tags` filters of a list are checked against the process's term snapshot at the version the
 * request read (no statement), and answer what the database answers: the same ids for any values, and every write to
 * the terms seen by the next list, whichever process made it.
 */
describeEachDatabase('list filters from the term snapshot', (h) => {
  let parent: number;
  let tag: number;

  before(async () => {
    const as = h().users.administrator;
    parent = (await h().request('POST', '/categories', { as, body: { name: 'Snapshot music' } })).json().id;
    const child = (await h().request('POST', '/categories', { as, body: { name: 'Snapshot jazz', parent } })).json().id;
    await h().request('POST', '/categories', { as, body: { name: 'Snapshot bebop', parent: child } });
    tag = (await h().request('POST', '/tags', { as, body: { name: 'Snapshot tag' } })).json().id;
    const created = await h().request('POST', '/events', {
      as,
      body: {
        title: 'Snapshot concert',
        status: 'publish',
        start_date: '2034-02-02 20:00:00',
        end_date: '2034-02-02 22:00:00',
        categories: [child],
        tags: [tag],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  /** The titles a list filtered so answers (or its status when not 200), and the statements that read terms. */
  const listed = async (query: Record<string, string>) => {
    const { answer, statements } = await getWithStatements(h(), '/events', {
      start_date: '2034-01-01',
      end_date: '2034-12-31',
      ...query,
    });
    const read = statements.filter((text) => /from "terms"|"tree"/.test(text));
    if (answer.statusCode !== 200) return { status: answer.statusCode, read };
    return { titles: answer.json().events.map((event: { title: string }) => event.title), read };
  };

  it('answers the ids the database answers, for random values of both taxonomies', async () => {
    const store = h().store;
    const snapshots = new EmbeddedTermSnapshots(store);
    const terms = await store.db.selectFrom('terms').select(['id', 'slug', 'taxonomy']).execute();
    const values = [...terms.flatMap((term) => [String(term.id), term.slug, `00${term.id}`]), 'no-such-slug', '0', ' '];
    let random = 7;
    const next = () => {
      random = (random * 48271) % 2147483647;
      return random;
    };
    for (let round = 0; round < 200; round++) {
      const taxonomy = next() % 2 === 0 ? 'event_category' : 'event_tag';
      const picked = Array.from({ length: 1 + (next() % 3) }, () => values[next() % values.length]);
      const reader = { now: DateTime.utc(), config: h().config, caches: { embeddedTerms: snapshots } };
      const version = await store.dataVersion();
      const fromSnapshot = await resolveTermsForFilter(store.db, taxonomy, picked, { ...reader, dataVersion: version });
      const fromDatabase = await resolveTermsForFilter(store.db, taxonomy, picked);
      assert.deepEqual(fromSnapshot, fromDatabase, `${taxonomy} ${JSON.stringify(picked)}`);
    }
  });

  it('reads no term once the snapshot holds, and sees every write to the terms at the next list', async () => {
    const as = h().users.administrator;
    // Each taxonomy's terms are read once for a snapshot, by the first list that filters by it.
    assert.deepEqual((await listed({ categories: String(parent) })).titles, ['Snapshot concert']);
    assert.deepEqual((await listed({ tags: String(tag) })).titles, ['Snapshot concert']);
    const held = await listed({ categories: String(parent), tags: String(tag) });
    assert.deepEqual(held, { titles: ['Snapshot concert'], read: [] });

    // Another process renames the tag's slug: its old slug names nothing at the next list, its new one the tag.
    const other = await h().openAnotherStore();
    try {
      await other.transaction(async (trx) => {
        await trx.updateTable('terms').set({ slug: 'snapshot-renamed' }).where('id', '=', tag).execute();
      });
    } finally {
      await other.close();
    }
    assert.equal((await listed({ tags: 'snapshot-tag' })).status, 400);
    assert.deepEqual((await listed({ tags: 'snapshot-renamed' })).titles, ['Snapshot concert']);

    // A category under the parent, with an event: the parent's list has it at once.
    const added = await h().request('POST', '/categories', { as, body: { name: 'Snapshot swing', parent } });
    assert.equal(added.statusCode, 201, added.body);
    const event = await h().request('POST', '/events', {
      as,
      body: {
        title: 'Snapshot dance',
        status: 'publish',
        start_date: '2034-02-03 20:00:00',
        end_date: '2034-02-03 22:00:00',
        categories: [added.json().id],
      },
    });
    assert.equal(event.statusCode, 201, event.body);
    assert.deepEqual((await listed({ categories: String(parent) })).titles, ['Snapshot concert', 'Snapshot dance']);

    // A deleted category names nothing.
    const removed = await h().request('DELETE', `/categories/${added.json().id}`, { as, query: { force: 'true' } });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal((await listed({ categories: String(added.json().id) })).status, 400);
  });
});
