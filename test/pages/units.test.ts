// D28's pure parts: the month grid, date wording, calendar links and script-safe JSON.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addDays,
  dayLabel,
  describeRecurrence,
  describeWhen,
  googleCalendarLink,
  lastDay,
  monthEntryZone,
  plainText,
  readableAbbreviation,
  scriptJson,
  venueAddress,
} from '../../src/pages/format.ts';
import { monthBounds, monthGrid, neighbours, parseMonth } from '../../src/pages/month.ts';
import { robotsTxt, sitemapFiles, sitemapUrl, urlsetXml } from '../../src/pages/sitemap.ts';

describe('month view planning', () => {
  it('reads YYYY-MM within 1970–2100 (404 outside, 400 when malformed)', () => {
    assert.deepEqual(parseMonth('2027-03'), { ok: true, year: 2027, month: 3 });
    assert.deepEqual(parseMonth('1970-01'), { ok: true, year: 1970, month: 1 });
    assert.deepEqual(parseMonth('2100-12'), { ok: true, year: 2100, month: 12 });
    for (const text of ['1969-12', '2101-01']) assert.equal((parseMonth(text) as { status: number }).status, 404, text);
    for (const text of ['2027-13', '2027-00', '2027-3', '27-03', '2027-03-01', ''])
      assert.equal((parseMonth(text) as { status: number }).status, 400, text);
  });

  it('knows month bounds and neighbours, leap years and the calendar edges included', () => {
    assert.deepEqual(monthBounds(2028, 2), { first: '2028-02-01', last: '2028-02-29', next: '2028-03-01' });
    assert.deepEqual(monthBounds(2027, 12), { first: '2027-12-01', last: '2027-12-31', next: '2028-01-01' });
    assert.deepEqual(neighbours(2027, 1), { previous: '2026-12', next: '2027-02' });
    assert.deepEqual(neighbours(1970, 1), { previous: undefined, next: '1970-02' });
    assert.deepEqual(neighbours(2100, 12), { previous: '2100-11', next: undefined });
  });

  it('lays out whole weeks, Monday first, and puts an event on every day it spans within the month', () => {
    const event = (id: number, startLocal: string, endLocal: string, allDay = false) => ({
      id,
      title: `E${id}`,
      url: `/e${id}/`,
      startLocal,
      endLocal,
      allDay,
    });
    // March 2027 starts on a Monday and ends on a Wednesday.
    const weeks = monthGrid(2027, 3, [
      event(1, '2027-02-27 10:00:00', '2027-03-02 18:00:00'),
      event(2, '2027-03-10 22:00:00', '2027-03-11 00:00:00'),
      event(3, '2027-03-30 00:00:00', '2027-04-02 23:59:59', true),
    ]);
    assert.equal(weeks.length, 5);
    assert.ok(weeks.every((week) => week.length === 7));
    assert.equal(weeks[0][0].date, '2027-03-01');
    assert.equal(weeks[4][6].date, '2027-04-04');
    const days = new Map(weeks.flat().map((day) => [day.date, day]));
    const ids = (date: string) => days.get(date)!.entries.map((entry) => entry.event.id);
    assert.deepEqual(ids('2027-03-01'), [1]);
    assert.deepEqual(ids('2027-03-02'), [1]);
    assert.deepEqual(ids('2027-03-03'), []);
    assert.equal(days.get('2027-03-01')!.entries[0].continued, true);
    assert.equal(days.get('2027-03-02')!.entries[0].continues, false);
    assert.deepEqual(ids('2027-03-10'), [2]);
    assert.deepEqual(ids('2027-03-11'), [], 'an end at midnight belongs to the day before');
    assert.deepEqual([ids('2027-03-30'), ids('2027-03-31'), ids('2027-04-01')], [[3], [3], []]);
    assert.equal(days.get('2027-03-30')!.entries[0].label, 'All day');
    assert.equal(days.get('2027-04-01')!.inMonth, false);
    assert.equal(days.get('2027-03-10')!.entries[0].label, '22:00');
    assert.equal(days.get('2027-03-10')!.label, 'Wednesday 10 March 2027');
  });
});

describe('page wording', () => {
  it('words dates in the event zone, naming it', () => {
    const base = {
      timezone: 'Europe/Rome',
      timezone_abbr: 'CET',
      all_day: false,
      utc_start_date: '2027-03-10 18:30:00',
    };
    assert.deepEqual(describeWhen({ ...base, start_date: '2027-03-10 19:30:00', end_date: '2027-03-10 22:00:00' }), {
      text: 'Wednesday 10 March 2027, 19:30 – 22:00',
      zone: 'Europe/Rome (CET)',
      startDay: '2027-03-10',
      endDay: '2027-03-10',
    });
    assert.equal(
      describeWhen({ ...base, start_date: '2027-03-10 10:00:00', end_date: '2027-03-12 18:00:00' }).text,
      'Wednesday 10 March 2027, 10:00 – Friday 12 March 2027, 18:00',
    );
    assert.equal(
      describeWhen({ ...base, all_day: true, start_date: '2027-03-10 00:00:00', end_date: '2027-03-10 23:59:59' }).text,
      'Wednesday 10 March 2027, all day',
    );
    assert.equal(
      describeWhen({
        timezone: 'UTC',
        timezone_abbr: 'UTC',
        all_day: null,
        start_date: '2027-03-10 09:00:00',
        end_date: '2027-03-10 09:00:00',
        utc_start_date: '2027-03-10 09:00:00',
      }).zone,
      'UTC',
    );
    assert.equal(lastDay('2027-03-10 22:00:00', '2027-03-11 00:00:00'), '2027-03-10');
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(dayLabel('1970-01-01'), 'Thursday 1 January 1970');
  });

  it('names zones by letters or by their IANA id, never by a GMT offset; an all-day event names none', () => {
    assert.equal(readableAbbreviation('Australia/Sydney', 'GMT+11', '2030-01-15 08:00:00'), 'AEDT');
    assert.equal(readableAbbreviation('Australia/Sydney', 'GMT+10', '2030-07-15 08:00:00'), 'AEST');
    assert.equal(readableAbbreviation('Asia/Kolkata', 'GMT+5:30', '2030-07-15 08:00:00'), 'IST');
    assert.equal(
      readableAbbreviation('Asia/Tokyo', 'GMT+9', '2030-07-15 08:00:00'),
      '',
      'no English letters for Tokyo: the id alone',
    );
    assert.equal(readableAbbreviation('Europe/Rome', 'CET', '2030-01-15 08:00:00'), 'CET');
    assert.equal(
      readableAbbreviation('UTC+5', 'UTC+5', '2030-01-15 08:00:00'),
      'UTC+5',
      'an offset the event was given stays',
    );
    const sydney = {
      timezone: 'Australia/Sydney',
      timezone_abbr: 'GMT+11',
      all_day: false,
      start_date: '2030-01-15 19:00:00',
      end_date: '2030-01-15 21:00:00',
      utc_start_date: '2030-01-15 08:00:00',
    };
    assert.equal(describeWhen(sydney).zone, 'Australia/Sydney (AEDT)');
    assert.equal(describeWhen({ ...sydney, timezone: 'Asia/Tokyo', timezone_abbr: 'GMT+9' }).zone, 'Asia/Tokyo');
    assert.equal(describeWhen({ ...sydney, all_day: true }).zone, '');
  });

  it('names the zone of a month entry only when the site clock would show another time', () => {
    const rome = {
      timezone: 'Europe/Rome',
      timezone_abbr: 'CET',
      all_day: false,
      start_date: '2027-03-10 19:30:00',
      utc_start_date: '2027-03-10 18:30:00',
    };
    assert.deepEqual(monthEntryZone(rome, 'UTC'), { tag: 'CET', name: 'Europe/Rome' });
    assert.equal(monthEntryZone(rome, 'Europe/Berlin'), undefined, "Berlin's clock reads 19:30 too");
    assert.equal(monthEntryZone({ ...rome, all_day: true }, 'UTC'), undefined);
    assert.deepEqual(
      monthEntryZone(
        { ...rome, timezone: 'Asia/Tokyo', timezone_abbr: 'GMT+9', start_date: '2027-03-11 03:30:00' },
        'UTC',
      ),
      { tag: 'Asia/Tokyo', name: 'Asia/Tokyo' },
    );
  });

  it('words how a series repeats', () => {
    const first = '2027-03-09 19:00:00'; // a Tuesday
    assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY'], first), 'Repeats every Tuesday');
    assert.equal(
      describeRecurrence(['RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=10'], first),
      'Repeats every 2 weeks on Monday and Thursday',
    );
    assert.equal(describeRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=1MO'], first), 'Repeats weekly');
    assert.equal(describeRecurrence(['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20270310T190000Z'], first), 'Repeats daily');
    assert.equal(describeRecurrence(['RRULE:FREQ=MONTHLY;INTERVAL=3'], first), 'Repeats every 3 months');
    assert.equal(describeRecurrence(['RRULE:FREQ=YEARLY'], first), 'Repeats yearly');
    assert.equal(describeRecurrence(['RDATE:20270401T190000Z'], first), 'One of a series of dates');
    assert.equal(describeRecurrence(['RRULE:FREQ=DAILY', 'RRULE:FREQ=WEEKLY'], first), 'One of a series of dates');
    assert.equal(describeRecurrence(['RRULE:FREQ=HOURLY'], first), 'One of a series of dates');
  });

  it('builds Google Calendar template links with UTC times, or whole days (end exclusive)', () => {
    const event = {
      title: 'Jazz & Wine',
      url: 'https://example.com/event/jazz/',
      start_date: '2027-03-10 19:30:00',
      end_date: '2027-03-10 22:00:00',
      utc_start_date: '2027-03-10 18:30:00',
      utc_end_date: '2027-03-10 21:00:00',
      timezone: 'Europe/Rome',
      description: '<p>Live &amp; loud</p>',
      excerpt: '',
    };
    const timed = new URL(googleCalendarLink({ ...event, all_day: false }, 'Sample Hall, Rome'));
    assert.equal(timed.origin + timed.pathname, 'https://calendar.google.com/calendar/render');
    assert.equal(timed.searchParams.get('action'), 'TEMPLATE');
    assert.equal(timed.searchParams.get('text'), 'Jazz & Wine');
    assert.equal(timed.searchParams.get('dates'), '20270310T183000Z/20270310T210000Z');
    assert.equal(timed.searchParams.get('ctz'), 'Europe/Rome');
    assert.equal(timed.searchParams.get('details'), 'Live & loud\n\nhttps://example.com/event/jazz/');
    assert.equal(timed.searchParams.get('location'), 'Sample Hall, Rome');
    const allDay = new URL(
      googleCalendarLink(
        { ...event, all_day: true, start_date: '2027-03-10 00:00:00', end_date: '2027-03-12 23:59:59' },
        '',
      ),
    );
    assert.equal(allDay.searchParams.get('dates'), '20270310/20270313');
    assert.equal(allDay.searchParams.get('location'), null);
  });

  it('keeps JSON-LD inside its script element, and words addresses and text', () => {
    const json = scriptJson({ name: '</script><script>alert(1)</script> & \u2028' });
    assert.ok(!json.includes('<') && !json.includes('>') && !json.includes('&'));
    assert.deepEqual(JSON.parse(json), { name: '</script><script>alert(1)</script> & \u2028' });
    assert.equal(
      venueAddress({
        address: '1 Main St',
        city: 'Springfield',
        zip: '62701',
        stateprovince: 'IL',
        country: 'United States',
      }),
      '1 Main St, 62701 Springfield, IL, United States',
    );
    assert.equal(plainText('<p>One &#8217;two&#8217;</p><p>Three&nbsp;four</p>'), 'One ’two’\nThree four');
  });
});

describe('sitemap and robots.txt', () => {
  it('percent-escapes and XML-escapes every address', () => {
    assert.equal(
      sitemapUrl("https://example.com/event/caf\u00e9/?a=1&b='2'"),
      'https://example.com/event/caf%C3%A9/?a=1&amp;b=%272%27',
    );
    const xml = urlsetXml([
      { url: 'https://example.com/x&y/', modifiedUtc: '2027-03-10 18:30:00' },
      { url: 'https://example.com/events/tag/a/' },
    ]);
    assert.ok(
      xml.includes('<url><loc>https://example.com/x&amp;y/</loc><lastmod>2027-03-10T18:30:00+00:00</lastmod></url>'),
    );
    assert.ok(xml.includes('<url><loc>https://example.com/events/tag/a/</loc></url>'));
  });

  it('needs numbered files only past the URLs one file may hold, and never more than an index may list', () => {
    assert.equal(sitemapFiles(0, 10_000), 0);
    assert.equal(sitemapFiles(10_000, 10_000), 0);
    assert.equal(sitemapFiles(10_001, 10_000), 2);
    assert.equal(sitemapFiles(10 ** 12, 1), 50_000);
  });

  it("allows the pages under the site's path and names the sitemap", () => {
    assert.equal(
      robotsTxt('https://example.com/calendar', '/calendar'),
      'User-agent: *\nAllow: /calendar/\n\nSitemap: https://example.com/calendar/sitemap.xml\n',
    );
  });
});
