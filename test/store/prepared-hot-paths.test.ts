import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { compiledDuring } from '../helpers/queries.ts';

/**
 * The hot paths run prepared queries (store/prepared-query.ts): once a path has run, running it again with a request
 * of the same shape (an update of the same columns) builds and compiles none of its statements.
 */
describeEachDatabase('queries compiled per request on the hot paths', (harness) => {
  let category: number;
  let tags: number[];
  let venue: number;
  let created = 0;
  const newEvent = () => ({
    title: `Prepared ${++created}`,
    description: 'A night of jazz.',
    start_date: '2027-03-05 19:00:00',
    end_date: '2027-03-05 22:00:00',
    categories: [category],
    tags,
    venue: { id: venue },
  });
  const create = async () => {
    const { users, request } = harness();
    const response = await request('POST', '/events', { as: users.administrator, body: newEvent() });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: number }>().id;
  };

  before(async () => {
    const { users, request } = harness();
    const as = users.administrator;
    category = (await request('POST', '/categories', { as, body: { name: 'Jazz' } })).json().id;
    tags = [
      (await request('POST', '/tags', { as, body: { name: 'Late' } })).json().id,
      (await request('POST', '/tags', { as, body: { name: 'Free' } })).json().id,
    ];
    venue = (await request('POST', '/venues', { as, body: { venue: 'Blue Room', city: 'Oslo' } })).json().id;
    // Each path once, so that its prepared queries are compiled.
    const id = await create();
    await request('PATCH', `/events/${id}`, { as, body: { title: 'Warmed' } });
    await request('GET', `/events/${id}`);
    await request('GET', `/events/${id}`, { as });
  });

  it('a create compiles nothing', async () => {
    assert.deepEqual(await compiledDuring(harness().store, create), []);
  });

  it('an update compiles nothing once an update of the same columns has run', async () => {
    const { users, request, store } = harness();
    const id = await create();
    await request('PATCH', `/events/${id}`, { as: users.administrator, body: { title: 'First' } });
    const texts = await compiledDuring(store, async () => {
      const response = await request('PATCH', `/events/${id}`, { as: users.administrator, body: { title: 'Second' } });
      assert.equal(response.statusCode, 200, response.body);
    });
    assert.deepEqual(texts, []);
  });

  it('a read by id, anonymous or authenticated, compiles nothing', async () => {
    const { users, request, store } = harness();
    const id = await create();
    // The read cache would answer a repeated read without any statement: a new event each time.
    for (const as of [undefined, users.editor]) {
      const fresh = await create();
      await request('GET', `/events/${fresh}`, { as });
      const texts = await compiledDuring(store, async () => {
        const response = await request('GET', `/events/${id}`, { as });
        assert.equal(response.statusCode, 200, response.body);
      });
      assert.deepEqual(texts, []);
    }
  });

  it('a list page compiles nothing once a list of its shape was read: its page, total and sync cursor are prepared', async () => {
    const { request, store } = harness();
    await create();
    await create();
    // Each list once with other values of the same shape (a page, a category, a date window), so that what is
    // prepared is compiled; the read cache would answer the same URL again without any statement.
    const lists = [
      (page: number) => ({ per_page: '1', page: String(page) }),
      (page: number) => ({ categories: String(category), per_page: '1', page: String(page) }),
      (page: number) => ({ start_date: `2027-03-0${page}`, end_date: `2027-05-2${page}` }),
    ];
    for (const query of lists) {
      assert.equal((await request('GET', '/events', { query: query(1) })).statusCode, 200);
      const texts = await compiledDuring(store, async () => {
        const response = await request('GET', '/events', { query: query(2) });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(Number(response.headers['x-wp-total']) > 0, 'a total summed from the counts');
      });
      // The page's own statement too, once per shape of list (core/events/list-statements.ts).
      assert.deepEqual(texts, []);
    }
  });
});
