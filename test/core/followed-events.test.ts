import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { everyStatementDuring } from '../helpers/queries.ts';

/**
 * The followers of an event write (the stored documents' renderer and the occurrence counts) share one read of the
 * events it changed (core/events/followed.ts): the event's organizers, which both need, are read once per write, and
 * not at all after a create, which says how it left its new event. And what the counts derive from that shared read
 * is what they would read themselves: the totals of the lists they serve stay those of counting the rows.
 */
describeEachDatabase('the followers of an event write read the changed events once', (harness) => {
  let category: number;
  let organizer: number;
  let venue: number;

  before(async () => {
    const { users, request } = harness();
    const as = users.administrator;
    category = (await request('POST', '/categories', { as, body: { name: 'Jazz' } })).json().id;
    organizer = (await request('POST', '/organizers', { as, body: { organizer: 'Ann' } })).json().id;
    venue = (await request('POST', '/venues', { as, body: { venue: 'Blue Room', city: 'Oslo' } })).json().id;
  });

  const readsOfOrganizers = (statements: readonly string[]) =>
    statements.filter((text) => /^\s*select\b/i.test(text) && text.includes('from "event_organizers"')).length;

  /** The total of the category's list, and the number of its events a plain count finds. */
  const totals = async () => {
    const { request, store } = harness();
    const listed = await request('GET', '/events', { query: { categories: category, start_date: '2027-01-01' } });
    assert.equal(listed.statusCode, 200, listed.body);
    const counted = await store.db
      .selectFrom('event_terms')
      .innerJoin('posts', 'posts.id', 'event_terms.event_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('event_terms.term_id', '=', category)
      .where('posts.status', '=', 'publish')
      .executeTakeFirstOrThrow();
    return { listed: listed.json().total as number, counted: Number(counted.n) };
  };

  it('an update and a permanent delete read the event’s organizers once to follow it, a create not at all', async () => {
    const { users, request, store } = harness();
    const as = users.administrator;
    let id = 0;
    const create = await everyStatementDuring(store, async () => {
      const response = await request('POST', '/events', {
        as,
        body: {
          title: 'Late set',
          start_date: '2027-03-05 21:00:00',
          end_date: '2027-03-05 23:00:00',
          categories: [category],
          venue: { id: venue },
          organizer: [{ id: organizer }],
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      id = response.json().id;
    });
    // Nothing of the new event is read back in its transaction: its rows, links and (never counted) keys are known.
    assert.equal(readsOfOrganizers(create), 0, create.join('\n'));
    const committed = create.indexOf('commit');
    assert.ok(committed > 0, create.join('\n'));
    const readBack = create
      .slice(0, committed)
      .filter((text) => /^\s*select\b/i.test(text) && /from "(events|event_terms|counted_events)"/.test(text));
    assert.deepEqual(readBack, []);
    assert.deepEqual(await totals(), { listed: 1, counted: 1 });
    // What the followers stored from what the create said is what a live render of the event gives.
    const stored = await request('GET', `/events/${id}`);
    const live = await request('GET', `/events/${id}`, { query: { context: 'view' } });
    assert.equal(stored.body, live.body);
    assert.equal(stored.headers.etag, live.headers.etag);

    const update = await everyStatementDuring(store, async () => {
      const response = await request('PATCH', `/events/${id}`, { as, body: { title: 'Later set' } });
      assert.equal(response.statusCode, 200, response.body);
    });
    assert.equal(readsOfOrganizers(update), 1, update.join('\n'));

    const deletion = await everyStatementDuring(store, async () => {
      const response = await request('DELETE', `/events/${id}`, { as, query: { force: 'true' } });
      assert.equal(response.statusCode, 200, response.body);
    });
    // The answer is the event as it was, read before the delete; its followers read after it.
    const deleted = deletion.findIndex((text) => text.startsWith('delete from "posts"'));
    assert.ok(deleted > 0, deletion.join('\n'));
    assert.equal(readsOfOrganizers(deletion.slice(deleted)), 1, deletion.join('\n'));
    assert.deepEqual(await totals(), { listed: 0, counted: 0 });
    const kept = await store.db.selectFrom('counted_events').select('event_id').where('event_id', '=', id).execute();
    assert.deepEqual(kept, [], 'a deleted event keeps no counted row');
  });
});
