// D31: linked-item de-duplication and term name resolution are index lookups (migration 0009), never a scan per item.
// Proved by the plans of the very queries the service runs, not by timing.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Compilable } from 'kysely';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { queryPlan } from '../helpers/queries.ts';
import { duplicateCandidates } from '../../src/core/linked/service.ts';
import { termsByLoweredNames } from '../../src/core/terms/store.ts';

/** The plan of `query` as text; PostgreSQL is told to avoid sequential scans, so an unusable index shows as one anyway. */
const planOf = (h: Harness, query: Compilable): Promise<string> => queryPlan(h, query.compile());

describeEachDatabase('D31: indexed name lookups', (h) => {
  before(async () => {
    // A few rows, so that the tables are not trivially empty.
    // Descriptions that differ beyond letter case, so that the two spellings of one name stay two venues.
    for (const [index, name] of ['Émile Hall', 'ÉMILE HALL', 'Other'].entries()) {
      const response = await h().request('POST', '/venues', {
        as: h().users.editor,
        body: { venue: name, description: `Venue number ${index}` },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    await h().request('POST', '/tags', { as: h().users.editor, body: { name: 'Ärger' } });
  });

  it('the duplicate check of an inline venue or organizer uses posts_type_lower_title', async () => {
    const plan = await planOf(h(), duplicateCandidates(h().store.db, h().store, 'venue', 'émile hall', undefined));
    assert.match(plan, /posts_type_lower_title/, plan);
    const withContent = await planOf(h(), duplicateCandidates(h().store.db, h().store, 'organizer', 'x', 'content'));
    assert.match(withContent, /posts_type_lower_title/, withContent);
    // …and still matches case-insensitively beyond ASCII, as before.
    const rows = await duplicateCandidates(h().store.db, h().store, 'venue', 'émile hall', undefined).execute();
    assert.deepEqual(
      rows.map((row) => row.title),
      ['Émile Hall', 'ÉMILE HALL'],
    );
  });

  it('term name resolution uses terms_taxonomy_lower_name', async () => {
    const plan = await planOf(h(), termsByLoweredNames(h().store, h().store.db, 'event_tag', ['ärger', 'b']));
    assert.match(plan, /terms_taxonomy_lower_name/, plan);
    const response = await h().request('POST', '/events', {
      as: h().users.editor,
      body: { title: 'Tagged', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00', tags: ['ÄRGER'] },
    });
    assert.equal(response.statusCode, 201, response.body);
    const tags = await h().request('GET', '/tags', { query: { hide_empty: 'false' } });
    assert.deepEqual(
      tags.json().tags.map((tag: { name: string }) => tag.name),
      ['Ärger'],
    );
  });
});
