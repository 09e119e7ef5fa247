// GET /events/{id} and /events/by-slug/{slug} (§5.1, §3.9, §10, §11, D5, D17).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { createEvent, EXAMPLE_NOW, exampleEventWithLinks, referenceShape, withoutIds } from './events-support.ts';
import { assertInvalidParams, createLinked, readExample } from './support.ts';

describeEachDatabase('Reading one event', (h) => {
  const get = (path: string, as?: Credentials, query?: Record<string, string>) =>
    h().request('GET', path, { as, query });

  it('answers examples 08 and 20: the event with json_ld, and its venue and organizer with theirs', async () => {
    h().setNow(EXAMPLE_NOW);
    const { body } = await exampleEventWithLinks(h());
    const created = await h().request('POST', '/events', { as: h().users.administrator, body });

    for (const [name, path] of [
      ['08-get-event.json', `/events/${created.json().id}`],
      ['20-get-event-by-slug.json', '/events/by-slug/sample-conference'],
    ]) {
      const example = readExample(name);
      const response = await get(path);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers.allow, 'GET');
      const event = referenceShape(response.json());
      assert.deepEqual(Object.keys(event), Object.keys(example.response.body));
      const withoutLd = (object: Record<string, any>) => {
        const { json_ld: _, ...rest } = object;
        return {
          ...rest,
          venue: { ...rest.venue, json_ld: null },
          organizer: rest.organizer.map((item: Record<string, unknown>) => ({ ...item, json_ld: null })),
        };
      };
      assert.deepEqual(withoutIds(withoutLd(event)), withoutIds(withoutLd(example.response.body)));

      const ld = event.json_ld;
      const expectedLd = example.response.body.json_ld;
      assert.deepEqual(Object.keys(ld), Object.keys(expectedLd));
      for (const key of [
        '@context',
        '@type',
        'name',
        'url',
        'eventAttendanceMode',
        'eventStatus',
        'startDate',
        'endDate',
        'performer',
      ]) {
        assert.deepEqual(ld[key], expectedLd[key], key);
      }
      assert.equal(ld.description, '&lt;p&gt;Short&lt;/p&gt;');
      assert.deepEqual(ld.location.address, expectedLd.location.address);
      assert.deepEqual(
        [ld.location['@type'], ld.location.name, ld.location.telephone, ld.location.sameAs],
        ['Place', 'Sample Hall', '555-0100', 'https://example.com/hall'],
      );
      assert.deepEqual(
        [ld.organizer['@type'], ld.organizer.name, ld.organizer.url, ld.organizer.telephone],
        ['Person', 'Sample Org', 'https://example.com/org', '555-0111'],
      );
      assert.match(ld.organizer.email, /^(&#\d+;|[a-z.@])+$/);
      assert.deepEqual(ld.offers, { ...expectedLd.offers });
      assert.deepEqual(event.venue.json_ld, ld.location);
      assert.deepEqual(event.organizer[0].json_ld, ld.organizer);
    }
  });

  it('answers 404 for a missing id (example 12), 400 for another type, rest_no_route for non-digits', async () => {
    const example = readExample('12-error-404-missing-event.json');
    const missing = await get('/events/999999');
    assert.deepEqual([missing.statusCode, missing.json()], [404, example.response.body]);
    assert.equal((await get('/events/0')).json().message, 'Event with ID 0 does not exist.');
    const venue = await createLinked(h(), 'venues', { venue: 'Read Type Hall' });
    const notEvent = await get(`/events/${venue.id}`);
    assert.deepEqual(
      [notEvent.statusCode, notEvent.json()],
      [
        400,
        { code: 'rest-invalid-event-id', message: 'The specified ID is not a valid event.', data: { status: 400 } },
      ],
    );
    const route = await get('/events/abc');
    assert.deepEqual([route.statusCode, route.json().code], [404, 'rest_no_route']);
    assertInvalidParams(await get('/events/by-slug/no-such-event'), ['slug']);
  });

  it('serves unpublished events only to those who may read them (§10)', async () => {
    const { contributor, editor, subscriber, author } = h().users;
    const draft = await createEvent(h(), { title: 'Read Draft' }, contributor);
    for (const [as, status] of [
      [undefined, 403],
      [subscriber, 403],
      [author, 403],
      [contributor, 200],
      [editor, 200],
    ] as const) {
      const response = await get(`/events/${draft.id}`, as);
      assert.equal(response.statusCode, status, `${as?.login ?? 'anonymous'}`);
      if (status === 403)
        assert.deepEqual(response.json(), {
          code: 'event-not-accessible',
          message: 'The requested event is not accessible',
          data: { status: 403 },
        });
    }
    const privateEvent = await createEvent(h(), { title: 'Read Private', status: 'private' }, editor);
    assert.equal((await get(`/events/${privateEvent.id}`, subscriber)).statusCode, 403);
    assert.equal((await get(`/events/${privateEvent.id}`, h().users.administrator)).statusCode, 200);
    assert.equal((await get('/events/by-slug/read-private')).statusCode, 403);
  });

  it('publishes a scheduled event once its date has come (D17)', async () => {
    h().setNow(EXAMPLE_NOW);
    const scheduled = await createEvent(h(), { title: 'Scheduled Read', date: '2026-11-23 00:00:00' });
    assert.equal(scheduled.status, 'future');
    assert.equal((await get(`/events/${scheduled.id}`)).statusCode, 403);
    h().setNow('2026-11-23T00:00:01Z');
    const due = await get(`/events/${scheduled.id}`);
    assert.deepEqual(
      [due.statusCode, due.json().status, due.json().url],
      [200, 'publish', `${h().config.siteUrl}/event/scheduled-read/`],
    );
  });

  it('refuses a password-protected event without the password, context=edit or with the wrong one (§11)', async () => {
    const event = await createEvent(h(), {
      title: 'Protected Read',
      password: 's3cret',
      description: 'Behind the curtain',
    });
    const refused = {
      code: 'event-password-protected',
      message: 'The requested event is not accessible without a password',
      data: { status: 403 },
    };
    assert.deepEqual((await get(`/events/${event.id}`)).json(), refused);
    assert.deepEqual((await get(`/events/${event.id}`, undefined, { password: 'wrong' })).json(), refused);
    assert.deepEqual(
      (await get(`/events/${event.id}`, h().users.editor)).json(),
      refused,
      'being logged in is not enough',
    );
    assert.deepEqual(
      (await get(`/events/${event.id}`, h().users.contributor, { context: 'edit' })).json(),
      refused,
      'context=edit needs edit rights',
    );

    const unlocked = await get(`/events/${event.id}`, undefined, { password: 's3cret' });
    assert.equal(unlocked.statusCode, 200);
    assert.equal(unlocked.json().description, '<p>Behind the curtain</p>');
    assert.doesNotMatch(unlocked.body, /s3cret/);
    assert.equal((await get(`/events/${event.id}`, h().users.editor, { context: 'edit' })).statusCode, 200);
    assert.equal((await get('/events/by-slug/protected-read', undefined, { password: 's3cret' })).statusCode, 200);
    assert.equal((await get('/events/by-slug/protected-read')).statusCode, 403);
  });

  it('finds a trashed event by its __trashed slug and answers that it is no longer available', async () => {
    const event = await createEvent(h(), { title: 'Trashed Slug Read' });
    await h().request('DELETE', `/events/${event.id}`, { as: h().users.editor });
    const response = await get('/events/by-slug/trashed-slug-read__trashed', h().users.administrator);
    assert.deepEqual([response.statusCode, response.json().code], [403, 'event-no-longer-available']);
  });

  // D32 supersedes §10's "embedded items are shown whatever their status": only to readers who could open them by id.
  it('shows an embedded draft venue to those who could read it, and [] once the venue is gone', async () => {
    const draftVenue = await createLinked(h(), 'venues', { venue: 'Draft Venue', status: 'draft' });
    const event = await createEvent(h(), { title: 'Draft Linked', venue: draftVenue.id });
    assert.equal((await get(`/events/${event.id}`, h().users.editor)).json().venue.status, 'draft');
    assert.deepEqual((await get(`/events/${event.id}`)).json().venue, []);
    await h().request('DELETE', `/venues/${draftVenue.id}`, { as: h().users.editor, query: { force: 'true' } });
    assert.deepEqual((await get(`/events/${event.id}`)).json().venue, []);
  });
});
