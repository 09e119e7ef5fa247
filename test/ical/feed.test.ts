// D26 iCalendar feeds through the HTTP surface, on both databases: every answer parsed by ical.js.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';
import { byUid, getFeed, parseFeed, prop, uidOf, utcOf } from './support.ts';

const NOW = '2027-03-01T12:00:00Z';

describeEachDatabase('iCalendar feeds (D26)', (h) => {
  const host = () => new URL(h().config.siteUrl).hostname;
  const admin = () => h().users.administrator;
  const uid = (id: number) => `${id}@${host()}`;

  it('writes a VCALENDAR with the calendar properties, one VEVENT per event and a VTIMEZONE for every zone used', async () => {
    h().setNow(NOW);
    const venue = (
      await h().request('POST', '/venues', {
        as: admin(),
        body: {
          venue: 'Feed Hall',
          address: '1 Main St',
          city: 'Berlin',
          country: 'Germany',
          geo_lat: 52.52,
          geo_lng: 13.405,
        },
      })
    ).json();
    const organizer = (
      await h().request('POST', '/organizers', {
        as: admin(),
        body: { organizer: 'Feed Org', email: 'org@example.com' },
      })
    ).json();
    const berlin = await createEvent(
      h(),
      {
        title: 'Concert; with, punctuation',
        status: 'publish',
        description:
          '<p>First <b>bold</b> line</p><p>Second paragraph with a long text that will certainly need folding at seventy-five octets — äöü</p>',
        start_date: '2027-03-28 01:30:00',
        end_date: '2027-03-28 04:30:00',
        timezone: 'Europe/Berlin',
        venue: venue.id,
        organizer: [organizer.id],
        categories: ['Feed Music', 'Feed Jazz'],
        image: 'https://img.example/feed.jpg',
      },
      admin(),
    );
    const york = await createEvent(
      h(),
      {
        title: 'New York meetup',
        status: 'publish',
        start_date: '2027-03-14 09:00:00',
        end_date: '2027-03-14 10:00:00',
        timezone: 'America/New_York',
      },
      admin(),
    );
    const offset = await createEvent(
      h(),
      {
        title: 'Offset zone',
        status: 'publish',
        start_date: '2027-03-15 09:00:00',
        end_date: '2027-03-15 10:00:00',
        timezone: 'UTC+5',
      },
      admin(),
    );

    const feed = await getFeed(h(), '/events.ics');
    const calendar = feed.calendar;
    assert.equal(calendar.getFirstPropertyValue('version'), '2.0');
    assert.match(String(calendar.getFirstPropertyValue('prodid')), /calendar-events/);
    assert.equal(calendar.getFirstPropertyValue('calscale'), 'GREGORIAN');
    assert.equal(calendar.getFirstPropertyValue('method'), 'PUBLISH');
    assert.ok(calendar.getFirstPropertyValue('x-wr-calname'));
    assert.equal(
      calendar.getFirstPropertyValue('x-wr-timezone'),
      h().config.siteTimezone === 'UTC' ? 'UTC' : h().config.siteTimezone,
    );
    assert.match(feed.text, /\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n/);
    const zones = calendar.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid'));
    assert.ok(zones.includes('Europe/Berlin') && zones.includes('America/New_York'), zones.join());

    const concert = byUid(feed, uid(berlin.id))!;
    assert.ok(concert, 'the event is in the feed with its stable UID');
    assert.equal(prop(concert, 'summary'), 'Concert; with, punctuation');
    assert.equal(concert.getFirstProperty('dtstart')!.getParameter('tzid'), 'Europe/Berlin');
    assert.equal(utcOf(prop(concert, 'dtstart')), berlin.utc_start_date);
    // 01:30 CET to 04:30 CEST: the spring change is inside the event, and the VTIMEZONE carries it.
    assert.equal(utcOf(prop(concert, 'dtend')), berlin.utc_end_date);
    assert.equal(prop(concert, 'sequence'), 0);
    assert.equal(prop(concert, 'status'), 'CONFIRMED');
    assert.match(prop(concert, 'description'), /^First bold line\n\nSecond paragraph .* äöü$/);
    assert.equal(concert.getFirstProperty('x-alt-desc')!.getParameter('fmttype'), 'text/html');
    // The description as stored (sanitised HTML); the API shows it with paragraphs added where it has bare line breaks.
    assert.equal(
      String(prop(concert, 'x-alt-desc')),
      '<p>First <b>bold</b> line</p><p>Second paragraph with a long text that will certainly need folding at seventy-five octets — äöü</p>',
    );
    assert.equal(prop(concert, 'url'), berlin.url);
    assert.equal(prop(concert, 'location'), 'Feed Hall, 1 Main St, Berlin, Germany');
    assert.deepEqual(prop(concert, 'geo'), [52.52, 13.405]);
    assert.equal(prop(concert, 'organizer'), 'mailto:org@example.com');
    assert.equal(concert.getFirstProperty('organizer')!.getParameter('cn'), 'Feed Org');
    assert.deepEqual(concert.getFirstProperty('categories')!.getValues().sort(), ['Feed Jazz', 'Feed Music']);
    assert.equal(prop(concert, 'attach'), 'https://img.example/feed.jpg');
    for (const name of ['dtstamp', 'created', 'last-modified']) assert.ok(prop(concert, name), name);
    assert.equal(utcOf(prop(concert, 'last-modified')), berlin.modified_utc);

    assert.equal(utcOf(prop(byUid(feed, uid(york.id))!, 'dtstart')), york.utc_start_date);
    // A zone that is only an offset has no VTIMEZONE: its times are written in UTC.
    const offsetEvent = byUid(feed, uid(offset.id))!;
    assert.equal(offsetEvent.getFirstProperty('dtstart')!.getParameter('tzid'), undefined);
    assert.equal(utcOf(prop(offsetEvent, 'dtstart')), offset.utc_start_date);
    assert.equal(prop(offsetEvent, 'dtstart').zone.tzid, 'UTC');
  });

  it('writes all-day events as dates, DTEND the day after the last day', async () => {
    h().setNow(NOW);
    const event = await createEvent(
      h(),
      { title: 'Festival', status: 'publish', all_day: true, start_date: '2027-04-10', end_date: '2027-04-12' },
      admin(),
    );
    const feed = await getFeed(h(), `/events/${event.id}.ics`);
    assert.equal(feed.events.length, 1);
    assert.equal(feed.headers['last-modified'], new Date(`${event.modified_utc.replace(' ', 'T')}Z`).toUTCString());
    const [vevent] = feed.events;
    assert.match(feed.text, /\r\nDTSTART;VALUE=DATE:20270410\r\nDTEND;VALUE=DATE:20270413\r\n/);
    assert.equal(prop(vevent, 'dtstart').isDate, true);
    assert.equal(prop(vevent, 'dtstart').toString(), '2027-04-10');
    assert.equal(prop(vevent, 'dtend').toString(), '2027-04-13');
  });

  it('keeps the UID when an event is rescheduled, and SEQUENCE grows with dates, title, venue and status only', async () => {
    h().setNow(NOW);
    const event = await createEvent(
      h(),
      { title: 'Moving target', status: 'publish', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00' },
      admin(),
    );
    const read = async () => (await getFeed(h(), `/events/${event.id}.ics`)).events[0];
    const patch = async (body: Record<string, unknown>) =>
      assert.equal((await h().request('PATCH', `/events/${event.id}`, { as: admin(), body })).statusCode, 200);
    assert.equal(prop(await read(), 'sequence'), 0);
    await patch({ start_date: '2027-05-02 10:00:00', end_date: '2027-05-02 11:00:00' });
    let vevent = await read();
    assert.deepEqual([uidOf(vevent), prop(vevent, 'sequence')], [uid(event.id), 1]);
    await patch({ excerpt: 'Only the excerpt' });
    assert.equal(prop(await read(), 'sequence'), 1, 'an excerpt is no reason for subscribers to update');
    await patch({ title: 'Moved target' });
    await patch({ venue: { venue: 'Sequence Hall' } });
    vevent = await read();
    assert.deepEqual(
      [uidOf(vevent), prop(vevent, 'sequence'), prop(vevent, 'summary')],
      [uid(event.id), 3, 'Moved target'],
    );
    await patch({ title: 'Moved target' });
    assert.equal(prop(await read(), 'sequence'), 3, 'the same title again changes nothing');
  });

  it('shows a trashed event as CANCELLED for 30 days, with a higher SEQUENCE, then leaves it out', async () => {
    h().setNow(NOW);
    const event = await createEvent(
      h(),
      { title: 'Called off', status: 'publish', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00' },
      admin(),
    );
    const draft = await createEvent(
      h(),
      { title: 'Trashed draft', status: 'draft', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00' },
      admin(),
    );
    assert.equal((await h().request('DELETE', `/events/${event.id}`, { as: admin() })).statusCode, 200);
    assert.equal((await h().request('DELETE', `/events/${draft.id}`, { as: admin() })).statusCode, 200);
    let feed = await getFeed(h(), '/events.ics');
    const cancelled = byUid(feed, uid(event.id))!;
    assert.deepEqual([prop(cancelled, 'status'), prop(cancelled, 'sequence')], ['CANCELLED', 1]);
    assert.equal(
      byUid(feed, uid(draft.id)),
      undefined,
      'anonymous callers never saw the draft, so it is not cancelled for them',
    );
    assert.equal(
      prop(byUid(await getFeed(h(), '/events.ics', { as: admin() }), uid(draft.id))!, 'status'),
      'CANCELLED',
    );
    h().setNow('2027-03-31T11:00:00Z');
    assert.ok(byUid(await getFeed(h(), '/events.ics'), uid(event.id)));
    h().setNow('2027-04-01T12:00:01Z');
    feed = await getFeed(h(), '/events.ics');
    assert.equal(byUid(feed, uid(event.id)), undefined);
    assert.equal((await h().request('GET', `/events/${event.id}.ics`)).statusCode, 403);
  });

  it('never gives drafts, private or password-protected events to anonymous callers', async () => {
    h().setNow(NOW);
    const draft = await createEvent(h(), { title: 'Hidden draft', status: 'draft' }, admin());
    const secret = await createEvent(h(), { title: 'Private party', status: 'private' }, admin());
    const locked = await createEvent(h(), { title: 'Locked', status: 'publish', password: 'open sesame' }, admin());
    const open = await createEvent(h(), { title: 'Open to all', status: 'publish' }, admin());
    const anonymous = await getFeed(h(), '/events.ics');
    assert.ok(byUid(anonymous, uid(open.id)));
    for (const hidden of [draft, secret, locked])
      assert.equal(byUid(anonymous, uid(hidden.id)), undefined, hidden.title);
    assert.doesNotMatch(anonymous.text, /Hidden draft|Private party|Locked/);
    assert.equal(
      byUid(await getFeed(h(), '/events.ics', { query: { password: 'open sesame' } }), uid(locked.id)),
      undefined,
    );
    for (const hidden of [draft, secret, locked]) {
      assert.equal((await h().request('GET', `/events/${hidden.id}.ics`)).statusCode, 403, hidden.title);
      assert.equal(
        (await h().request('GET', `/events/${hidden.id}.ics`, { query: { password: 'open sesame' } })).statusCode,
        403,
        hidden.title,
      );
    }
    const mine = await getFeed(h(), '/events.ics', { as: admin() });
    assert.equal(prop(byUid(mine, uid(draft.id))!, 'status'), 'TENTATIVE');
    assert.ok(byUid(mine, uid(secret.id)) && byUid(mine, uid(locked.id)));
    assert.equal(mine.headers['cache-control'], 'no-cache, must-revalidate, max-age=0, no-store, private');
    assert.equal((await getFeed(h(), `/events/${locked.id}.ics`, { as: admin() })).events.length, 1);
  });

  it('takes every filter of GET /events, and by default the window from 30 days ago with no end', async () => {
    h().setNow(NOW);
    const make = (title: string, start: string, extra: Record<string, unknown> = {}) =>
      createEvent(
        h(),
        { title, status: 'publish', start_date: `${start} 10:00:00`, end_date: `${start} 11:00:00`, ...extra },
        admin(),
      );
    const old = await make('Filter old', '2027-01-15');
    const recent = await make('Filter recent', '2027-02-10', { categories: ['Filter Cat'] });
    const far = await make('Filter far', '2031-06-01', { tags: ['filter-tag'], venue: { venue: 'Filter Venue' } });
    const feed = await getFeed(h(), '/events.ics');
    assert.equal(byUid(feed, uid(old.id)), undefined, 'ended more than 30 days ago');
    assert.ok(byUid(feed, uid(recent.id)) && byUid(feed, uid(far.id)), 'the default window has no end');

    const ids = async (query: Record<string, string | number>) =>
      (await getFeed(h(), '/events.ics', { query })).events.map(uidOf);
    assert.deepEqual(await ids({ categories: 'filter-cat' }), [uid(recent.id)]);
    assert.deepEqual(await ids({ tags: 'filter-tag' }), [uid(far.id)]);
    assert.deepEqual(await ids({ venue: far.venue.id }), [uid(far.id)]);
    assert.deepEqual(await ids({ search: 'Filter old', start_date: '2027-01-01' }), [uid(old.id)]);
    assert.deepEqual(await ids({ start_date: '2027-01-01', end_date: '2027-01-31' }), [uid(old.id)]);
    assert.deepEqual(await ids({ include: `${old.id},${far.id}` }), [uid(old.id), uid(far.id)]);
    const invalid = await h().request('GET', '/events.ics', { query: { geoloc_lat: 10 } });
    assert.deepEqual([invalid.statusCode, invalid.json().code], [400, 'rest_invalid_param']);
    assert.equal((await h().request('GET', '/events.ics', { query: { status: 'draft' } })).statusCode, 400);
  });

  it('answers 304 to If-None-Match with the current ETag, and a new ETag after a change', async () => {
    h().setNow(NOW);
    const event = await createEvent(h(), { title: 'Polled', status: 'publish' }, admin());
    for (const path of ['/events.ics', `/events/${event.id}.ics`]) {
      const first = await h().request('GET', path);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
      assert.equal(
        first.headers['cache-control'],
        undefined,
        'anonymous answers may be cached, as every public GET (D12)',
      );
      const again = await h().request('GET', path, { headers: { 'if-none-match': etag } });
      assert.deepEqual([again.statusCode, again.body, again.headers.etag], [304, '', etag]);
      assert.equal((await h().request('GET', path)).body, first.body, 'an unchanged feed is the same bytes');
    }
    const before = String((await h().request('GET', `/events/${event.id}.ics`)).headers.etag);
    await h().request('PATCH', `/events/${event.id}`, { as: admin(), body: { title: 'Polled again' } });
    const after = await h().request('GET', `/events/${event.id}.ics`, { headers: { 'if-none-match': before } });
    assert.equal(after.statusCode, 200);
    assert.notEqual(after.headers.etag, before);
  });

  it('answers the single-event errors as GET by id does', async () => {
    assert.equal((await h().request('GET', '/events/999999.ics')).statusCode, 404);
    const venue = (await h().request('POST', '/venues', { as: admin(), body: { venue: 'Not an event hall' } })).json();
    assert.equal((await h().request('GET', `/events/${venue.id}.ics`)).statusCode, 400);
  });
});

describeEachDatabase(
  'iCalendar feeds: ICAL_MAX_EVENTS (D26)',
  (h) => {
    it('holds at most ICAL_MAX_EVENTS events and says X-Truncated: true when more match', async () => {
      h().setNow(NOW);
      for (let day = 1; day <= 4; day++) {
        await createEvent(
          h(),
          {
            title: `Capped ${day}`,
            status: 'publish',
            start_date: `2027-07-0${day} 10:00:00`,
            end_date: `2027-07-0${day} 11:00:00`,
          },
          h().users.administrator,
        );
      }
      const full = await getFeed(h(), '/events.ics');
      assert.equal(full.events.length, 3);
      assert.equal(full.headers['x-truncated'], 'true');
      assert.deepEqual(
        full.events.map((event) => prop(event, 'summary')),
        ['Capped 1', 'Capped 2', 'Capped 3'],
      );
      const fits = await getFeed(h(), '/events.ics', { query: { start_date: '2027-07-02' } });
      assert.equal(fits.events.length, 3);
      assert.equal(fits.headers['x-truncated'], undefined);
      assert.ok(parseFeed(fits.text));
    });
  },
  { ICAL_MAX_EVENTS: '3' },
);

describeEachDatabase(
  'iCalendar feeds: the response budget (D31)',
  (h) => {
    it('stops before MAX_RESPONSE_BYTES and says X-Truncated: true instead of failing', async () => {
      h().setNow(NOW);
      for (let day = 1; day <= 6; day++) {
        await createEvent(
          h(),
          {
            title: `Budget ${day}`,
            status: 'publish',
            description: 'x'.repeat(300),
            start_date: `2027-08-0${day} 10:00:00`,
            end_date: `2027-08-0${day} 11:00:00`,
          },
          h().users.administrator,
        );
      }
      const feed = await getFeed(h(), '/events.ics');
      assert.equal(feed.headers['x-truncated'], 'true');
      assert.ok(feed.events.length >= 1 && feed.events.length < 6, String(feed.events.length));
      assert.ok(Buffer.byteLength(feed.text) < 4096);
    });
  },
  { MAX_RESPONSE_BYTES: '3000' },
);
