// GET /events (§4, D9–D14, D19): the date window, every filter, visibility, password blanking, order, paging, the
// envelope and its links, and the cost of a page.
import assert from 'node:assert/strict';
import { before, beforeEach, it } from 'node:test';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { POSTS_PER_READ } from '../../src/core/posts/store.ts';
import { createEvent, EXAMPLE_NOW, eventIds } from './events-support.ts';
import { assertInvalidParams, createLinked, queryPairs, readExample } from './support.ts';

type Query = Record<string, string | number | boolean | Array<string | number>>;
const list = (h: Harness, query: Query = {}, as?: Credentials) => h.request('GET', '/events', { query, as });
const ids = async (h: Harness, query: Query = {}, as?: Credentials) => {
  const response = await list(h, query, as);
  assert.equal(response.statusCode, 200, response.body);
  return eventIds(response);
};

describeEachDatabase('GET /events: the date window (§4.2, D9)', (h) => {
  const e: Record<string, number> = {};
  const at = async (key: string, start: string, end: string, extra: Record<string, unknown> = {}) => {
    e[key] = (await createEvent(h(), { title: `Window ${key}`, start_date: start, end_date: end, ...extra })).id;
  };

  // The fixtures and every test read the examples' clock (the harness lets it run again after each test).
  beforeEach(() => h().setNow(EXAMPLE_NOW));
  before(async () => {
    h().setNow(EXAMPLE_NOW);
    await at('yesterday', '2026-11-21 09:00', '2026-11-21 10:00');
    await at('twoDaysAgo', '2026-11-20 09:00', '2026-11-20 10:00');
    await at('running', '2026-11-20 09:00', '2026-11-25 10:00');
    await at('tiedLate', '2026-12-01 10:00', '2026-12-01 12:00');
    await at('lateNight', '2026-12-01 23:30', '2026-12-02 01:00');
    await at('farFuture', '2029-01-01 10:00', '2029-01-01 11:00');
    await at('lastDay', '2028-11-22 20:00', '2028-11-22 23:00');
    await at('hidden', '2026-12-05 10:00', '2026-12-05 11:00', { hide_from_listings: true });
    // Same start as tiedLate, published earlier: it comes first (D11 order: start, publication date, id).
    await at('tiedEarly', '2026-12-01 10:00', '2026-12-01 11:00', { date: '2026-01-01 00:00:00' });
  });

  it('lists yesterday 00:00 → now + 24 months by default, by start, as in example 09', async () => {
    const example = readExample('09-list-events.json');
    const response = await list(h());
    assert.equal(response.statusCode, 200);
    assert.deepEqual(eventIds(response), [e.yesterday, e.tiedEarly, e.tiedLate, e.lateNight, e.lastDay]);
    assert.deepEqual(Object.keys(response.json()), Object.keys(example.response.body));
    assert.deepEqual(queryPairs(response.json().rest_url), queryPairs(example.response.body.rest_url));
    assert.equal(response.json().rest_url.split('?')[0], `${h().config.apiRoot}/events/`);
    assert.deepEqual([response.json().total, response.json().total_pages], [5, 1]);
    assert.deepEqual(
      [response.headers['x-tec-total'], response.headers['x-tec-totalpages'], response.headers['x-wp-total']],
      ['5', '1', '5'],
    );
    assert.equal(response.headers.allow, 'GET');
    assert.equal('json_ld' in response.json().events[0], false);
  });

  it('snaps start_date to the start and end_date to the end of their days (inclusive mode)', async () => {
    assert.deepEqual(await ids(h(), { start_date: '2026-11-20 12:00' }), [
      e.twoDaysAgo,
      e.running,
      e.yesterday,
      e.tiedEarly,
      e.tiedLate,
      e.lateNight,
      e.lastDay,
    ]);
    assert.deepEqual(await ids(h(), { start_date: '2026-12-01 15:00' }), [
      e.tiedEarly,
      e.tiedLate,
      e.lateNight,
      e.lastDay,
    ]);
    assert.deepEqual(await ids(h(), { end_date: '2026-12-01 08:00' }), [e.yesterday, e.tiedEarly, e.tiedLate]);
    const response = await list(h(), { start_date: '2026-12-01 15:00', end_date: '2026-12-01' });
    assert.deepEqual(
      queryPairs(response.json().rest_url).filter(([name]) => name.endsWith('_date')),
      [
        ['start_date', '2026-12-01 00:00:00'],
        ['end_date', '2026-12-01 23:59:59'],
      ],
    );
  });

  it('uses exact times with strict_dates (a running event is not an overlap match)', async () => {
    assert.deepEqual(await ids(h(), { start_date: '2026-12-01 11:00:00', strict_dates: 'true' }), [
      e.lateNight,
      e.lastDay,
    ]);
    assert.deepEqual(await ids(h(), { start_date: '2026-12-01 10:00:00', strict_dates: '1' }), [
      e.tiedEarly,
      e.tiedLate,
      e.lateNight,
      e.lastDay,
    ]);
    assert.deepEqual(
      await ids(h(), { start_date: '2026-11-21 00:00:00', end_date: '2026-11-25 10:00:00', strict_dates: 'yes' }),
      [e.yesterday],
    );
    const response = await list(h(), { start_date: '2026-12-01 11:00:00', strict_dates: 'on' });
    assert.deepEqual(queryPairs(response.json().rest_url).slice(-1), [['strict_dates', '1']]);
    assertInvalidParams(await list(h(), { strict_dates: '' }), ['strict_dates']);
  });

  it('snaps starts_* and ends_* to the end of their day and drops the default window', async () => {
    assert.deepEqual(await ids(h(), { starts_after: '2026-12-01' }), [e.lastDay, e.farFuture]);
    assert.deepEqual(await ids(h(), { starts_before: '2026-12-01' }), [
      e.twoDaysAgo,
      e.running,
      e.yesterday,
      e.tiedEarly,
      e.tiedLate,
      e.lateNight,
    ]);
    assert.deepEqual(await ids(h(), { ends_before: '2026-11-21' }), [e.twoDaysAgo, e.yesterday]);
    assert.deepEqual(await ids(h(), { ends_after: '2028-01-01' }), [e.lastDay, e.farFuture]);
    assert.deepEqual(
      await ids(h(), { starts_after: '2026-11-19', ends_before: '2026-11-21', start_date: '2026-11-21' }),
      [e.yesterday],
    );
    const response = await list(h(), { starts_after: '2026-12-01' });
    assert.deepEqual(
      queryPairs(response.json().rest_url).map(([name]) => name),
      ['page', 'per_page', 'status', 'starts_after'],
    );
  });

  it('ignores every date filter with include (D9), still leaving out hidden events, by publication date', async () => {
    const response = await list(h(), {
      include: `${e.farFuture},${e.twoDaysAgo},${e.hidden},${e.tiedEarly}`,
      start_date: '2030-01-01',
      strict_dates: 'true',
    });
    assert.deepEqual(eventIds(response), [e.tiedEarly, e.twoDaysAgo, e.farFuture]);
    assert.deepEqual(queryPairs(response.json().rest_url), [
      ['page', '1'],
      ['per_page', '10'],
      ['status', 'publish'],
      ['include', `${e.farFuture},${e.twoDaysAgo},${e.hidden},${e.tiedEarly}`],
    ]);
    assert.deepEqual(await ids(h(), { include: [e.yesterday, e.lastDay] }), [e.yesterday, e.lastDay]);
    for (const include of ['foo-bar,23', '0', '-1', '']) assertInvalidParams(await list(h(), { include }), ['include']);
  });

  it('never lists hidden events', async () => {
    assert.equal((await ids(h(), { starts_after: '2020-01-01' })).includes(e.hidden), false);
    assert.equal((await h().request('GET', `/events/${e.hidden}`)).statusCode, 200, 'they stay reachable by id');
  });

  it('refuses dates it cannot read', async () => {
    for (const name of ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after']) {
      assertInvalidParams(await list(h(), { [name]: 'not-a-date' }), [name]);
      assertInvalidParams(await list(h(), { [name]: '' }), [name]);
    }
  });

  it('reads relative dates against the clock', async () => {
    assert.deepEqual(await ids(h(), { start_date: 'tomorrow', end_date: '+9 days' }), [e.tiedEarly, e.tiedLate]);
  });
});

describeEachDatabase(
  'GET /events in a site time zone east of UTC',
  (h) => {
    it('starts the default window at today 00:00 local when yesterday 23:59 UTC is already today there', async () => {
      h().setNow('2026-11-22T04:20:22Z');
      const response = await list(h());
      assert.deepEqual(
        queryPairs(response.json().rest_url).filter(([name]) => name.endsWith('_date')),
        [
          ['start_date', '2026-11-22 00:00:00'],
          ['end_date', '2028-11-22 23:59:59'],
        ],
      );
      const early = await createEvent(h(), {
        title: 'Brisbane Morning',
        start_date: '2026-11-22 08:00',
        end_date: '2026-11-22 09:00',
      });
      await createEvent(h(), {
        title: 'Brisbane Yesterday',
        start_date: '2026-11-21 08:00',
        end_date: '2026-11-21 09:00',
      });
      assert.deepEqual(await ids(h()), [early.id]);
    });
  },
  { SITE_TIMEZONE: 'Australia/Brisbane' },
);

describeEachDatabase('GET /events: filters (§4.1, D13, D14)', (h) => {
  const e: Record<string, number> = {};
  const t: Record<string, number> = {};

  // The fixtures and every test read the examples' clock (the harness lets it run again after each test).
  beforeEach(() => h().setNow(EXAMPLE_NOW));
  before(async () => {
    h().setNow(EXAMPLE_NOW);
    const editor = h().users.editor;
    const parent = await h().request('POST', '/categories', { as: editor, body: { name: 'Music' } });
    const child = await h().request('POST', '/categories', {
      as: editor,
      body: { name: 'Jazz', parent: parent.json().id },
    });
    t.music = parent.json().id;
    t.jazz = child.json().id;
    const rome = await createLinked(h(), 'venues', { venue: 'Rome Hall', geo_lat: 41.9028, geo_lng: 12.4964 });
    const tivoli = await createLinked(h(), 'venues', { venue: 'Tivoli Hall', geo_lat: 41.9637, geo_lng: 12.7982 });
    const paris = await createLinked(h(), 'venues', { venue: 'Paris Hall', geo_lat: 48.8566, geo_lng: 2.3522 });
    const nowhere = await createLinked(h(), 'venues', { venue: 'Unmapped Hall' });
    t.rome = rome.id;
    t.paris = paris.id;
    t.nowhere = nowhere.id;
    const ann = await createLinked(h(), 'organizers', { organizer: 'Ann' });
    const bob = await createLinked(h(), 'organizers', { organizer: 'Bob' });
    t.ann = ann.id;
    t.bob = bob.id;
    const make = async (key: string, day: string, fields: Record<string, unknown>) => {
      e[key] = (
        await createEvent(h(), {
          title: `Filter ${key}`,
          start_date: `2026-12-${day} 10:00`,
          end_date: `2026-12-${day} 11:00`,
          ...fields,
        })
      ).id;
    };
    await make('jazzNight', '01', {
      description: 'Smooth saxophone in the evening',
      categories: [t.jazz],
      tags: 'late',
      venue: rome.id,
      organizer: [ann.id],
      featured: true,
    });
    await make('rockShow', '02', {
      excerpt: 'Loud guitars and Café drinks',
      categories: [t.music],
      venue: tivoli.id,
      organizer: [bob.id],
    });
    await make('lecture', '03', {
      title: 'Été Lecture on Straße names',
      tags: ['late', 'talk'],
      venue: paris.id,
      organizer: [ann.id, bob.id],
    });
    await make('plain', '04', { venue: nowhere.id });
    await make('noVenue', '05', {});
  });

  it('searches title, excerpt and content, word by word, case-insensitively (§4.3)', async () => {
    assert.deepEqual(await ids(h(), { search: 'SAXOPHONE' }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { search: 'guitars café' }), [e.rockShow]);
    assert.deepEqual(await ids(h(), { search: 'filter evening' }), [e.jazzNight], 'words may sit in different fields');
    assert.deepEqual(await ids(h(), { search: 'été STRASSE' }), []);
    assert.deepEqual(await ids(h(), { search: 'ÉTÉ straße' }), [e.lecture], 'non-ASCII letters fold too');
    assert.deepEqual(await ids(h(), { search: '"smooth saxophone"' }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { search: '"saxophone smooth"' }), []);
    assert.deepEqual(await ids(h(), { search: '100%' }), []);
    assertInvalidParams(await list(h(), { search: '' }), ['search']);
    const response = await list(h(), { search: 'smooth jazz' });
    assert.deepEqual(
      queryPairs(response.json().rest_url).find(([name]) => name === 'search'),
      ['search', 'smooth jazz'],
    );
  });

  it('filters by category (children included) and tag, by id or slug, each of which must exist', async () => {
    assert.deepEqual(await ids(h(), { categories: 'music' }), [e.jazzNight, e.rockShow]);
    assert.deepEqual(await ids(h(), { categories: [t.jazz] }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { tags: 'late' }), [e.jazzNight, e.lecture]);
    assert.deepEqual(await ids(h(), { tags: 'talk', categories: 'music' }), []);
    assert.deepEqual(await ids(h(), { categories: `jazz, ${t.music}` }), [e.jazzNight, e.rockShow]);
    assertInvalidParams(await list(h(), { categories: 'music,no-such-category' }), ['categories']);
    assertInvalidParams(await list(h(), { tags: '999999' }), ['tags']);
    assertInvalidParams(await list(h(), { categories: '' }), ['categories']);
    const both = await list(h(), { categories: 'music', tags: 'late' });
    assert.deepEqual(
      queryPairs(both.json().rest_url).filter(([name]) => name === 'categories' || name === 'tags'),
      [
        ['categories', 'music'],
        ['tags', 'late'],
      ],
    );
    const paged = await list(h(), { categories: 'music', per_page: 1 });
    assert.deepEqual(
      queryPairs(paged.json().next_rest_url).filter(([name]) => name === 'categories'),
      [['categories', 'music']],
      'following the link keeps the filter',
    );
  });

  it('filters by venue and organizer ids, each of which must be of that type', async () => {
    assert.deepEqual(await ids(h(), { venue: t.rome }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { venue: `${t.rome},${t.paris}` }), [e.jazzNight, e.lecture]);
    assert.deepEqual(await ids(h(), { organizer: t.bob }), [e.rockShow, e.lecture]);
    assert.deepEqual(await ids(h(), { organizer: [t.ann], venue: [t.paris] }), [e.lecture]);
    assertInvalidParams(await list(h(), { venue: t.ann }), ['venue']);
    assertInvalidParams(await list(h(), { organizer: `${t.ann},${e.plain}` }), ['organizer']);
    assertInvalidParams(await list(h(), { venue: 'abc' }), ['venue']);
  });

  it('filters by featured, type-checking the value', async () => {
    assert.deepEqual(await ids(h(), { featured: 'true' }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { featured: '0' }), [e.rockShow, e.lecture, e.plain, e.noVenue]);
    const bad = await list(h(), { featured: 'maybe' });
    assertInvalidParams(bad, ['featured']);
    assert.equal(bad.json().data.params.featured, 'featured is not of type boolean.');
    const response = await list(h(), { featured: 'true' });
    assert.deepEqual(
      queryPairs(response.json().rest_url).find(([name]) => name === 'featured'),
      ['featured', '1'],
    );
  });

  it('filters by venue coordinates and distance (D13)', async () => {
    assert.deepEqual(await ids(h(), { geoloc: 'true' }), [e.jazzNight, e.rockShow, e.lecture]);
    assert.deepEqual(await ids(h(), { geoloc: 'false' }), [e.plain, e.noVenue]);
    assert.deepEqual(
      await ids(h(), { geoloc_lat: 41.9, geoloc_lng: 12.5 }),
      [e.jazzNight],
      'Tivoli is about 25.7 km from this point: beyond the default 25 km',
    );
    assert.deepEqual(await ids(h(), { geoloc_lat: 41.9, geoloc_lng: 12.5, geoloc_radius: 26 }), [
      e.jazzNight,
      e.rockShow,
    ]);
    assert.deepEqual(await ids(h(), { geoloc_lat: 41.9028, geoloc_lng: 12.4964, geoloc_radius: 5 }), [e.jazzNight]);
    assert.deepEqual(await ids(h(), { geoloc_lat: 41.9028, geoloc_lng: 12.4964, geoloc_radius: 1200 }), [
      e.jazzNight,
      e.rockShow,
      e.lecture,
    ]);
    assert.deepEqual(
      await ids(h(), { geoloc_lat: -41.9, geoloc_lng: -167.5, geoloc_radius: 20000 }),
      [e.rockShow, e.lecture],
      'near the antipode: Rome is 20,014 km away, Tivoli 19,990 km',
    );
    const missing = await list(h(), { geoloc_lat: 41.9 });
    assertInvalidParams(missing, ['geoloc_lng']);
    assertInvalidParams(await list(h(), { geoloc_lng: 12 }), ['geoloc_lat']);
    assertInvalidParams(await list(h(), { geoloc_lat: 91, geoloc_lng: 0 }), ['geoloc_lat']);
    assertInvalidParams(await list(h(), { geoloc_lat: 0, geoloc_lng: 181 }), ['geoloc_lng']);
    for (const radius of ['0', '-5', '20001', 'far'])
      assertInvalidParams(await list(h(), { geoloc_lat: 0, geoloc_lng: 0, geoloc_radius: radius }), ['geoloc_radius']);
    const response = await list(h(), { geoloc_lat: 41.9, geoloc_lng: 12.5 });
    assert.deepEqual(queryPairs(response.json().rest_url).slice(-3), [
      ['geoloc_lat', '41.9'],
      ['geoloc_lng', '12.5'],
      ['geoloc_radius', '25'],
    ]);
  });

  it('answers ticketed=true as the reference does without ticketing (D14)', async () => {
    const refused = await list(h(), { ticketed: 'true' });
    assertInvalidParams(refused, ['ticketed']);
    assert.equal(refused.json().data.params.ticketed, 'Event Tickets plugin is not activated.');
    assert.equal(refused.json().data.details.ticketed.code, 'event-tickets-not-active');
    assert.equal((await ids(h(), { ticketed: 'false' })).length, 5);
    const bad = await list(h(), { ticketed: 'maybe' });
    assertInvalidParams(bad, ['ticketed']);
    assert.equal(bad.json().data.details.ticketed.code, 'rest_invalid_type');
  });

  it('filters by post_parent, which must be an event', async () => {
    await h().store.db.updateTable('posts').set({ parent_id: e.jazzNight }).where('id', '=', e.lecture).execute();
    assert.deepEqual(await ids(h(), { post_parent: e.jazzNight }), [e.lecture]);
    assert.deepEqual(await ids(h(), { post_parent: e.rockShow }), []);
    assertInvalidParams(await list(h(), { post_parent: t.rome }), ['post_parent']);
    assertInvalidParams(await list(h(), { post_parent: 999999 }), ['post_parent']);
  });
});

describeEachDatabase('GET /events: statuses and passwords (§4.4, §10, §11, D19)', (h) => {
  const e: Record<string, number> = {};

  // The fixtures and every test read the examples' clock (the harness lets it run again after each test).
  beforeEach(() => h().setNow(EXAMPLE_NOW));
  before(async () => {
    h().setNow(EXAMPLE_NOW);
    const { editor, author, contributor } = h().users;
    const make = async (key: string, fields: Record<string, unknown>, as: Credentials) => {
      e[key] = (await createEvent(h(), { title: `Status ${key}`, ...fields }, as)).id;
    };
    await make('published', {}, editor);
    await make('editorDraft', { status: 'draft' }, editor);
    await make('authorDraft', { status: 'draft' }, author);
    await make('contributorPending', { status: 'publish' }, contributor);
    await make('private', { status: 'private' }, editor);
    await make('scheduledDue', { date: '2026-11-22 05:00:00' }, editor);
    await make(
      'protected',
      {
        password: 'open',
        description: 'Secret description',
        cost: '10',
        venue: { venue: 'Secret Hall' },
        categories: ['Secret Cat'],
      },
      editor,
    );
  });

  it('refuses other statuses to anonymous callers (the reference body)', async () => {
    for (const status of ['draft', 'publish,draft', 'any']) {
      const response = await list(h(), { status });
      assert.deepEqual(response.json(), {
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): status',
        data: { status: 400, params: { status: 'Invalid parameter.' }, details: [] },
      });
    }
    assertInvalidParams(await list(h(), { status: 'draft' }, h().users.subscriber), ['status']);
    assertInvalidParams(await list(h(), { status: 'publish,bogus' }, h().users.editor), ['status']);
  });

  it('lists what each caller could open by id (D19); a due scheduled event is published (D17)', async () => {
    h().setNow('2026-11-22T06:00:00Z');
    const everyone = [e.published, e.scheduledDue, e.protected];
    assert.deepEqual(new Set(await ids(h())), new Set(everyone));
    assert.deepEqual(
      new Set(await ids(h(), {}, h().users.editor)),
      new Set([...everyone, e.editorDraft, e.authorDraft, e.contributorPending, e.private]),
    );
    assert.deepEqual(
      new Set(await ids(h(), { status: 'any' }, h().users.author)),
      new Set([...everyone, e.authorDraft]),
    );
    assert.deepEqual(new Set(await ids(h(), {}, h().users.contributor)), new Set([...everyone, e.contributorPending]));
    assert.deepEqual(await ids(h(), { status: 'draft' }, h().users.editor), [e.editorDraft, e.authorDraft]);
    assert.deepEqual(await ids(h(), { status: ['pending', 'private'] }, h().users.editor), [
      e.contributorPending,
      e.private,
    ]);
    const response = await list(h(), {}, h().users.editor);
    assert.deepEqual(
      queryPairs(response.json().rest_url).find(([name]) => name === 'status'),
      ['status', 'any'],
    );
  });

  it('lists protected events with blanked fields unless the password or context=edit unlocks them (§3.10)', async () => {
    const find = async (query: Query, as?: Credentials) =>
      (await list(h(), query, as)).json().events.find((event: { id: number }) => event.id === e.protected);
    const blanked = await find({});
    assert.deepEqual(
      [
        blanked.title,
        blanked.description,
        blanked.cost,
        blanked.cost_details,
        blanked.venue,
        blanked.categories,
        blanked.featured,
        blanked.all_day,
        blanked.website,
        blanked.image,
      ],
      [
        'Status protected',
        '',
        '',
        { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
        [],
        [],
        null,
        null,
        '',
        false,
      ],
    );
    assert.equal(blanked.start_date, '2027-03-10 09:00:00', 'dates are kept');
    const unlocked = await find({ password: 'open' });
    assert.deepEqual(
      [unlocked.description, unlocked.cost, unlocked.venue.venue],
      ['<p>Secret description</p>', '$10', 'Secret Hall'],
    );
    assert.equal((await find({ password: 'wrong' })).description, '');
    assert.equal((await find({}, h().users.editor)).description, '', 'being logged in is not enough');
    assert.equal((await find({ context: 'edit' }, h().users.editor)).description, '<p>Secret description</p>');
    const other = (await list(h(), { password: 'open' }))
      .json()
      .events.find((event: { id: number }) => event.id === e.published);
    assert.notEqual(other.website, '', 'unprotected events are never blanked');
    const response = await list(h(), { password: 'open' });
    assert.doesNotMatch(response.json().rest_url, /open/, 'the password is never echoed');
  });
});

describeEachDatabase('GET /events: paging, envelope and cost (§4.5, D10–D12)', (h) => {
  // The fixtures and every test read the examples' clock (the harness lets it run again after each test).
  beforeEach(() => h().setNow(EXAMPLE_NOW));
  before(async () => {
    h().setNow(EXAMPLE_NOW);
    for (let index = 1; index <= 12; index++) {
      const day = String(index).padStart(2, '0');
      await createEvent(h(), {
        title: `Paged ${day}`,
        start_date: `2026-12-${day} 10:00`,
        end_date: `2026-12-${day} 11:00`,
        venue: { venue: `Paged Hall ${day}` },
        organizer: [{ organizer: `Paged Org ${day}` }, { organizer: 'Paged Shared Org' }],
        categories: [`Paged Category ${day}`],
        tags: ['paged'],
        image: `https://cdn.example.com/paged-${day}.png`,
      });
    }
  });

  it('pages with next and previous links, the Link header and totals', async () => {
    const first = await list(h(), { per_page: 5 });
    assert.deepEqual([first.json().total, first.json().total_pages, first.json().events.length], [12, 3, 5]);
    assert.equal('previous_rest_url' in first.json(), false);
    const next = first.json().next_rest_url;
    assert.deepEqual(
      queryPairs(next).map(([name]) => name),
      ['per_page', 'start_date', 'end_date', 'status', 'page'],
    );
    assert.equal(first.headers.link, `<${next}>; rel="next"`);

    const second = await h().request('GET', next.slice(next.indexOf(h().config.apiPath)));
    assert.equal(second.statusCode, 200);
    assert.deepEqual(
      second.json().events.map((event: { title: string }) => event.title),
      ['Paged 06', 'Paged 07', 'Paged 08', 'Paged 09', 'Paged 10'],
    );
    assert.deepEqual(
      queryPairs(second.json().previous_rest_url).map(([name]) => name),
      ['per_page', 'start_date', 'end_date', 'status'],
    );
    assert.match(second.headers.link as string, /rel="next", <.*>; rel="prev"$/);

    const last = await list(h(), { per_page: 5, page: 3 });
    assert.deepEqual([last.json().events.length, 'next_rest_url' in last.json()], [2, false]);
    assert.deepEqual(queryPairs(last.json().previous_rest_url).slice(-1), [['page', '2']]);
  });

  it('answers 404 beyond the last page, and an empty 200 on page 1', async () => {
    const beyond = await list(h(), { per_page: 5, page: 4 });
    assert.deepEqual(
      [beyond.statusCode, beyond.json()],
      [
        404,
        {
          code: 'event-archive-page-not-found',
          message: 'The requested event archive page does not exist',
          data: { status: 404 },
        },
      ],
    );
    const empty = await list(h(), { search: 'nothing matches this' });
    assert.deepEqual(
      [empty.statusCode, empty.json().events, empty.json().total, empty.json().total_pages],
      [200, [], 0, 0],
    );
    assert.deepEqual(
      [empty.headers['x-tec-total'], empty.headers['x-tec-totalpages'], empty.headers.link],
      ['0', '0', undefined],
    );
  });

  it('clamps per_page to PER_PAGE_MAX and refuses non-positive page sizes and pages (D10)', async () => {
    const clamped = await list(h(), { per_page: 500 });
    assert.deepEqual(
      queryPairs(clamped.json().rest_url).find(([name]) => name === 'per_page'),
      ['per_page', '100'],
    );
    for (const [name, value] of [
      ['per_page', '0'],
      ['per_page', '-1'],
      ['per_page', 'foo'],
      ['page', '0'],
      ['page', 'x'],
    ]) {
      assertInvalidParams(await list(h(), { [name]: value }), [name]);
    }
  });

  it('costs the same number of queries whatever the page size', async () => {
    const executor = h().store.db.getExecutor();
    const original = executor.executeQuery.bind(executor);
    let count = 0;
    executor.executeQuery = ((...args: Parameters<typeof original>) => {
      count++;
      return original(...args);
    }) as typeof executor.executeQuery;
    try {
      const queriesFor = async (perPage: number) => {
        count = 0;
        const response = await list(h(), {
          per_page: perPage,
          categories:
            'paged-category-01,paged-category-02,paged-category-03,paged-category-04,paged-category-05,paged-category-06,paged-category-07,paged-category-08,paged-category-09,paged-category-10,paged-category-11,paged-category-12',
        });
        assert.equal(response.json().events.length, perPage);
        return count;
      };
      const small = await queriesFor(2);
      const large = await queriesFor(12);
      // D31: posts are read POSTS_PER_READ at a time (bounded work per SQLite query), so events, venues and organizers
      // each cost one more query per further chunk; never one query per item.
      const extraChunks = Math.ceil(13 / POSTS_PER_READ) - 1;
      assert.ok(large <= small + 3 * extraChunks, `${small} queries for 2 events, ${large} for 12`);
      assert.ok(small <= 20, `${small} queries`);
    } finally {
      executor.executeQuery = original;
    }
  });

  it('embeds venues, organizers, terms and images on every item of a page', async () => {
    const events = (await list(h(), { per_page: 12 })).json().events;
    for (const [index, event] of events.entries()) {
      const day = String(index + 1).padStart(2, '0');
      assert.equal(event.venue.venue, `Paged Hall ${day}`);
      assert.deepEqual(
        event.organizer.map((organizer: { organizer: string }) => organizer.organizer),
        [`Paged Org ${day}`, 'Paged Shared Org'],
      );
      assert.deepEqual(
        event.categories.map((term: { name: string }) => term.name),
        [`Paged Category ${day}`],
      );
      assert.equal(event.tags[0].count, 12);
      assert.equal(event.image.url, `https://cdn.example.com/paged-${day}.png`);
    }
  });
});
