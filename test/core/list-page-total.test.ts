import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { getWithStatements } from '../helpers/queries.ts';

/**
 * A list whose total the occurrence counts do not give (a search within a category) counts its rows in its page's own
 * statement (`count(*) over ()`) on SQLite, in a statement sent with the page on PostgreSQL: either way the total is
 * the same on every page, and a page past the last is still a 404.
 */
describeEachDatabase('a list total counted with its page', (harness) => {
  let category: number;

  before(async () => {
    const { users, request } = harness();
    const as = users.administrator;
    category = (await request('POST', '/categories', { as, body: { name: 'Galas' } })).json().id;
    for (const [index, title] of ['Spring gala', 'Summer gala', 'Autumn gala', 'Winter ball'].entries()) {
      const created = await request('POST', '/events', {
        as,
        body: {
          title,
          status: 'publish',
          start_date: `2031-0${index + 1}-10 19:00:00`,
          end_date: `2031-0${index + 1}-10 23:00:00`,
          categories: [category],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
  });

  const list = async (query: Record<string, string>) => {
    return getWithStatements(harness(), '/events', {
      categories: String(category),
      start_date: '2031-01-01',
      end_date: '2031-12-31',
      per_page: '2',
      ...query,
    });
  };

  it('gives the same total on every page, from the page’s statement', async () => {
    const first = await list({ search: 'gala' });
    assert.equal(first.answer.statusCode, 200, first.answer.body);
    assert.deepEqual(
      first.answer.json().events.map((event: { title: string }) => event.title),
      ['Spring gala', 'Summer gala'],
    );
    assert.equal(first.answer.json().total, 3);
    assert.equal(first.answer.headers['x-wp-total'], '3');
    assert.equal(first.answer.headers['x-wp-totalpages'], '2');
    // Where reads run in turn (SQLite) the page's statement counts; where they run at once (PostgreSQL) the count is
    // a statement of its own, sent with the page.
    const inPage = first.statements.filter((text) => /count\(\*\) over \(\)/.test(text));
    const apart = first.statements.filter((text) => /select count\(\*\) as "total"/.test(text));
    const counted = harness().store.readers === 'one' ? { inPage: 1, apart: 0 } : { inPage: 0, apart: 1 };
    assert.deepEqual({ inPage: inPage.length, apart: apart.length }, counted, first.statements.join('\n'));

    const second = await list({ search: 'gala', page: '2' });
    assert.equal(second.answer.statusCode, 200, second.answer.body);
    assert.deepEqual(
      second.answer.json().events.map((event: { title: string }) => event.title),
      ['Autumn gala'],
    );
    assert.equal(second.answer.json().total, 3);

    const past = await list({ search: 'gala', page: '3' });
    assert.equal(past.answer.statusCode, 404, past.answer.body);

    const none = await list({ search: 'opera' });
    assert.equal(none.answer.statusCode, 200, none.answer.body);
    assert.deepEqual(none.answer.json().events, []);
    assert.equal(none.answer.json().total, 0);
    assert.equal(none.answer.headers['x-wp-totalpages'], '0');
  });
});
