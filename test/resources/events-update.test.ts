// POST/PUT/PATCH and DELETE on /events/{id} and /events/by-slug/{slug} (§5.3 as changed by D2, §5.4, D5, D17, D18).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent, EXAMPLE_NOW, eventIds, referenceShape, withoutIds } from './events-support.ts';
import { assertInvalidParams, createLinked, readExample } from './support.ts';

describeEachDatabase('Updating events (D2)', (h) => {
  const patch = (id: number | string, body: unknown, as = h().users.editor, method = 'PATCH') =>
    h().request(method, `/events/${id}`, { as, body });

  /** An event with every field set, to check that an update loses none of them. */
  async function fullEvent(title: string) {
    const venue = await createLinked(h(), 'venues', { venue: `${title} Hall` });
    const organizer = await createLinked(h(), 'organizers', { organizer: `${title} Org` });
    return createEvent(h(), {
      title,
      description: 'Full description',
      excerpt: 'Full excerpt',
      timezone: 'America/New_York',
      all_day: false,
      start_date: '2027-05-10 09:00:00',
      end_date: '2027-05-10 17:00:00',
      cost: '20$',
      website: 'https://example.com/full',
      image: 'https://cdn.example.com/full.png',
      show_map: true,
      show_map_link: true,
      sticky: true,
      featured: true,
      venue: venue.id,
      organizer: [organizer.id],
      categories: ['Full Category'],
      tags: ['full-tag'],
      date: '2026-10-01 10:00:00',
    });
  }

  it('answers example 21: only the title changes, nothing else is lost', async () => {
    h().setNow(EXAMPLE_NOW);
    const example = readExample('21-update-event.json');
    const before = await fullEvent('Merge Probe');
    h().setNow('2026-11-22T05:00:00Z');
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const response = await patch(before.id, example.request.body, h().users.editor, method);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers.allow, 'GET, DELETE, POST, PUT, PATCH');
      const after = response.json();
      assert.equal(after.title, 'Sample Conference (updated)');
      assert.equal(after.modified, '2026-11-22 05:00:00', 'modified always advances');
      const unchanged = (event: Record<string, unknown>) => ({
        ...event,
        title: null,
        modified: null,
        modified_utc: null,
      });
      assert.deepEqual(unchanged(after), unchanged(before), `${method} changes nothing else`);
    }
  });

  it('changes each field that is sent, and only that one', async () => {
    const event = await fullEvent('Field By Field');
    const changes: Array<[Record<string, unknown>, (after: any) => void]> = [
      [{ description: 'New description' }, (after) => assert.equal(after.description, '<p>New description</p>')],
      [{ excerpt: 'New excerpt' }, (after) => assert.equal(after.excerpt, '<p>New excerpt</p>')],
      [
        { cost: '' },
        (after) =>
          assert.deepEqual([after.cost, after.cost_details.values, after.cost_details.currency_symbol], ['', [], '']),
      ],
      [{ website: '' }, (after) => assert.equal(after.website, '')],
      [{ image: '' }, (after) => assert.equal(after.image, false)],
      [
        { featured: false, sticky: 'false' },
        (after) => assert.deepEqual([after.featured, after.sticky, after.show_map], [false, false, true]),
      ],
      [{ author: h().users.author.id }, (after) => assert.equal(after.author, String(h().users.author.id))],
      [
        { date: '2026-09-01 08:00:00' },
        (after) => assert.deepEqual([after.date, after.date_utc], ['2026-09-01 12:00:00', '2026-09-01 12:00:00']),
      ],
    ];
    for (const [body, check] of changes) {
      const response = await patch(event.id, body, h().users.administrator);
      assert.equal(response.statusCode, 200, response.body);
      check(response.json());
      assert.equal(response.json().venue.venue, 'Field By Field Hall');
      assert.equal(response.json().organizer.length, 1);
      assert.equal(response.json().categories.length, 1);
      assert.equal(response.json().timezone, 'America/New_York');
    }
  });

  it('removes the venue with 0, "" or [], organizers with [], and terms with "" or []', async () => {
    for (const empty of [0, '', []]) {
      const event = await fullEvent(`Unlink ${JSON.stringify(empty)}`);
      const response = await patch(event.id, { venue: empty, organizer: empty, categories: empty, tags: empty });
      assert.equal(response.statusCode, 200, response.body);
      const after = response.json();
      assert.deepEqual([after.venue, after.organizer, after.categories, after.tags], [[], [], [], []]);
    }
  });

  it('replaces the venue, the organizers and the terms when values are sent', async () => {
    const event = await fullEvent('Replace Links');
    const hall = await createLinked(h(), 'venues', { venue: 'Replacement Hall' });
    const response = await patch(event.id, {
      venue: { id: hall.id },
      organizer: [{ organizer: 'Replacement Org' }],
      categories: 'Other Category',
      tags: [],
    });
    const after = response.json();
    assert.equal(after.venue.id, hall.id);
    assert.deepEqual(
      after.organizer.map((item: { organizer: string }) => item.organizer),
      ['Replacement Org'],
    );
    assert.deepEqual(
      after.categories.map((term: { name: string }) => term.name),
      ['Other Category'],
    );
    assert.deepEqual(after.tags, []);
  });

  it('keeps the wall-clock times and recomputes UTC when only the zone changes', async () => {
    const event = await fullEvent('Zone Change');
    const after = (await patch(event.id, { timezone: 'Europe/Paris' })).json();
    assert.deepEqual(
      [after.start_date, after.utc_start_date, after.timezone, after.timezone_abbr],
      ['2027-05-10 09:00:00', '2027-05-10 07:00:00', 'Europe/Paris', 'CEST'],
    );
    const reset = (await patch(event.id, { timezone: '' })).json();
    assert.deepEqual([reset.timezone, reset.utc_start_date], ['UTC', '2027-05-10 09:00:00']);
  });

  it('applies a start or end sent alone, checked against the stored other one (D3)', async () => {
    const event = await fullEvent('One Date');
    const start = await patch(event.id, { start_date: '2027-05-10 12:00:00' });
    assert.deepEqual(
      [start.json().start_date, start.json().end_date, start.json().utc_start_date],
      ['2027-05-10 12:00:00', '2027-05-10 17:00:00', '2027-05-10 16:00:00'],
    );
    const tooLate = await patch(event.id, { start_date: '2027-05-10 18:00:00' });
    assertInvalidParams(tooLate, ['end_date']);
    assert.equal(tooLate.json().data.details.end_date.code, 'rest_invalid_date_range');
    const tooEarly = await patch(event.id, { end_date: '2027-05-10 11:00:00' });
    assertInvalidParams(tooEarly, ['end_date']);
    const unchanged = await h().request('GET', `/events/${event.id}`);
    assert.equal(unchanged.json().start_date, '2027-05-10 12:00:00', 'a refused update changes nothing');
  });

  it('re-snaps the stored dates when only all_day is sent', async () => {
    const event = await fullEvent('All Day Later');
    const after = (await patch(event.id, { all_day: true })).json();
    assert.deepEqual(
      [after.all_day, after.start_date, after.end_date, after.utc_end_date],
      [true, '2027-05-10 00:00:00', '2027-05-10 23:59:59', '2027-05-11 03:59:59'],
    );
  });

  it('moves the event in lists when its dates change (occurrences follow)', async () => {
    h().setNow(EXAMPLE_NOW);
    const event = await createEvent(h(), {
      title: 'Moving Event',
      start_date: '2027-01-05 10:00',
      end_date: '2027-01-05 11:00',
    });
    const inWindow = async () =>
      eventIds(
        await h().request('GET', '/events', {
          query: { start_date: '2027-01-05', end_date: '2027-01-05', search: 'Moving Event' },
        }),
      );
    assert.deepEqual(await inWindow(), [event.id]);
    await patch(event.id, { start_date: '2027-02-05 10:00', end_date: '2027-02-05 11:00' });
    assert.deepEqual(await inWindow(), []);
    assert.deepEqual(
      eventIds(await h().request('GET', '/events', { query: { start_date: '2027-02-05', search: 'Moving Event' } })),
      [event.id],
    );
  });

  it('changes the status only when sent, scaled back for contributors', async () => {
    const { contributor, editor } = h().users;
    const draft = await createEvent(h(), { title: 'Contributor Draft' }, contributor);
    const kept = await patch(draft.id, { title: 'Still a draft' }, contributor);
    assert.equal(kept.json().status, 'draft');
    const submitted = await patch(draft.id, { status: 'publish' }, contributor);
    assert.equal(submitted.json().status, 'pending');
    const published = await patch(draft.id, { status: 'publish' }, editor);
    assert.equal(published.json().status, 'publish');
    const editorsDraft = await createEvent(h(), { title: 'Editor Draft', status: 'draft' }, editor);
    assert.equal(
      (await patch(editorsDraft.id, { title: 'Editor Draft 2' }, editor)).json().status,
      'draft',
      'no status recompute',
    );
  });

  it('applies the edit rights (§1.5): contributors only on their own unpublished events', async () => {
    const { contributor, editor, author } = h().users;
    const others = await createEvent(h(), { title: 'Editors Event' }, editor);
    assert.equal((await patch(others.id, { title: 'x' }, contributor)).statusCode, 403);
    assert.equal((await patch(others.id, { title: 'x' }, author)).statusCode, 403);
    const own = await createEvent(h(), { title: 'Contributor Own' }, contributor);
    await patch(own.id, { status: 'publish' }, editor);
    assert.equal(
      (await patch(own.id, { title: 'x' }, contributor)).statusCode,
      403,
      'published: no longer theirs to edit',
    );
    assert.equal((await patch(own.id, { title: 'x' }, h().users.subscriber)).statusCode, 403);
    assert.equal((await h().request('PATCH', `/events/${own.id}`, { body: { title: 'x' } })).statusCode, 401);
    assert.equal((await patch(others.id, { title: 'Edited by admin' }, h().users.administrator)).statusCode, 200);
  });

  it('checks validation, then permission, then existence, then type', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Not An Event Hall' });
    assertInvalidParams(await h().request('PATCH', '/events/999999', { body: { title: '' } }), ['title']);
    assert.equal((await h().request('PATCH', '/events/999999', { body: { title: 'x' } })).statusCode, 401);
    assert.equal((await patch(999999, { title: 'x' }, h().users.subscriber)).statusCode, 403);
    const missing = await patch(999999, { title: 'x' });
    assert.deepEqual(
      [missing.statusCode, missing.json().code, missing.json().message],
      [404, 'rest-event-not-found', 'Event with ID 999999 does not exist.'],
    );
    const notEvent = await patch(venue.id, { title: 'x' }, h().users.administrator);
    assert.deepEqual(
      [notEvent.statusCode, notEvent.json().code, notEvent.json().message],
      [400, 'rest-invalid-event-id', 'The specified ID is not a valid event.'],
    );
    assert.equal(
      (await h().request('PATCH', '/events/abc', { as: h().users.editor, body: {} })).json().code,
      'rest_no_route',
    );
  });

  it('renames by id, keeps a trashed event in the trash, and restores it when a status is sent', async () => {
    const event = await createEvent(h(), { title: 'Trash Cycle' });
    const renamed = await patch(event.id, { slug: 'Trash Cycle Renamed' });
    assert.equal(renamed.json().slug, 'trash-cycle-renamed');
    await h().request('DELETE', `/events/${event.id}`, { as: h().users.editor });
    const stillTrashed = await patch(event.id, { title: 'Edited in the trash' });
    assert.deepEqual([stillTrashed.json().status, stillTrashed.json().slug], ['trash', 'trash-cycle-renamed__trashed']);
    const restored = await patch(event.id, { status: 'publish' });
    assert.deepEqual(
      [restored.json().status, restored.json().slug, restored.json().title],
      ['publish', 'trash-cycle-renamed', 'Edited in the trash'],
    );
    assert.equal((await h().request('GET', `/events/${event.id}`)).statusCode, 200);
    const trashed = await patch(event.id, { status: 'trash' });
    assert.deepEqual([trashed.json().status, trashed.json().slug], ['trash', 'trash-cycle-renamed__trashed']);
  });

  it('updates by slug: the path names the event, an unknown slug is "Event with ID 0"', async () => {
    const event = await createEvent(h(), { title: 'Slug Update' });
    const response = await h().request('POST', '/events/by-slug/slug-update', {
      as: h().users.editor,
      body: { title: 'Slug Update Renamed', slug: 'ignored', password: 'pw' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      [response.json().id, response.json().title, response.json().slug],
      [event.id, 'Slug Update Renamed', 'slug-update'],
    );
    assert.equal((await h().request('GET', `/events/${event.id}`)).json().code, 'event-password-protected');
    const missing = await h().request('PUT', '/events/by-slug/no-such-event', {
      as: h().users.editor,
      body: { title: 'x' },
    });
    assert.deepEqual(
      [missing.statusCode, missing.json().code, missing.json().message],
      [404, 'rest-event-not-found', 'Event with ID 0 does not exist.'],
    );
  });

  it('sets and removes the password (D5)', async () => {
    const event = await createEvent(h(), { title: 'Password Cycle' });
    const locked = await patch(event.id, { password: 'letmein' });
    assert.equal(locked.statusCode, 200);
    assert.equal('password' in locked.json(), false);
    assert.equal((await h().request('GET', `/events/${event.id}`)).statusCode, 403);
    await patch(event.id, { password: '' });
    assert.equal((await h().request('GET', `/events/${event.id}`)).statusCode, 200);
  });
});

describeEachDatabase('Deleting events (§5.4, D18)', (h) => {
  const remove = (path: string, as = h().users.editor, query?: Record<string, string>) =>
    h().request('DELETE', path, { as, query });

  it('trashes (example 25), answers 410 on repeat and 403 on read, for everyone', async () => {
    h().setNow(EXAMPLE_NOW);
    const example = readExample('25-delete-event.json');
    const event = await createEvent(
      h(),
      { title: 'Temp', start_date: '2027-04-01 09:00:00', end_date: '2027-04-01 10:00:00' },
      h().users.administrator,
    );
    const response = await remove(`/events/${event.id}`, h().users.administrator);
    assert.equal(response.statusCode, 200);
    const trashed = referenceShape(response.json());
    assert.equal(trashed.url, `${h().config.siteUrl}/?p=${event.id}`);
    assert.equal(trashed.website, trashed.url);
    const expected = { ...example.response.body, url: trashed.url, website: trashed.url };
    assert.deepEqual(withoutIds(trashed), withoutIds(expected));

    const again = await remove(`/events/${event.id}`, h().users.administrator);
    assert.deepEqual(
      [again.statusCode, again.json()],
      [410, { code: 'event-is-in-trash', message: 'The event is already trashed', data: { status: 410 } }],
    );
    for (const as of [null, h().users.administrator]) {
      const read = await h().request('GET', `/events/${event.id}`, { as: as ?? undefined });
      assert.deepEqual(
        [read.statusCode, read.json().code, read.json().message],
        [403, 'event-no-longer-available', 'This event is no longer available'],
      );
    }
    const listed = await h().request('GET', '/events', { as: h().users.editor, query: { status: 'trash' } });
    assert.ok(eventIds(listed).includes(event.id), 'editors still list it with status=trash');
  });

  it('deletes for good with force=true, answering {deleted, previous}', async () => {
    const event = await createEvent(h(), { title: 'Gone For Good', categories: ['Forced Category'] });
    const response = await remove(`/events/${event.id}`, h().users.editor, { force: 'true' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(Object.keys(response.json()), ['deleted', 'previous']);
    assert.equal(response.json().deleted, true);
    assert.equal(response.json().previous.slug, 'gone-for-good');
    assert.equal((await h().request('GET', `/events/${event.id}`)).statusCode, 404);
    const trashedFirst = await createEvent(h(), { title: 'Trashed Then Forced' });
    await remove(`/events/${trashedFirst.id}`);
    assert.equal(
      (await remove(`/events/${trashedFirst.id}`, h().users.editor, { force: 'true' })).json().previous.status,
      'trash',
    );
  });

  it('answers exactly one of two concurrent deletes with 410', async () => {
    const event = await createEvent(h(), { title: 'Raced Delete' });
    const answers = await Promise.all([remove(`/events/${event.id}`), remove(`/events/${event.id}`)]);
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [200, 410]);
  });

  it('deletes by slug; an unknown slug is a validation error', async () => {
    await createEvent(h(), { title: 'Slug Delete' });
    const response = await remove('/events/by-slug/slug-delete');
    assert.deepEqual([response.statusCode, response.json().slug], [200, 'slug-delete__trashed']);
    assertInvalidParams(await remove('/events/by-slug/no-such-slug', null as never), ['slug']);
    assert.equal((await remove('/events/by-slug/slug-delete__trashed')).statusCode, 410);
  });

  it('checks permission, then existence, then type', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Delete Type Hall' });
    assert.equal((await remove('/events/999999', null as never)).statusCode, 401);
    assert.equal((await remove('/events/999999', h().users.subscriber)).statusCode, 403);
    assert.equal((await remove('/events/999999')).json().code, 'rest-event-not-found');
    assert.equal((await remove(`/events/${venue.id}`, h().users.administrator)).json().code, 'rest-invalid-event-id');
    const editors = await createEvent(h(), { title: 'Not Yours' });
    assert.equal((await remove(`/events/${editors.id}`, h().users.contributor)).statusCode, 403);
    const own = await createEvent(h(), { title: 'Contributor Deletes Own' }, h().users.contributor);
    assert.equal((await remove(`/events/${own.id}`, h().users.contributor)).statusCode, 200);
  });
});
