import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { movesListing } from '../../src/core/events/service.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { everyStatementDuring } from '../helpers/queries.ts';

describe('which updates may change what an event’s occurrences copy for the lists', () => {
  it('only those that send a field not known to leave its status, date, author and hidden flag alone', () => {
    assert.equal(movesListing({ title: 'x', description: 'y', categories: [1], venue: { refs: [{ id: 2 }] } }), false);
    assert.equal(movesListing({}), false);
    for (const field of ['status', 'date', 'date_utc', 'author', 'hide_from_listings', 'start_date', 'recurrence'])
      assert.equal(movesListing({ title: 'x', [field]: 'anything' }), true, field);
    assert.equal(movesListing({ a_field_added_later: 1 }), true);
  });
});

/**
 * A new title leaves the occurrences' listing copies and the counts as they are (no statement writes them); a new
 * status or hidden flag still reaches the lists and their totals.
 */
describeEachDatabase('the lists across updates', (harness) => {
  let id: number;

  before(async () => {
    const { users, request } = harness();
    const created = await request('POST', '/events', {
      as: users.administrator,
      body: { title: 'Listed set', start_date: '2029-06-05 21:00:00', end_date: '2029-06-05 23:00:00' },
    });
    assert.equal(created.statusCode, 201, created.body);
    id = created.json().id;
  });

  const update = (body: Record<string, unknown>) =>
    everyStatementDuring(harness().store, async () => {
      const { users, request } = harness();
      const response = await request('PATCH', `/events/${id}`, { as: users.administrator, body });
      assert.equal(response.statusCode, 200, response.body);
    });
  const writesListing = (statements: readonly string[]) =>
    statements.some((text) => text.startsWith('update "occurrences"'));
  const writesCounts = (statements: readonly string[]) =>
    statements.some((text) => /^insert into "(counted_events|occurrence_counts)"/.test(text));
  const listed = async () => {
    const list = await harness().request('GET', '/events', {
      query: { start_date: '2029-06-05', end_date: '2029-06-06' },
    });
    assert.equal(list.statusCode, 200, list.body);
    const events = list.json().events.map((event: { id: number; title: string }) => [event.id, event.title]);
    assert.equal(list.json().total, events.length, 'the total counts what is listed');
    return events;
  };

  it('writes no listing copy for a new title, and still follows a status and a hidden flag', async () => {
    const renamed = await update({ title: 'Listed set, renamed' });
    assert.equal(writesListing(renamed), false, renamed.join('\n'));
    assert.equal(writesCounts(renamed), false, renamed.join('\n'));
    assert.deepEqual(await listed(), [[id, 'Listed set, renamed']]);

    const drafted = await update({ status: 'draft' });
    assert.equal(writesListing(drafted), true);
    assert.equal(writesCounts(drafted), true);
    assert.deepEqual(await listed(), []);
    await update({ status: 'publish' });
    assert.deepEqual(await listed(), [[id, 'Listed set, renamed']]);
    assert.equal(writesListing(await update({ hide_from_listings: true })), true);
    assert.deepEqual(await listed(), []);
  });
});
