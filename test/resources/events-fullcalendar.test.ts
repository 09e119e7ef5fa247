// GET /events/fullcalendar, FullCalendar's JSON event source, through the HTTP surface on both databases: the events
// GET /events lists that overlap the range FullCalendar asks for, one per occurrence, in FullCalendar's format.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { countTurnsGiven, setSliceForTests } from '../../src/store/event-loop.ts';
import {
  calledOffEvent,
  createEvent,
  createEvents,
  listedOccurrences,
  moveThirdCancelFourth,
  WEEKLY_ACROSS_DST,
  ZONED_EVENTS,
} from './events-support.ts';

const NOW = '2027-03-01T12:00:00Z';
/** The range of a month view of March 2027 in Los Angeles, as FullCalendar sends it (browser offsets). */
const MARCH_IN_LOS_ANGELES = { start: '2027-02-28T00:00:00-08:00', end: '2027-04-11T00:00:00-07:00' };

interface SourceEvent {
  id: number;
  title: string;
  start: string;
  end: string;
  allDay: boolean;
  url: string;
}

const instant = (iso: string) => new Date(iso).toISOString();
const apiInstant = (utc: string) => new Date(`${utc.replace(' ', 'T')}Z`).toISOString();

async function source(
  h: Harness,
  query: Record<string, string | number>,
  as = h.users.administrator as Harness['users']['administrator'] | null,
) {
  const response = await h.request('GET', '/events/fullcalendar', { query, as });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  return { events: response.json<SourceEvent[]>(), headers: response.headers };
}

describeEachDatabase("FullCalendar's JSON event source", (h) => {
  const admin = () => h().users.administrator;

  /** Events in several zones, whole days, a Berlin series across the spring change (one date moved, one cancelled). */
  async function seed() {
    // The Berlin title holds an entity: the source answers titles as text.
    const timed = await createEvents(
      h(),
      [{ ...ZONED_EVENTS.berlin, title: 'Berlin concert &amp; talk' }, ZONED_EVENTS.newYork, ZONED_EVENTS.tokyo],
      admin(),
    );
    const allDay = await createEvent(h(), ZONED_EVENTS.festival, admin());
    const series = await createEvent(h(), WEEKLY_ACROSS_DST, admin());
    const occurrences = await listedOccurrences(h(), series.id);
    await moveThirdCancelFourth(h(), admin(), occurrences);
    const trashed = await calledOffEvent(h(), admin());
    const locked = await createEvent(
      h(),
      {
        title: 'Members only',
        status: 'publish',
        password: 'open sesame',
        all_day: true,
        start_date: '2027-03-22',
        end_date: '2027-03-22',
      },
      admin(),
    );
    const draft = await createEvent(
      h(),
      { title: 'Not yet', status: 'draft', start_date: '2027-03-23 10:00:00', end_date: '2027-03-23 11:00:00' },
      admin(),
    );
    const later = await createEvent(
      h(),
      { title: 'In May', status: 'publish', start_date: '2027-05-20 10:00:00', end_date: '2027-05-20 11:00:00' },
      admin(),
    );
    return {
      timed,
      allDay,
      series: await listedOccurrences(h(), series.id),
      cancelled: occurrences[3],
      trashed,
      locked,
      draft,
      later,
    };
  }

  it("answers the events of the range, one per occurrence, at the API's instants; cancelled ones never", async () => {
    h().setNow(NOW);
    const site = await seed();
    const { events, headers } = await source(h(), MARCH_IN_LOS_ANGELES, null);
    assert.equal(headers['x-truncated'], undefined);
    const byId = new Map(events.map((event) => [event.id, event]));
    assert.equal(byId.size, events.length, 'each event once');
    // The series' last date (12 April) is past the range.
    const seriesInRange = site.series.filter((event: any) => event.utc_start_date < '2027-04-11 07:00:00');
    assert.equal(seriesInRange.length, 3);

    for (const event of [...site.timed, ...seriesInRange]) {
      const item = byId.get(event.id);
      assert.ok(item, event.title);
      assert.equal(item.allDay, false);
      // UTC without timeZone: exactly the API's instants.
      assert.match(item.start, /Z$/);
      assert.equal(instant(item.start), apiInstant(event.utc_start_date), event.title);
      assert.equal(instant(item.end), apiInstant(event.utc_end_date), event.title);
      assert.equal(item.url, event.url);
    }
    assert.equal(byId.get(site.timed[0].id)!.title, 'Berlin concert & talk', 'the title as text');
    assert.ok(seriesInRange.some((event: any) => event.title === 'Moved once'));

    assert.deepEqual(byId.get(site.allDay.id), {
      id: site.allDay.id,
      title: 'Festival',
      start: '2027-04-01',
      end: '2027-04-04',
      allDay: true,
      url: site.allDay.url,
    });
    // A protected event, as a list shows it to the anonymous: its title and times, whole days not said.
    const locked = byId.get(site.locked.id)!;
    assert.deepEqual(
      [locked.title, locked.allDay, instant(locked.start)],
      ['Members only', false, apiInstant(site.locked.utc_start_date)],
    );

    for (const absent of [site.cancelled, site.trashed, site.draft, site.later, site.series.at(-1)])
      assert.equal(byId.get(absent.id), undefined, absent.title);
    const expected = [...site.timed, ...seriesInRange, site.allDay, site.locked]
      .map((event) => event.id)
      .sort((a, b) => a - b);
    assert.deepEqual(
      [...byId.keys()].sort((a, b) => a - b),
      expected,
    );

    // Its editor lists the draft too, as GET /events lists it to them.
    const editors = await source(h(), MARCH_IN_LOS_ANGELES);
    assert.ok(editors.events.some((event) => event.id === site.draft.id));
    assert.ok(!editors.events.some((event) => event.id === site.trashed.id || event.id === site.cancelled.id));
  });

  it("decides the edges of the range by instants, whatever the events' zones", async () => {
    h().setNow(NOW);
    // 08:00–09:30 in Tokyo is 23:00–00:30 UTC: a wall-clock comparison would place it on the 20th.
    const tokyo = await createEvent(
      h(),
      {
        title: 'Tokyo breakfast',
        status: 'publish',
        timezone: 'Asia/Tokyo',
        start_date: '2027-03-20 08:00:00',
        end_date: '2027-03-20 09:30:00',
      },
      admin(),
    );
    const ids = async (start: string, end: string) =>
      (await source(h(), { start, end }, null)).events.map((event) => event.id);
    assert.ok((await ids('2027-03-20T00:29:00Z', '2027-03-21T00:00:00Z')).includes(tokyo.id));
    assert.ok(
      !(await ids('2027-03-20T00:30:00Z', '2027-03-21T00:00:00Z')).includes(tokyo.id),
      'it ended when the range starts',
    );
    assert.ok((await ids('2027-03-18T00:00:00Z', '2027-03-19T23:00:01Z')).includes(tokyo.id));
    assert.ok(!(await ids('2027-03-18T00:00:00Z', '2027-03-19T23:00:00Z')).includes(tokyo.id), 'the end is exclusive');
    // Whole days are the calendar's days: in Los Angeles, the range of the 2nd of April holds the festival's 2nd day.
    const festival = await createEvent(
      h(),
      {
        title: 'Edge festival',
        status: 'publish',
        timezone: 'Asia/Tokyo',
        all_day: true,
        start_date: '2027-04-01',
        end_date: '2027-04-02',
      },
      admin(),
    );
    assert.ok((await ids('2027-04-02T00:00:00-07:00', '2027-04-03T00:00:00-07:00')).includes(festival.id));
    assert.ok(!(await ids('2027-04-03T00:00:00-07:00', '2027-04-04T00:00:00-07:00')).includes(festival.id));
    assert.ok(!(await ids('2027-03-31T00:00:00-07:00', '2027-04-01T00:00:00-07:00')).includes(festival.id));
  });

  it('reads start and end in timeZone when FullCalendar names a zone, and answers in it', async () => {
    h().setNow(NOW);
    const berlin = await createEvent(
      h(),
      {
        title: 'Berlin lunch',
        status: 'publish',
        timezone: 'Europe/Berlin',
        start_date: '2027-03-10 12:00:00',
        end_date: '2027-03-10 13:00:00',
      },
      admin(),
    );
    const { events } = await source(
      h(),
      { start: '2027-03-10T00:00:00', end: '2027-03-11T00:00:00', timeZone: 'Asia/Tokyo' },
      null,
    );
    const item = events.find((event) => event.id === berlin.id)!;
    assert.deepEqual([item.start, item.end], ['2027-03-10T20:00:00+09:00', '2027-03-10T21:00:00+09:00']);
    // In Tokyo the 11th starts at 15:00 UTC on the 10th: the lunch (11:00 UTC) is before it.
    const next = await source(
      h(),
      { start: '2027-03-11T00:00:00', end: '2027-03-12T00:00:00', timeZone: 'Asia/Tokyo' },
      null,
    );
    assert.ok(!next.events.some((event) => event.id === berlin.id));
    const utc = await source(h(), { start: '2027-03-10T00:00:00', end: '2027-03-11T00:00:00', timeZone: 'UTC' }, null);
    assert.equal(utc.events.find((event) => event.id === berlin.id)!.start, '2027-03-10T11:00:00Z');
  });

  it("takes the list's filters", async () => {
    h().setNow(NOW);
    const jazz = await createEvent(
      h(),
      {
        title: 'Jazz night',
        status: 'publish',
        categories: ['Calendar jazz'],
        start_date: '2027-03-12 20:00:00',
        end_date: '2027-03-12 22:00:00',
      },
      admin(),
    );
    const other = await createEvent(
      h(),
      { title: 'Chess club', status: 'publish', start_date: '2027-03-12 18:00:00', end_date: '2027-03-12 19:00:00' },
      admin(),
    );
    const { events } = await source(h(), { ...MARCH_IN_LOS_ANGELES, categories: 'calendar-jazz' }, null);
    assert.ok(events.some((event) => event.id === jazz.id));
    assert.ok(!events.some((event) => event.id === other.id));
  });

  it('refuses a missing or bad range with a 400', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ end: '2027-03-01T00:00:00Z' }, 'rest_missing_callback_param', 'start'],
      [{ start: 'next tuesday', end: '2027-03-01T00:00:00Z' }, 'rest_invalid_param', 'start'],
      [{ start: '2027-03-01T00:00:00Z', end: '2027-02-30T00:00:00Z' }, 'rest_invalid_param', 'end'],
      [{ start: '2027-03-01T00:00:00Z', end: '2027-03-01T00:00:00Z' }, 'rest_invalid_param', 'end'],
      [{ start: '2027-03-02T00:00:00+01:00', end: '2027-03-01T22:30:00Z' }, 'rest_invalid_param', 'end'],
      [
        { start: '2027-03-01T00:00:00Z', end: '2027-03-02T00:00:00Z', timeZone: 'Mars/Olympus' },
        'rest_invalid_param',
        'timeZone',
      ],
      [{ start: '2027-03-01T00:00:00Z', end: '99999-01-01T00:00:00Z' }, 'rest_invalid_param', 'end'],
    ];
    for (const [query, code, param] of cases) {
      const response = await h().request('GET', '/events/fullcalendar', { query });
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      const body = response.json();
      assert.equal(body.code, code, JSON.stringify(query));
      assert.equal(body.data.status, 400);
      const params = body.data.params;
      assert.ok(
        Array.isArray(params) ? params.includes(param) : param in params,
        `${JSON.stringify(query)}: ${JSON.stringify(body)}`,
      );
    }
  });
});

describeEachDatabase(
  "FullCalendar's JSON event source, bounded",
  (h) => {
    it('answers at most ICAL_MAX_EVENTS events, then says X-Truncated', async () => {
      h().setNow(NOW);
      for (const day of ['05', '06', '07']) {
        await createEvent(
          h(),
          {
            title: `Day ${day}`,
            status: 'publish',
            start_date: `2027-03-${day} 10:00:00`,
            end_date: `2027-03-${day} 11:00:00`,
          },
          h().users.administrator,
        );
      }
      const { events, headers } = await source(h(), MARCH_IN_LOS_ANGELES, null);
      assert.deepEqual(
        events.map((event) => event.title),
        ['Day 05', 'Day 06'],
      );
      assert.equal(headers['x-truncated'], 'true');
    });

    it('gives the event loop a turn as it writes the answer (D31)', async () => {
      h().setNow(NOW);
      for (const day of ['05', '06']) {
        await createEvent(
          h(),
          {
            title: `June ${day}`,
            status: 'publish',
            start_date: `2027-06-${day} 10:00:00`,
            end_date: `2027-06-${day} 11:00:00`,
          },
          h().users.administrator,
        );
      }
      setSliceForTests(0);
      try {
        const before = countTurnsGiven().row;
        const { events } = await source(h(), { start: '2027-06-01T00:00:00Z', end: '2027-07-01T00:00:00Z' }, null);
        assert.equal(events.length, 2);
        assert.ok(countTurnsGiven().row - before >= events.length);
      } finally {
        setSliceForTests(null);
      }
    });
  },
  { ICAL_MAX_EVENTS: '2' },
);
