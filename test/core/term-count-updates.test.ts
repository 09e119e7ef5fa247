import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { movesTermCounts } from '../../src/core/events/service.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { everyStatementDuring } from '../helpers/queries.ts';

describe('which updates may move an event’s term counts', () => {
  it('only those that send a field not known to leave the status, terms and series alone', () => {
    assert.equal(movesTermCounts({ title: 'x' }), false);
    assert.equal(movesTermCounts({ title: 'x', description: 'y', cost: '5', featured: true }), false);
    assert.equal(movesTermCounts({}), false);
    for (const field of ['status', 'categories', 'tags', 'date', 'date_utc', 'recurrence', 'scope', 'author'])
      assert.equal(movesTermCounts({ title: 'x', [field]: 'anything' }), true, field);
    assert.equal(movesTermCounts({ a_field_added_later: 1 }), true);
  });
});

/**
 * An update that sends only fields that cannot move the term counts (a title) reads nothing for them; one that can
 * (status, categories) still moves them. The counts are the terms' own `count`, checked against the events.
 */
describeEachDatabase('term counts across updates', (harness) => {
  let category: number;

  before(async () => {
    const { users, request } = harness();
    category = (await request('POST', '/categories', { as: users.administrator, body: { name: 'Counted' } })).json().id;
  });

  const count = async () => (await harness().request('GET', `/categories/${category}`)).json().count as number;
  const readsUsage = (statements: readonly string[]) =>
    statements.some((text) => text.includes('"event_terms"."term_id", "events"."series_id"'));

  it('reads no term usage for a new title, and still follows a status or a category', async () => {
    const { users, request, store } = harness();
    const as = users.administrator;
    const created = await request('POST', '/events', {
      as,
      body: {
        title: 'Counted set',
        status: 'publish',
        start_date: '2027-04-05 21:00:00',
        end_date: '2027-04-05 23:00:00',
        categories: [category],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    assert.equal(await count(), 1);

    const update = (body: Record<string, unknown>) =>
      everyStatementDuring(store, async () => {
        const response = await request('PATCH', `/events/${id}`, { as, body });
        assert.equal(response.statusCode, 200, response.body);
      });

    const renamed = await update({ title: 'Counted set, renamed', description: 'Late.' });
    assert.equal(readsUsage(renamed), false, renamed.join('\n'));
    assert.equal(await count(), 1);

    assert.equal(readsUsage(await update({ status: 'draft' })), true);
    assert.equal(await count(), 0);
    assert.equal(readsUsage(await update({ title: 'Back', status: 'publish' })), true);
    assert.equal(await count(), 1);
    assert.equal(readsUsage(await update({ categories: [] })), true);
    assert.equal(await count(), 0);
  });

  it('a create reads and links its categories and tags in one statement each, and counts what it linked', async () => {
    const { users, request, store } = harness();
    const as = users.administrator;
    const tag = (await request('POST', '/tags', { as, body: { name: 'Counted tag' } })).json().id as number;
    const tagCount = async () => (await request('GET', `/tags/${tag}`)).json().count as number;
    const before = { category: await count(), tag: await tagCount() };
    const create = async (status: string) => {
      let id = 0;
      const statements = await everyStatementDuring(store, async () => {
        const response = await request('POST', '/events', {
          as,
          body: {
            title: `Counted create, ${status}`,
            status,
            start_date: '2027-05-05 21:00:00',
            end_date: '2027-05-05 23:00:00',
            // A new name is created in the write; a category's id sent as a tag is no tag.
            categories: [category, 'Counted new category'],
            tags: [tag, category],
          },
        });
        assert.equal(response.statusCode, 201, response.body);
        id = response.json().id;
        assert.deepEqual(
          response.json().tags.map((term: { id: number }) => term.id),
          [tag],
        );
      });
      const matching = (pattern: RegExp) => statements.filter((text) => pattern.test(text)).length;
      assert.equal(matching(/^select \* from "terms" where \(\("taxonomy"/), 1, statements.join('\n'));
      assert.equal(matching(/^insert into "event_terms"/), 1, statements.join('\n'));
      assert.equal(readsUsage(statements), false, statements.join('\n'));
      return id;
    };

    await create('draft');
    assert.deepEqual({ category: await count(), tag: await tagCount() }, before, 'a draft counts for no term');
    await create('publish');
    assert.deepEqual(
      { category: await count(), tag: await tagCount() },
      {
        category: before.category + 1,
        tag: before.tag + 1,
      },
    );
    const created = (await request('GET', '/categories', { query: { search: 'Counted new category' } })).json();
    assert.deepEqual(
      created.categories.map((term: { name: string; count: number }) => [term.name, term.count]),
      [['Counted new category', 1]],
    );
  });

  it('writes a write’s count changes once, after the rest of its work, right before it enters commit order', async () => {
    const { users, request, store } = harness();
    const as = users.administrator;
    const before = await count();
    let id = 0;
    const statements = await everyStatementDuring(store, async () => {
      const response = await request('POST', '/events', {
        as,
        body: {
          title: 'Counted at the commit',
          status: 'publish',
          start_date: '2027-06-05 21:00:00',
          end_date: '2027-06-05 23:00:00',
          categories: [category],
          recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      id = response.json().id;
    });
    const at = (pattern: RegExp) => statements.findIndex((text) => pattern.test(text));
    const counted = statements.filter((text) => /^update "terms" set "published_count"/.test(text));
    assert.equal(counted.length, 1, statements.join('\n'));
    const update = at(/^update "terms" set "published_count"/);
    // After every write of the event and its stored document (the renderer runs after the work), so a concurrent
    // writer linking the same term is not held up by its row for the rest of this one's work; on PostgreSQL before
    // the step into commit order (data_version), where no writer may wait for a row another one holds.
    for (const table of ['posts', 'events', 'event_terms', 'occurrences', 'event_documents'])
      assert.ok(
        at(new RegExp(`^insert into "${table}"`)) < update,
        `${table} before the counts\n${statements.join('\n')}`,
      );
    if (store.writers === 'many') assert.ok(update < at(/^update "data_version"/), statements.join('\n'));
    assert.equal(await count(), before + 1, 'a series counts once');
    const removed = await request('DELETE', `/events/${id}`, { as, query: { force: 'true' } });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(await count(), before);
  });
});
