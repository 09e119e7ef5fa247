// Events seen from the other resources: the venue and organizer list filters that involve events (§6, D11), unlinking
// a trashed venue or organizer (§7.4), and term counts and filters as events change (§3.5, §9.1).
import assert from 'node:assert/strict';
import { before, beforeEach, it } from 'node:test';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { createEvent, EXAMPLE_NOW } from './events-support.ts';
import { assertInvalidParams, createLinked, idsOf, queryPairs } from './support.ts';

const names = async (
  h: Harness,
  collection: 'venues' | 'organizers',
  query: Record<string, string | number>,
  as?: Credentials,
) => {
  const response = await h.request('GET', `/${collection}`, { query: { per_page: 50, ...query }, as });
  assert.equal(response.statusCode, 200, response.body);
  const key = collection === 'venues' ? 'venue' : 'organizer';
  return (response.json()[collection] as Array<Record<string, string>>).map((item) => item[key]).sort();
};

describeEachDatabase('Venue and organizer lists filtered by their events (§6, D11)', (h) => {
  const e: Record<string, number> = {};

  // The fixtures and every test read the examples' clock (the harness lets it run again after each test).
  beforeEach(() => h().setNow(EXAMPLE_NOW));
  before(async () => {
    h().setNow(EXAMPLE_NOW);
    const { editor } = h().users;
    const event = async (key: string, fields: Record<string, unknown>) => {
      e[key] = (await createEvent(h(), { title: `Linked ${key}`, ...fields }, editor)).id;
    };
    await createLinked(h(), 'venues', { venue: 'Lonely Hall' });
    await createLinked(h(), 'organizers', { organizer: 'Lonely Org' });
    await event('upcoming', {
      start_date: '2026-12-01 10:00',
      end_date: '2026-12-01 11:00',
      venue: { venue: 'Upcoming Hall' },
      organizer: [{ organizer: 'Upcoming Org' }, { organizer: 'Shared Org' }],
    });
    await event('past', {
      start_date: '2026-01-01 10:00',
      end_date: '2026-01-01 11:00',
      venue: { venue: 'Past Hall' },
      organizer: [{ organizer: 'Past Org' }, { organizer: 'Shared Org' }],
    });
    await event('draftOnly', {
      status: 'draft',
      start_date: '2026-12-02 10:00',
      end_date: '2026-12-02 11:00',
      venue: { venue: 'Draft Event Hall' },
      organizer: [{ organizer: 'Draft Event Org' }],
    });
    await event('startedAlready', {
      start_date: '2026-11-22 04:00',
      end_date: '2026-11-22 08:00',
      venue: { venue: 'Started Hall' },
    });
  });

  it('filters by event, which must be an event', async () => {
    assert.deepEqual(await names(h(), 'venues', { event: e.upcoming }), ['Upcoming Hall']);
    assert.deepEqual(await names(h(), 'organizers', { event: e.past }), ['Past Org', 'Shared Org']);
    const venue = await createLinked(h(), 'venues', { venue: 'Not An Event' });
    assertInvalidParams(await h().request('GET', '/venues', { query: { event: venue.id } }), ['event']);
    assertInvalidParams(await h().request('GET', '/organizers', { query: { event: 999999 } }), ['event']);
    const response = await h().request('GET', '/venues', { query: { event: e.upcoming } });
    assert.deepEqual(queryPairs(response.json().rest_url), [
      ['page', '1'],
      ['per_page', '10'],
      ['event', String(e.upcoming)],
      ['status', 'publish'],
    ]);
  });

  it('hides a linked draft venue from anonymous callers in ?event= lookups, not from editors', async () => {
    const draftVenue = await createLinked(h(), 'venues', { venue: 'Draft Linked Hall', status: 'draft' });
    const event = await createEvent(h(), { title: 'Has Draft Venue', venue: draftVenue.id });
    assert.deepEqual(await names(h(), 'venues', { event: event.id }), []);
    assert.deepEqual(await names(h(), 'venues', { event: event.id }, h().users.editor), ['Draft Linked Hall']);
  });

  it('filters by has_events: linked to an event that is not a draft, pending or trashed', async () => {
    assert.deepEqual(await names(h(), 'venues', { has_events: 'true' }), [
      'Past Hall',
      'Started Hall',
      'Upcoming Hall',
    ]);
    assert.deepEqual(await names(h(), 'organizers', { has_events: '1' }), ['Past Org', 'Shared Org', 'Upcoming Org']);
    const without = await names(h(), 'organizers', { has_events: 'false' });
    assert.ok(without.includes('Lonely Org') && without.includes('Draft Event Org'));
    assert.equal(without.includes('Shared Org'), false);
    const response = await h().request('GET', '/organizers', { query: { has_events: 'true' } });
    assert.deepEqual(
      queryPairs(response.json().rest_url).find(([name]) => name === 'has_events'),
      ['has_events', 'true'],
    );
  });

  it('filters by only_with_upcoming: an event starting now or later that the caller can see', async () => {
    assert.deepEqual(await names(h(), 'venues', { only_with_upcoming: 'true' }), ['Upcoming Hall']);
    assert.deepEqual(await names(h(), 'organizers', { only_with_upcoming: 'yes' }), ['Shared Org', 'Upcoming Org']);
    assert.deepEqual(
      await names(h(), 'venues', { only_with_upcoming: 'true' }, h().users.editor),
      ['Draft Event Hall', 'Draft Linked Hall', 'Upcoming Hall'],
      'drafts count for editors',
    );
    assert.ok(
      (await names(h(), 'venues', { only_with_upcoming: 'false' })).includes('Past Hall'),
      'false is no filter',
    );
    const response = await h().request('GET', '/venues', { query: { only_with_upcoming: 'true' } });
    assert.deepEqual(
      queryPairs(response.json().rest_url).find(([name]) => name === 'only_with_upcoming'),
      ['only_with_upcoming', 'true'],
    );
  });

  it('considers every upcoming event, not only the first page of them (D11)', async () => {
    for (let index = 0; index < 12; index++) {
      await createEvent(h(), {
        title: `Busy ${index}`,
        start_date: `2027-01-${String(index + 10)} 10:00`,
        end_date: `2027-01-${String(index + 10)} 11:00`,
        venue: { venue: `Busy Hall ${String(index).padStart(2, '0')}` },
      });
    }
    const busy = (await names(h(), 'venues', { only_with_upcoming: 'true' })).filter((name) =>
      name.startsWith('Busy Hall'),
    );
    assert.equal(busy.length, 12);
  });
});

describeEachDatabase('Trashing a venue or organizer unlinks it from its events (§7.4)', (h) => {
  it('removes a trashed venue and a trashed organizer from every event', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Doomed Hall' });
    const keep = await createLinked(h(), 'organizers', { organizer: 'Kept Org' });
    const doomed = await createLinked(h(), 'organizers', { organizer: 'Doomed Org' });
    const first = await createEvent(h(), { title: 'Unlink One', venue: venue.id, organizer: [doomed.id, keep.id] });
    const second = await createEvent(h(), { title: 'Unlink Two', venue: venue.id, organizer: [doomed.id] });
    assert.equal((await h().request('DELETE', `/venues/${venue.id}`, { as: h().users.editor })).statusCode, 200);
    assert.equal((await h().request('DELETE', `/organizers/${doomed.id}`, { as: h().users.editor })).statusCode, 200);
    const one = (await h().request('GET', `/events/${first.id}`)).json();
    const two = (await h().request('GET', `/events/${second.id}`)).json();
    assert.deepEqual([one.venue, idsOf(one.organizer)], [[], [keep.id]]);
    assert.deepEqual([two.venue, two.organizer], [[], []]);
    assert.deepEqual(await names(h(), 'venues', { event: first.id }, h().users.editor), []);
  });
});

describeEachDatabase('Term counts and filters follow events (§9.1)', (h) => {
  const category = async (slug: string) => {
    const response = await h().request('GET', '/categories', { query: { slug, hide_empty: 'false' } });
    return response.json().categories[0];
  };

  it('counts published events as they are created, changed, trashed, restored and deleted', async () => {
    const event = await createEvent(h(), { title: 'Counted', categories: ['Counted Category'], tags: ['counted-tag'] });
    assert.equal((await category('counted-category')).count, 1);
    const second = await createEvent(h(), { title: 'Counted Too', categories: ['counted-category'] });
    assert.equal((await category('counted-category')).count, 2);
    await h().request('PATCH', `/events/${second.id}`, { as: h().users.editor, body: { categories: [] } });
    assert.equal((await category('counted-category')).count, 1);
    await h().request('DELETE', `/events/${event.id}`, { as: h().users.editor });
    assert.equal((await category('counted-category')).count, 0, 'trashed events do not count');
    await h().request('PATCH', `/events/${event.id}`, { as: h().users.editor, body: { status: 'publish' } });
    assert.equal((await category('counted-category')).count, 1);
    await h().request('PATCH', `/events/${event.id}`, { as: h().users.editor, body: { status: 'draft' } });
    assert.equal((await category('counted-category')).count, 0, 'drafts do not count');
    await h().request('PATCH', `/events/${event.id}`, { as: h().users.editor, body: { status: 'publish' } });
    await h().request('DELETE', `/events/${event.id}`, { as: h().users.editor, query: { force: 'true' } });
    assert.equal((await category('counted-category')).count, 0);
    const tags = await h().request('GET', '/tags', { query: { slug: 'counted-tag', hide_empty: 'false' } });
    assert.equal(tags.json().tags[0].count, 0);
  });

  it('lists the terms of an event with post/event, following updates', async () => {
    const event = await createEvent(h(), {
      title: 'Term Filter',
      categories: ['First Cat', 'Second Cat'],
      tags: ['one-tag'],
    });
    const ofEvent = async (collection: 'categories' | 'tags', param: 'post' | 'event') => {
      const response = await h().request('GET', `/${collection}`, {
        query: { [param]: event.id, hide_empty: 'false' },
      });
      return response.json()[collection].map((term: { name: string }) => term.name);
    };
    assert.deepEqual(await ofEvent('categories', 'event'), ['First Cat', 'Second Cat']);
    assert.deepEqual(await ofEvent('tags', 'post'), ['one-tag']);
    await h().request('PATCH', `/events/${event.id}`, {
      as: h().users.editor,
      body: { categories: 'Second Cat, Third Cat', tags: '' },
    });
    assert.deepEqual(await ofEvent('categories', 'post'), ['Second Cat', 'Third Cat']);
    assert.deepEqual(await ofEvent('tags', 'event'), []);
  });
});
