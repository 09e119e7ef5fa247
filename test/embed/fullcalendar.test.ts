// FullCalendar, the most common calendar embed, reading this service in a real headless Chromium (pages/browser-support):
// its own browser bundles from node_modules (nothing is downloaded), in a browser whose zone (Los Angeles) is none of
// the events' zones. Through its iCalendar plugin, the plain feed puts every event in another zone at the wrong time
// and shows cancelled events (the plugin reads a TZID time as the viewer's own, and ignores STATUS): this suite
// documents that, then shows that the feed with `utc=1&cancelled=0`, and the JSON event source, are read right.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';
import { browserAvailable, startBrowsing, type Browsing } from '../pages/browser-support.ts';

const AVAILABLE = browserAvailable('the FullCalendar suite');
const VIEWER_ZONE = 'America/Los_Angeles';
/** FullCalendar's browser bundles and the iCalendar parser its plugin calls (global ICAL), in the order they load. */
const SCRIPTS = [
  '@fullcalendar/core/index.global.min.js',
  '@fullcalendar/daygrid/index.global.min.js',
  'ical.js/dist/ical.es5.min.cjs',
  '@fullcalendar/icalendar/index.global.min.js',
].map((file) => fileURLToPath(new URL(`../../node_modules/${file}`, import.meta.url)));

/** An event as FullCalendar shows it: `start` the instant (ISO, UTC) of a timed event, the day of an all-day one. */
interface Shown {
  title: string;
  start: string;
  allDay: boolean;
}

const byStart = (a: Shown, b: Shown) => a.start.localeCompare(b.start) || a.title.localeCompare(b.title);

describe('FullCalendar reads the calendars in Chromium', {
  skip: AVAILABLE ? false : 'Chromium is not installed',
}, () => {
  let h: Harness;
  let browsing: Browsing;
  let page: Page;
  /** What GET /events lists to anyone for March 2027: what every calendar must show. */
  let expected: Shown[];
  let cancelled: Record<string, any>;

  before(async () => {
    h = await createHarness('sqlite', { VALIDATE_RESPONSES: '0' });
    h.setNow('2027-03-01T12:00:00Z');
    const admin = h.users.administrator;
    const create = (body: Record<string, unknown>) => createEvent(h, { status: 'publish', ...body }, admin);
    await create({
      title: 'Berlin concert',
      timezone: 'Europe/Berlin',
      start_date: '2027-03-18 19:00:00',
      end_date: '2027-03-18 21:00:00',
    });
    await create({
      title: 'New York meetup',
      timezone: 'America/New_York',
      start_date: '2027-03-10 09:00:00',
      end_date: '2027-03-10 10:00:00',
    });
    await create({
      title: 'Tokyo talk',
      timezone: 'Asia/Tokyo',
      start_date: '2027-03-25 08:00:00',
      end_date: '2027-03-25 09:30:00',
    });
    await create({
      title: 'Festival',
      timezone: 'Asia/Tokyo',
      all_day: true,
      start_date: '2027-03-12',
      end_date: '2027-03-13',
    });
    const calledOff = await create({
      title: 'Called off',
      timezone: 'Europe/Berlin',
      start_date: '2027-03-20 19:00:00',
      end_date: '2027-03-20 21:00:00',
    });
    assert.equal((await h.request('DELETE', `/events/${calledOff.id}`, { as: admin })).statusCode, 200);
    // Weekly at 09:00 in Berlin, across the spring change (08:00 UTC, then 07:00 UTC): one date moved, one cancelled.
    const series = await create({
      title: 'Weekly standup',
      timezone: 'Europe/Berlin',
      start_date: '2027-03-15 09:00:00',
      end_date: '2027-03-15 09:30:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    });
    const list = async () =>
      (
        await h.request('GET', '/events', { query: { start_date: '2027-03-01', end_date: '2027-03-31', per_page: 50 } })
      ).json().events as any[];
    const dates = (await list()).filter((event) => event.series_id === series.id);
    assert.equal(dates.length, 3, '15, 22 and 29 March (5 April is past the list)');
    assert.equal(
      (
        await h.request('PATCH', `/events/${dates[2].id}`, {
          as: admin,
          body: { title: 'Standup moved', start_date: '2027-03-29 14:00:00', end_date: '2027-03-29 14:30:00' },
        })
      ).statusCode,
      200,
    );
    cancelled = dates[1];
    assert.equal((await h.request('DELETE', `/events/${cancelled.id}`, { as: admin })).statusCode, 200);

    const listed = [
      ...(await list()),
      ...(
        await h.request('GET', '/events', { query: { start_date: '2027-04-01', end_date: '2027-04-10', per_page: 50 } })
      ).json().events,
    ];
    expected = listed
      .map(
        (event: any): Shown => ({
          title: event.title,
          start: event.all_day
            ? event.start_date.slice(0, 10)
            : new Date(`${event.utc_start_date.replace(' ', 'T')}Z`).toISOString(),
          allDay: event.all_day,
        }),
      )
      .sort(byStart);
    assert.equal(expected.length, 7, JSON.stringify(expected));

    browsing = await startBrowsing(h, { timezoneId: VIEWER_ZONE });
    page = await browsing.context.newPage();
    // A page of the site that embeds the calendar (same origin as the API, as an embed on the site itself would be).
    const embed = `${browsing.origin}/fullcalendar-embed.html`;
    await page.route(embed, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html lang="en"><head><title>Calendar</title></head><body><div id="calendar"></div></body></html>',
      }),
    );
    await page.goto(embed);
    for (const path of SCRIPTS) await page.addScriptTag({ path });
    assert.equal(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), VIEWER_ZONE);
  });

  after(async () => {
    await browsing?.close();
    await h?.close();
  });

  /**
   * A month view of March 2027 reading one event source (`format: 'ics'` through the iCalendar plugin), in the
   * calendar's `timeZone`, and the events it then holds (calendar.getEvents()).
   */
  async function show(source: { url: string; format?: 'ics' }, timeZone = 'local'): Promise<Shown[]> {
    const shown = await page.evaluate(
      async ({ source, timeZone }) => {
        // The page's own globals (the tests are typed without the DOM's).
        const { FullCalendar, document } = globalThis as any;
        const { Calendar } = FullCalendar;
        const element = document.getElementById('calendar');
        element.replaceChildren();
        const calendar = new Calendar(element, { initialView: 'dayGridMonth', initialDate: '2027-03-01', timeZone });
        const loaded = new Promise<void>((resolve, reject) => {
          calendar.setOption('eventSourceFailure', (error: Error) => reject(error));
          calendar.setOption('loading', (isLoading: boolean) => {
            if (!isLoading) resolve();
          });
        });
        calendar.render();
        calendar.addEventSource(source);
        await loaded;
        const events = calendar.getEvents().map((event: any) => ({
          title: event.title as string,
          // startStr carries the offset the calendar shows the start with: in a named zone without a zone plugin, the
          // Date objects are that zone's wall-clock times read as UTC (FullCalendar's "UTC-coercion").
          start: event.allDay ? event.startStr.slice(0, 10) : new Date(event.startStr).toISOString(),
          allDay: event.allDay as boolean,
        }));
        calendar.destroy();
        return events;
      },
      { source, timeZone },
    );
    return shown.sort(byStart);
  }

  const api = (path: string) => `${browsing.origin}${h.api}${path}`;
  const instantOf = (shown: Shown[], title: string) => shown.find((event) => event.title === title)?.start;

  it('documents the bug: the plain feed through the iCalendar plugin misplaces every event in another zone and shows cancelled ones', async () => {
    const shown = await show({ url: api('/events.ics'), format: 'ics' });
    // 19:00 in Berlin is 18:00 UTC; the plugin takes the TZID time for Los Angeles time, 19:00 PDT, 02:00 UTC the next day.
    assert.equal(instantOf(expected, 'Berlin concert'), '2027-03-18T18:00:00.000Z');
    assert.equal(instantOf(shown, 'Berlin concert'), '2027-03-19T02:00:00.000Z');
    assert.equal(
      instantOf(shown, 'Tokyo talk'),
      '2027-03-25T15:00:00.000Z',
      '08:00 read in Los Angeles, 16 hours late',
    );
    const misplaced = expected.filter((event) => !event.allDay && instantOf(shown, event.title) !== event.start);
    assert.ok(misplaced.length >= 5, JSON.stringify({ shown, expected }));
    assert.ok(
      shown.some((event) => event.title === 'Called off'),
      'a STATUS:CANCELLED event is shown as any other',
    );
  });

  it("reads the feed with utc=1&cancelled=0 right: every start at the API's instant, nothing cancelled, whole days whole", async () => {
    const shown = await show({ url: api('/events.ics?utc=1&cancelled=0'), format: 'ics' });
    assert.deepEqual(shown, expected);
    assert.ok(!shown.some((event) => event.title === 'Called off'));
    assert.ok(
      !shown.some((event) => event.start === new Date(`${cancelled.utc_start_date.replace(' ', 'T')}Z`).toISOString()),
    );
    assert.deepEqual(
      shown.filter((event) => event.allDay).map((event) => [event.title, event.start]),
      [['Festival', '2027-03-12']],
    );
  });

  it("reads the JSON event source right, in the viewer's zone and in a zone the calendar names", async () => {
    for (const timeZone of ['local', 'Asia/Tokyo', 'UTC']) {
      const shown = await show({ url: api('/events/fullcalendar') }, timeZone);
      assert.deepEqual(shown, expected, timeZone);
    }
  });
});
