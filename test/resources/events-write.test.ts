// POST /events (§5.2, D3, D5, D8, D12, D16): fields, validation, dates and zones, statuses, slugs, linked venues and
// organizers, terms, cost, defaults; every case on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import {
  createEvent,
  EXAMPLE_NOW,
  eventBody,
  exampleEventWithLinks,
  referenceShape,
  withoutIds,
} from './events-support.ts';
import { assertInvalidParams, createLinked, readExample } from './support.ts';
import { rowCount } from '../helpers/queries.ts';

describeEachDatabase('POST /events', (h) => {
  const post = (body: unknown, as = h().users.editor) => h().request('POST', '/events', { as, body });
  const countEvents = () => rowCount(h().store, 'events');

  it('answers example 07 exactly: 201, Location, linked venue and organizer, terms by id and new tag by slug', async () => {
    h().setNow(EXAMPLE_NOW);
    const example = readExample('07-create-event.json');
    const { venue, organizer, category, body } = await exampleEventWithLinks(h());
    assert.equal(category.statusCode, 201);

    const response = await post(body, h().users.administrator);
    assert.equal(response.statusCode, 201, response.body);
    const event = referenceShape(response.json());
    assert.deepEqual(withoutIds(event), withoutIds(example.response.body));
    assert.deepEqual(Object.keys(event), Object.keys(example.response.body));
    assert.equal(response.headers.location, `${h().config.apiRoot}/events/${event.id}`);
    assert.equal(response.headers.allow, 'GET, POST');
    assert.equal(event.rest_url, `${h().config.apiRoot}/events/${event.id}`);
    assert.equal(event.author, String(h().users.administrator.id));
    assert.equal(event.venue.id, venue.id);
    assert.deepEqual(
      event.organizer.map((item: { id: number }) => item.id),
      [organizer.id],
    );
  });

  it('stores the create defaults of example 24', async () => {
    h().setNow(EXAMPLE_NOW);
    const example = readExample('24-create-event-to-delete.json');
    const response = await post({ ...example.request.body, title: 'Temp Defaults' }, h().users.administrator);
    assert.equal(response.statusCode, 201);
    const expected = { ...(example.response.body as Record<string, unknown>) };
    const event = referenceShape(response.json());
    for (const key of ['title', 'slug', 'url', 'website'] as const) delete expected[key];
    const actual = { ...event };
    for (const key of ['title', 'slug', 'url', 'website'] as const) delete actual[key];
    assert.deepEqual(withoutIds(actual), withoutIds(expected));
    assert.equal(event.website, event.url, 'no website stored: the permalink');
    assert.equal(event.url, `${h().config.siteUrl}/event/temp-defaults/`);
  });

  it('reports missing required fields first, all at once, even without credentials (example 13)', async () => {
    const example = readExample('13-error-400-create-event-missing-title.json');
    const response = await post(example.request.body, h().users.administrator);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), example.response.body);
    const none = await post({}, null as never);
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().message, 'Missing parameter(s): title, start_date, end_date');
    const anonymous = await post({ title: 'x', start_date: 'not-a-date', end_date: '2027-01-01' }, null as never);
    assertInvalidParams(anonymous, ['start_date']);
  });

  it('answers 401 to anonymous callers (example 14) and 403 to subscribers', async () => {
    const example = readExample('14-error-401-create-event-unauthenticated.json');
    const anonymous = await h().request('POST', '/events', { body: example.request.body });
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), example.response.body);
    assert.equal(anonymous.headers.allow, 'GET');
    const subscriber = await post(eventBody(), h().users.subscriber);
    assert.equal(subscriber.statusCode, 403);
    assert.equal(subscriber.json().code, 'rest_forbidden');
  });

  it('refuses a date it cannot read with the reference body (example 22)', async () => {
    const example = readExample('22-error-400-bad-dates.json');
    const response = await post(example.request.body, h().users.administrator);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), example.response.body);
    for (const value of ['', 'before my birthday', '2024-02-30', '2027-13-01']) {
      assertInvalidParams(await post(eventBody({ end_date: value })), ['end_date']);
    }
  });

  it('validates every field, never answering 500', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Validation Hall' });
    const organizer = await createLinked(h(), 'organizers', { organizer: 'Validation Org' });
    const invalid: Array<[string, unknown]> = [
      ['title', ''],
      ['title', '   '],
      ['description', ''],
      ['excerpt', ''],
      ['slug', ''],
      ['status', 'bogus'],
      ['author', 999999],
      ['author', ''],
      ['timezone', 'Mars/Olympus'],
      ['timezone', 'UTC+99'],
      ['website', 'foo'],
      ['website', 'ftp://example.com/x'],
      ['cost', { amount: 3 }],
      ['image', 'not a url'],
      ['image', 999999],
      ['date', 'someday'],
      ['date_utc', 'nope'],
      ['venue', 999999],
      ['venue', organizer.id],
      ['venue', { venue: '' }],
      ['venue', { id: organizer.id }],
      ['venue', { city: 'No name' }],
      ['venue', true],
      ['venue', [venue.id, 999999]],
      ['venue', { venue: 'Bad Site', website: 'foo' }],
      ['venue', { venue: 'Half Geo', geo_lat: 10 }],
      ['organizer', { organizer: '' }],
      ['organizer', [venue.id]],
      ['organizer', '5,x'],
      ['categories', { a: 1 }],
      ['tags', [{ a: 1 }]],
      ['password', 42],
    ];
    for (const [name, value] of invalid) {
      const response = await post(eventBody({ [name]: value }));
      assert.equal(response.statusCode, 400, `${name}=${JSON.stringify(value)}: ${response.body}`);
      assert.equal(response.json().code, 'rest_invalid_param', `${name}=${JSON.stringify(value)}`);
      assert.deepEqual(Object.keys(response.json().data.params), [name], `${name}=${JSON.stringify(value)}`);
    }
    for (const name of ['all_day', 'featured', 'show_map', 'show_map_link', 'hide_from_listings', 'sticky']) {
      const response = await post(eventBody({ [name]: 'maybe' }));
      assertInvalidParams(response, [name]);
      assert.equal(response.json().data.params[name], `${name} is not of type boolean.`);
      assert.equal(response.json().data.details[name].code, 'rest_invalid_type');
    }
  });

  it('refuses dates that leave the years 0001–9999 once converted to UTC, rather than failing', async () => {
    const edge = { timezone: 'America/New_York', start_date: '2027-01-01', end_date: '2027-01-02' };
    assertInvalidParams(
      await post(eventBody({ ...edge, start_date: '9999-12-31 23:00:00', end_date: '9999-12-31 23:30:00' })),
      ['start_date'],
    );
    assertInvalidParams(await post(eventBody({ ...edge, end_date: '9999-12-31 23:30:00' })), ['end_date']);
    assertInvalidParams(await post(eventBody({ ...edge, date: '9999-12-31 23:00:00' })), ['date']);
  });

  it('answers D3 when the end precedes the start, after all-day snapping; equal dates are fine', async () => {
    const response = await post(eventBody({ start_date: '2027-03-10 10:00:00', end_date: '2027-03-10 09:59:59' }));
    assertInvalidParams(response, ['end_date']);
    assert.equal(response.json().data.params.end_date, 'end_date must not be before start_date.');
    assert.equal(response.json().data.details.end_date.code, 'rest_invalid_date_range');
    const sameDay = await createEvent(h(), {
      title: 'Snapped Range',
      all_day: true,
      start_date: '2027-03-10 10:00',
      end_date: '2027-03-10 09:00',
    });
    assert.deepEqual([sameDay.start_date, sameDay.end_date], ['2027-03-10 00:00:00', '2027-03-10 23:59:59']);
    const equal = await createEvent(h(), {
      title: 'Instant',
      start_date: '2027-03-10 10:00',
      end_date: '2027-03-10 10:00',
    });
    assert.equal(equal.start_date, equal.end_date);
  });

  it('reads the dates in the event time zone and derives UTC and the abbreviation (§5.2, D8)', async () => {
    const summer = await createEvent(h(), {
      title: 'NY Summer',
      start_date: '2031-05-10 09:00:00',
      end_date: '2031-05-10 11:00:00',
      timezone: 'America/New_York',
    });
    assert.deepEqual(
      [summer.timezone, summer.timezone_abbr, summer.start_date, summer.utc_start_date, summer.utc_end_date],
      ['America/New_York', 'EDT', '2031-05-10 09:00:00', '2031-05-10 13:00:00', '2031-05-10 15:00:00'],
    );
    assert.deepEqual(summer.utc_start_date_details, {
      year: '2031',
      month: '05',
      day: '10',
      hour: '13',
      minutes: '00',
      seconds: '00',
    });
    const winter = await createEvent(h(), {
      title: 'NY Winter',
      start_date: '2027-01-10 09:00',
      end_date: '2027-01-10 10:00',
      timezone: 'America/New_York',
    });
    assert.equal(winter.timezone_abbr, 'EST');
    const offset = await createEvent(h(), {
      title: 'Offset Zone',
      start_date: '2027-01-10 09:00',
      end_date: '2027-01-10 10:00',
      timezone: 'UTC+5',
    });
    assert.deepEqual(
      [offset.timezone, offset.timezone_abbr, offset.utc_start_date],
      ['UTC+5', 'UTC+5', '2027-01-10 04:00:00'],
    );
    const siteZone = await createEvent(h(), { title: 'Empty Zone', timezone: '' });
    assert.deepEqual([siteZone.timezone, siteZone.timezone_abbr], ['UTC', 'UTC']);
  });

  it('accepts instants (offsets, timestamps) and relative forms, converted to the event zone (D8)', async () => {
    h().setNow(EXAMPLE_NOW);
    const instants = await createEvent(h(), {
      title: 'Instants',
      timezone: 'Europe/Paris',
      start_date: '2027-03-10T09:00:00Z',
      end_date: 1804683600,
    });
    assert.deepEqual(
      [instants.start_date, instants.end_date, instants.utc_end_date],
      ['2027-03-10 10:00:00', '2027-03-10 14:00:00', '2027-03-10 13:00:00'],
    );
    const relative = await createEvent(h(), {
      title: 'Relative',
      start_date: 'tomorrow 9am',
      end_date: 'next wednesday 4pm',
      timezone: 'America/New_York',
    });
    assert.deepEqual([relative.start_date, relative.end_date], ['2026-11-22 09:00:00', '2026-11-25 16:00:00']);
  });

  it('lets only callers who may upload files set an image by URL: a contributor gets 400 as in the reference, an image id is fine', async () => {
    const body = {
      title: 'Pictured',
      start_date: '2027-03-10 10:00:00',
      end_date: '2027-03-10 11:00:00',
      image: 'https://cdn.example.com/contributor.png',
    };
    const refused = await h().request('POST', '/events', { as: h().users.contributor, body });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().code, 'rest_invalid_param');
    assert.ok('image' in refused.json().data.params, refused.body);
    const venue = await h().request('POST', '/venues', {
      as: h().users.contributor,
      body: { venue: 'Pictured Hall', image: 'https://cdn.example.com/hall.png' },
    });
    assert.equal(venue.statusCode, 400, venue.body);
    const authors = await createEvent(h(), body, h().users.author);
    assert.equal(authors.image.url, body.image);
    const byId = await createEvent(h(), { ...body, image: authors.image.id }, h().users.contributor);
    assert.equal(byId.image.id, authors.image.id);
    const own = await createEvent(h(), { ...body, image: undefined }, h().users.contributor);
    const update = await h().request('POST', `/events/${own.id}`, {
      as: h().users.contributor,
      body: { image: 'https://cdn.example.com/other.png' },
    });
    assert.equal(update.statusCode, 400, update.body);
  });

  it('refuses an image URL with a broken percent-escape (400, not a 500), and names an image by its decoded file name', async () => {
    for (const image of [
      'https://cdn.example.com/%E0%A4%A.png',
      'https://cdn.example.com/%zz.png',
      'https://cdn.example.com/100%.png',
    ]) {
      const response = await h().request('POST', '/events', {
        as: h().users.author,
        body: { title: 'Odd file', start_date: '2027-03-10 10:00:00', end_date: '2027-03-10 11:00:00', image },
      });
      assert.equal(response.statusCode, 400, `${image}: ${response.body}`);
      assert.equal(response.json().code, 'rest_invalid_param');
    }
    // An escape that is valid but not UTF-8 (%E0%A4 alone) still makes an image; its title keeps the name as written.
    const event = await createEvent(
      h(),
      { title: 'Odd file', image: 'https://cdn.example.com/%E0%A4.png' },
      h().users.author,
    );
    assert.equal(event.image.url, 'https://cdn.example.com/%E0%A4.png');
  });

  it('accepts dates with am/pm times on create and update, as the reference does (D8)', async () => {
    h().setNow(EXAMPLE_NOW);
    const event = await createEvent(h(), {
      title: 'Afternoon',
      start_date: '2018-01-01 4pm',
      end_date: '2018-01-01 5:30 PM',
      timezone: 'UTC',
    });
    assert.deepEqual([event.start_date, event.end_date], ['2018-01-01 16:00:00', '2018-01-01 17:30:00']);
    const updated = await h().request('POST', `/events/${event.id}`, {
      as: h().users.editor,
      body: { start_date: '2018-01-02 9 am', end_date: '2018-01-02 11:15 a.m.' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(
      [updated.json().start_date, updated.json().end_date],
      ['2018-01-02 09:00:00', '2018-01-02 11:15:00'],
    );
    const listed = await h().request('GET', '/events', {
      query: { start_date: '2018-01-01 3pm', end_date: '2018-01-03 1 pm' },
    });
    assert.equal(listed.statusCode, 200, listed.body);
  });

  it('snaps all-day events to whole days, over several days too', async () => {
    const event = await createEvent(h(), {
      title: 'Festival',
      all_day: true,
      start_date: '2027-06-01 15:00',
      end_date: '2027-06-03 08:00',
      timezone: 'Europe/Paris',
    });
    assert.deepEqual(
      [event.all_day, event.start_date, event.end_date, event.utc_start_date],
      [true, '2027-06-01 00:00:00', '2027-06-03 23:59:59', '2027-05-31 22:00:00'],
    );
  });

  it('scales statuses back for contributors and schedules future publication dates', async () => {
    const { contributor, author, editor } = h().users;
    const status = async (as: typeof editor, fields: Record<string, unknown>) =>
      (await createEvent(h(), { title: 'Status Probe', ...fields }, as)).status;
    assert.equal(await status(contributor, {}), 'draft');
    assert.equal(await status(contributor, { status: 'publish' }), 'pending');
    assert.equal(await status(contributor, { status: 'future' }), 'pending');
    assert.equal(await status(contributor, { status: 'private' }), 'private');
    assert.equal(await status(author, {}), 'publish');
    assert.equal(await status(editor, { status: 'draft' }), 'draft');
    h().setNow(EXAMPLE_NOW);
    const scheduled = await createEvent(h(), { title: 'Scheduled', date: '2026-12-01 10:00:00' }, editor);
    assert.deepEqual(
      [scheduled.status, scheduled.date, scheduled.url],
      ['future', '2026-12-01 10:00:00', `${h().config.siteUrl}/?p=${scheduled.id}`],
    );
  });

  it('reads the publication date in the event zone and keeps it in the site zone; date_utc wins', async () => {
    h().setNow(EXAMPLE_NOW);
    const local = await createEvent(h(), {
      title: 'Published Paris',
      timezone: 'Europe/Paris',
      date: '2026-11-01 12:00:00',
    });
    assert.deepEqual([local.date, local.date_utc], ['2026-11-01 11:00:00', '2026-11-01 11:00:00']);
    const utc = await createEvent(h(), {
      title: 'Published UTC',
      date: '2026-11-01 12:00:00',
      date_utc: '2026-11-02 08:00:00',
    });
    assert.equal(utc.date_utc, '2026-11-02 08:00:00');
  });

  it('makes slugs unique and takes an explicit slug', async () => {
    const first = await createEvent(h(), { title: 'Café Concert' });
    const second = await createEvent(h(), { title: 'Café Concert' });
    const explicit = await createEvent(h(), { title: 'Whatever', slug: 'My Custom Slug' });
    assert.deepEqual([first.slug, second.slug, explicit.slug], ['cafe-concert', 'cafe-concert-2', 'my-custom-slug']);
    assert.equal(second.url, `${h().config.siteUrl}/event/cafe-concert-2/`);
    const symbols = await createEvent(h(), { title: '日本' });
    assert.equal(symbols.slug, 'event');
  });

  it('gives each of 6 concurrent creates with the same title its own slug', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(eventBody({ title: 'Rush Event' }))));
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
    assert.deepEqual(
      new Set(answers.map((answer) => answer.json().slug)),
      new Set(['rush-event', 'rush-event-2', 'rush-event-3', 'rush-event-4', 'rush-event-5', 'rush-event-6']),
    );
  });

  it('links a venue by id, numeric string or {id}, and keeps only the first of a list', async () => {
    const hall = await createLinked(h(), 'venues', { venue: 'Linked Hall' });
    const other = await createLinked(h(), 'venues', { venue: 'Other Hall' });
    for (const venue of [
      hall.id,
      String(hall.id),
      { id: hall.id },
      { id: String(hall.id) },
      [hall.id, other.id],
      [{ id: hall.id }, { venue: 'Never Created Hall' }],
    ]) {
      const event = await createEvent(h(), { title: 'Venue Forms', venue });
      assert.equal(event.venue.id, hall.id, JSON.stringify(venue));
      assert.equal(event.venue.venue, 'Linked Hall');
    }
    for (const venue of ['', 0, '0', []])
      assert.deepEqual((await createEvent(h(), { title: 'No Venue', venue })).venue, []);
  });

  it('creates an inline venue, or reuses an identical one the caller may edit (§7.2, D16)', async () => {
    const created = await createEvent(h(), {
      title: 'Inline Venue',
      venue: { venue: 'ZZ Probe Venue', city: 'Rome', country: 'Italy', province: 'RM' },
    });
    assert.deepEqual(
      [
        created.venue.venue,
        created.venue.city,
        created.venue.stateprovince,
        created.venue.status,
        created.venue.show_map,
      ],
      ['ZZ Probe Venue', 'Rome', 'RM', 'publish', true],
    );
    const again = await createEvent(h(), {
      title: 'Inline Venue Again',
      venue: { venue: 'zz probe venue', phone: '123' },
    });
    assert.equal(again.venue.id, created.venue.id, 'the duplicate is reused');
    assert.equal(again.venue.phone, '123', 'and the sent fields are written onto it');

    const byContributor = await createEvent(
      h(),
      { title: 'Contributor Inline', venue: { venue: 'ZZ Probe Venue' } },
      h().users.contributor,
    );
    assert.notEqual(
      byContributor.venue.id,
      created.venue.id,
      "a contributor cannot reuse (and so change) the editor's venue",
    );
    assert.equal(byContributor.venue.status, 'draft');
  });

  it('keeps every organizer of a mixed list, in order', async () => {
    const b = await createLinked(h(), 'organizers', { organizer: 'Org B' });
    const c = await createLinked(h(), 'organizers', { organizer: 'Org C' });
    const event = await createEvent(h(), {
      title: 'Many Organizers',
      organizer: [{ organizer: 'Org A' }, { id: b.id }, c.id, { organizer: 'Org D', email: 'd@example.com' }],
    });
    assert.deepEqual(
      event.organizer.map((item: { organizer: string }) => item.organizer),
      ['Org A', 'Org B', 'Org C', 'Org D'],
    );
    assert.equal(event.organizer[3].email, 'd@example.com');
    const single = await createEvent(h(), { title: 'One Organizer', organizer: b.id });
    assert.deepEqual(
      single.organizer.map((item: { id: number }) => item.id),
      [b.id],
    );
    const form = await h().request('POST', '/events', {
      as: h().users.editor,
      form: {
        title: 'Form Organizers',
        start_date: '2027-03-10 09:00',
        end_date: '2027-03-10 10:00',
        organizer: [String(b.id), String(c.id)],
      },
    });
    assert.equal(form.statusCode, 201, form.body);
    assert.deepEqual(
      form.json().organizer.map((item: { id: number }) => item.id),
      [b.id, c.id],
    );
  });

  it('refuses a CSV string of ids with could-not-create-*, creating nothing', async () => {
    const hall = await createLinked(h(), 'venues', { venue: 'CSV Hall' });
    const org = await createLinked(h(), 'organizers', { organizer: 'CSV Org' });
    const before = await countEvents();
    const venue = await post(eventBody({ venue: `${hall.id},${hall.id}` }));
    assert.equal(venue.statusCode, 400);
    assert.deepEqual(venue.json(), {
      code: 'could-not-create-venue',
      message: 'The venue could not be created from the provided data',
      data: { status: 400 },
    });
    const organizer = await post(
      eventBody({ venue: { venue: 'Rolled Back Hall' }, organizer: `${org.id}, ${org.id}` }),
    );
    assert.equal(organizer.statusCode, 400);
    assert.equal(organizer.json().code, 'could-not-create-organizer');
    assert.equal(await countEvents(), before);
    const venues = await h().request('GET', '/venues', { as: h().users.editor, query: { search: 'Rolled Back Hall' } });
    assert.equal(venues.json().total, 0, 'the inline venue was rolled back with the event');
  });

  it('sets categories and tags by id, slug or name, creating unknown names for those who may', async () => {
    const music = await h().request('POST', '/categories', { as: h().users.editor, body: { name: 'Music Probe' } });
    const event = await createEvent(h(), {
      title: 'Tagged',
      categories: [music.json().id, 'brand-new-category', 999999],
      tags: 'Alpha Tag, beta-tag',
    });
    assert.deepEqual(
      event.categories.map((term: { name: string }) => term.name),
      ['brand-new-category', 'Music Probe'],
    );
    assert.deepEqual(
      event.tags.map((term: { slug: string }) => term.slug),
      ['alpha-tag', 'beta-tag'],
    );
    assert.equal(event.categories[1].count, 1);
    assert.deepEqual(Object.keys(event.tags[0]), [
      'name',
      'slug',
      'term_group',
      'term_taxonomy_id',
      'taxonomy',
      'description',
      'parent',
      'count',
      'filter',
      'id',
      'urls',
    ]);
    const bySlug = await createEvent(h(), { title: 'By Slug', categories: 'music-probe' });
    assert.deepEqual(
      bySlug.categories.map((term: { id: number }) => term.id),
      [music.json().id],
    );
  });

  it('refuses an unknown term name from a caller who may not create terms, creating nothing (D16)', async () => {
    const before = await countEvents();
    const tags = await post(eventBody({ tags: ['contributor-made-tag'] }), h().users.contributor);
    assertInvalidParams(tags, ['tags']);
    const categories = await post(
      eventBody({ categories: ['Contributor Category'], venue: { venue: 'Contributor Rollback Hall' } }),
      h().users.contributor,
    );
    assertInvalidParams(categories, ['categories']);
    assert.equal(await countEvents(), before);
    const listed = await h().request('GET', '/tags', { query: { hide_empty: 'false', search: 'contributor-made' } });
    assert.equal(listed.json().total, 0);
    const authorTags = await post(eventBody({ tags: ['author-made-tag'] }), h().users.author);
    assertInvalidParams(authorTags, ['tags']);
    const authorCategory = await post(eventBody({ categories: ['Author Made Category'] }), h().users.author);
    assert.equal(authorCategory.statusCode, 201, 'authors may manage categories');
  });

  it('formats the cost and parses its currency (§3.8)', async () => {
    const postfix = await createEvent(h(), { title: 'Postfix Cost', cost: '20$' });
    assert.equal(postfix.cost, '20$');
    assert.deepEqual(postfix.cost_details, {
      currency_symbol: '$',
      currency_code: '',
      currency_position: 'postfix',
      values: ['20'],
    });
    const range = await createEvent(h(), { title: 'Range Cost', cost: ['0$', '20$', '30$'] });
    assert.equal(range.cost, 'Free – 30$');
    assert.deepEqual(range.cost_details.values, ['0', '20', '30']);
    const plain = await createEvent(h(), { title: 'Plain Cost', cost: 25 });
    assert.equal(plain.cost, '$25');
  });

  it('keeps an empty website empty, and falls back to the permalink only when none was sent', async () => {
    const empty = await createEvent(h(), { title: 'Empty Website', website: '' });
    assert.equal(empty.website, '');
    const escaped = await createEvent(h(), { title: 'Query Website', website: 'https://example.com/?a=1&b=2' });
    assert.equal(escaped.website, 'https://example.com/?a=1&amp;b=2');
  });

  it('stores an image by URL and reuses it by id (D6)', async () => {
    const event = await createEvent(h(), { title: 'With Image', image: 'https://cdn.example.com/poster.JPG' });
    assert.deepEqual(Object.keys(event.image), ['url', 'id', 'extension']);
    assert.deepEqual([event.image.url, event.image.extension], ['https://cdn.example.com/poster.JPG', 'jpg']);
    const reuse = await createEvent(h(), { title: 'Same Image', image: event.image.id });
    assert.equal(reuse.image.id, event.image.id);
  });

  it('takes flags as sent', async () => {
    const event = await createEvent(h(), {
      title: 'Flags',
      show_map: true,
      show_map_link: 'true',
      hide_from_listings: 1,
      sticky: '1',
      featured: true,
    });
    assert.deepEqual(
      [event.show_map, event.show_map_link, event.hide_from_listings, event.sticky, event.featured],
      [true, true, true, true, true],
    );
  });

  it('accepts a password, never returns it and never blanks a write response (D5)', async () => {
    const event = await createEvent(h(), {
      title: 'Secret Gig',
      password: 'open sesame',
      description: 'Hidden details',
      cost: '10',
    });
    assert.equal('password' in event, false);
    assert.equal(event.description, '<p>Hidden details</p>');
    assert.equal(event.cost, '$10');
    assert.doesNotMatch(JSON.stringify(event), /open sesame/);
  });

  it('sanitises HTML in the description and excerpt, and tags in the title', async () => {
    const event = await createEvent(h(), {
      title: '<b>Bold</b> Title <script>alert(1)</script>',
      description: '<p onclick="x()">Hi</p><script>alert(1)</script>',
      excerpt: 'Line one\n\nLine two',
    });
    assert.equal(event.title, 'Bold Title');
    assert.equal(event.description, '<p>Hi</p>');
    assert.equal(event.excerpt, '<p>Line one</p>\n<p>Line two</p>');
  });

  it('ignores generated fields sent as input', async () => {
    const event = await createEvent(h(), {
      title: 'Generated',
      url: 'http://evil.example/',
      utc_start_date: '1999-01-01 00:00:00',
      timezone_abbr: 'XYZ',
      cost_details: { values: ['1'] },
    });
    assert.equal(event.url, `${h().config.siteUrl}/event/generated/`);
    assert.equal(event.utc_start_date, '2027-03-10 09:00:00');
    assert.equal(event.timezone_abbr, 'UTC');
    assert.deepEqual(event.cost_details.values, []);
  });
});

describeEachDatabase(
  'POST /events in a site time zone',
  (h) => {
    it('stores the site zone when none is sent and reads dates in it', async () => {
      h().setNow(EXAMPLE_NOW);
      const event = await createEvent(h(), { title: 'Paris Default' });
      assert.deepEqual(
        [event.timezone, event.timezone_abbr, event.utc_start_date],
        ['Europe/Paris', 'CET', '2027-03-10 08:00:00'],
      );
      assert.deepEqual([event.date, event.date_utc], ['2026-11-22 05:20:22', '2026-11-22 04:20:22']);
    });
  },
  { SITE_TIMEZONE: 'Europe/Paris' },
);

describeEachDatabase(
  'POST /events with a site currency',
  (h) => {
    it('formats numeric costs with CURRENCY_SYMBOL and CURRENCY_POSITION, keeping a symbol that was sent', async () => {
      assert.equal((await createEvent(h(), { title: 'Euro', cost: '15' })).cost, '15€');
      assert.equal((await createEvent(h(), { title: 'Dollar', cost: '$15' })).cost, '$15');
    });
  },
  { CURRENCY_SYMBOL: '€', CURRENCY_POSITION: 'postfix' },
);
