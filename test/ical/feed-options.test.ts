// The feeds' options for readers that get a plain feed wrong (FullCalendar's iCalendar plugin reads a TZID time as
// the viewer's local time, and shows cancelled events as any other): `utc=1` writes every time in UTC, `cancelled=0`
// leaves cancelled events out. Through the HTTP surface, on both databases; every answer is read by ical.js.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import ICAL from 'ical.js';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import {
  calledOffEvent,
  createEvent,
  createEvents,
  listedOccurrences,
  moveThirdCancelFourth,
  WEEKLY_ACROSS_DST,
  ZONED_EVENTS,
} from '../resources/events-support.ts';
import { byUid, getFeed, prop, uidOf, utcOf, type Vevent } from './support.ts';

const NOW = '2027-03-01T12:00:00Z';
const TIME_PROPERTIES = ['DTSTART', 'DTEND', 'RECURRENCE-ID', 'EXDATE', 'RDATE'];

/** The lines of a feed naming a time (DTSTART, DTEND, RECURRENCE-ID, EXDATE, RDATE), unfolded. */
const timeLines = (text: string) =>
  text
    .replace(/\r\n[ \t]/g, '')
    .split('\r\n')
    .filter((line) => TIME_PROPERTIES.includes(line.split(/[;:]/)[0]));

/** The occurrences ical.js expands a series' VEVENTs to (edited ones applied): [UTC start, summary]. */
function expand(vevents: Vevent[]): Array<[string, string]> {
  const master = vevents.find((vevent) => !vevent.hasProperty('recurrence-id'))!;
  const exceptions = vevents
    .filter((vevent) => vevent.hasProperty('recurrence-id'))
    .map((vevent) => new ICAL.Event(vevent));
  const event = new ICAL.Event(master, { exceptions });
  const expanded: Array<[string, string]> = [];
  const iterator = event.iterator();
  for (let next = iterator.next(); next; next = iterator.next()) {
    const details = event.getOccurrenceDetails(next);
    expanded.push([utcOf(details.startDate), details.item.summary]);
  }
  return expanded;
}

const listed = async (h: Harness, query: Record<string, string | number> = {}) =>
  (
    await h.request('GET', '/events', {
      query: { start_date: '2027-03-01', end_date: '2027-06-30', per_page: 50, ...query },
    })
  ).json().events as any[];

describeEachDatabase('iCalendar feed options: utc and cancelled', (h) => {
  const admin = () => h().users.administrator;
  const uid = (id: number) => `${id}@${new URL(h().config.siteUrl).hostname}`;

  /** Events in several zones, an all-day one, and a Berlin series across the spring change, one date moved, one cancelled. */
  async function seed() {
    const singles = await createEvents(
      h(),
      [
        ZONED_EVENTS.berlin,
        ZONED_EVENTS.newYork,
        ZONED_EVENTS.tokyo,
        {
          title: 'Offset zone',
          status: 'publish',
          timezone: 'UTC+5',
          start_date: '2027-03-15 09:00:00',
          end_date: '2027-03-15 10:00:00',
        },
      ],
      admin(),
    );
    const allDay = await createEvent(
      h(),
      { ...ZONED_EVENTS.festival, start_date: '2027-04-10', end_date: '2027-04-12' },
      admin(),
    );
    const series = await createEvent(
      h(),
      {
        ...WEEKLY_ACROSS_DST,
        // An extra date and a date left out, given with zones: in a UTC feed neither may keep its TZID.
        recurrence: [
          'RRULE:FREQ=WEEKLY;COUNT=6',
          'RDATE;TZID=America/New_York:20270501T090000',
          'EXDATE;TZID=Europe/Berlin:20270405T090000',
        ],
      },
      admin(),
    );
    const occurrences = await listedOccurrences(h(), series.id);
    assert.equal(occurrences.length, 6, 'five weekly dates (one left out) and the extra date');
    const moved = occurrences[2];
    await moveThirdCancelFourth(h(), admin(), occurrences);
    const trashed = await calledOffEvent(h(), admin());
    return { singles, allDay, series, moved, trashed };
  }

  it("utc=1 writes every timed time in UTC, with no TZID or VTIMEZONE, read back at the API's instants", async () => {
    h().setNow(NOW);
    const { singles, allDay, series } = await seed();
    const feed = await getFeed(h(), '/events.ics', { query: { utc: 1 } });
    assert.doesNotMatch(feed.text, /TZID|BEGIN:VTIMEZONE/);
    const lines = timeLines(feed.text);
    assert.ok(lines.length > 10, lines.join('\n'));
    for (const line of lines) assert.match(line, /^[A-Z-]+(:\d{8}T\d{6}Z|;VALUE=DATE:\d{8})$/, line);

    for (const single of singles) {
      const vevent = byUid(feed, uid(single.id))!;
      assert.equal(utcOf(prop(vevent, 'dtstart')), single.utc_start_date, single.title);
      assert.equal(utcOf(prop(vevent, 'dtend')), single.utc_end_date, single.title);
    }
    const festival = byUid(feed, uid(allDay.id))!;
    assert.deepEqual(
      [String(prop(festival, 'dtstart')), String(prop(festival, 'dtend'))],
      ['2027-04-10', '2027-04-13'],
    );

    // The rule would repeat 09:00 UTC after the spring change (10:00 in Berlin): the series is its dates instead.
    const mine = feed.events.filter((vevent) => uidOf(vevent) === uid(series.id));
    assert.ok(mine.every((vevent) => !vevent.hasProperty('rrule')));
    const api = (await listed(h())).filter((event) => event.series_id === series.id);
    assert.equal(api.length, 5);
    assert.deepEqual(
      expand(mine),
      api.map((event) => [event.utc_start_date, event.title]),
    );
    assert.ok(api.some((event) => event.title === 'Moved once'));

    // The plain feed is unchanged: local times with their zone.
    const plain = await getFeed(h(), '/events.ics');
    assert.equal(byUid(plain, uid(series.id))!.getFirstProperty('dtstart')!.getParameter('tzid'), 'Europe/Berlin');
    assert.match(plain.text, /BEGIN:VTIMEZONE/);
  });

  it("utc=1 on one event's file: the series as its dates, in UTC", async () => {
    h().setNow(NOW);
    const { series, moved } = await seed();
    for (const id of [series.id, moved.id]) {
      const feed = await getFeed(h(), `/events/${id}.ics`, { query: { utc: 'true' } });
      assert.doesNotMatch(feed.text, /TZID|BEGIN:VTIMEZONE|RRULE/);
      const api = (await listed(h())).filter((event) => event.series_id === series.id);
      assert.deepEqual(
        expand(feed.events),
        api.map((event) => [event.utc_start_date, event.title]),
      );
    }
  });

  it('cancelled=0 leaves cancelled events out; a series still leaves its cancelled dates out', async () => {
    h().setNow(NOW);
    const { singles, allDay, series, trashed } = await seed();
    const api = (await listed(h())).filter((event) => event.series_id === series.id);
    for (const query of [{ cancelled: 0 }, { cancelled: 'false', utc: 1 }] as Array<Record<string, string | number>>) {
      const feed = await getFeed(h(), '/events.ics', { query });
      assert.equal(byUid(feed, uid(trashed.id)), undefined, JSON.stringify(query));
      assert.ok(
        feed.events.every((vevent) => prop(vevent, 'status') !== 'CANCELLED'),
        JSON.stringify(query),
      );
      const mine = feed.events.filter((vevent) => uidOf(vevent) === uid(series.id));
      assert.equal(mine.length, 2, 'the series and its moved date');
      assert.deepEqual(
        expand(mine),
        api.map((event) => [event.utc_start_date, event.title]),
        'its cancelled date left out',
      );
      for (const event of [...singles, allDay]) assert.ok(byUid(feed, uid(event.id)), event.title);
    }
    const editors = await getFeed(h(), '/events.ics', { as: admin(), query: { cancelled: 0 } });
    assert.equal(byUid(editors, uid(trashed.id)), undefined);
    const plain = await getFeed(h(), '/events.ics');
    assert.equal(prop(byUid(plain, uid(trashed.id))!, 'status'), 'CANCELLED');
  });

  it('refuses values that are not booleans with a 400, on both routes', async () => {
    h().setNow(NOW);
    const event = await createEvent(h(), { title: 'Any', status: 'publish' }, admin());
    for (const path of ['/events.ics', `/events/${event.id}.ics`]) {
      for (const [name, value] of [
        ['utc', 'yes please'],
        ['cancelled', '2'],
        ['utc', 'Z'],
      ]) {
        const response = await h().request('GET', path, { query: { [name]: value } });
        assert.equal(response.statusCode, 400, `${path} ${name}=${value}`);
        const body = response.json();
        assert.equal(body.code, 'rest_invalid_param');
        assert.equal(body.data.status, 400);
        assert.ok(body.data.params[name], JSON.stringify(body));
      }
    }
  });

  it("declares utc and cancelled with the feeds' other arguments, in the discovery index and /doc", async () => {
    const { routes } = (await h().request('GET', h().api)).json();
    const doc = (await h().request('GET', '/doc')).json();
    for (const [key, template] of [
      ['/events.ics', '/events.ics'],
      ['/events/(?P<id>\\d+).ics', '/events/{id}.ics'],
    ]) {
      const args = routes[`/calendar/events/v1${key}`].endpoints[0].args;
      assert.equal(args.utc.type, 'boolean', key);
      assert.equal(args.utc.default, false);
      assert.equal(args.cancelled.type, 'boolean', key);
      assert.equal(args.cancelled.default, true);
      const parameters = doc.paths[template].get.parameters.map((parameter: any) => parameter.name);
      assert.ok(parameters.includes('utc') && parameters.includes('cancelled'), `${template}: ${parameters.join()}`);
      assert.ok(parameters.includes('password'));
    }
  });
});
