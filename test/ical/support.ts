// Helpers of the iCalendar suites: every feed is parsed by a real parser (ical.js), and its raw lines checked.
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import type { IcalEvent } from '../../src/ical/write.ts';
import type { Harness, InjectOptions } from '../helpers/harness.ts';

export type Vevent = InstanceType<typeof ICAL.Component>;

export interface ParsedFeed {
  text: string;
  calendar: InstanceType<typeof ICAL.Component>;
  events: Vevent[];
  headers: Record<string, unknown>;
}

/** RFC 5545 §3.1: CRLF line ends, lines at most 75 octets. */
export function assertWellFormed(text: string): void {
  assert.ok(text.endsWith('\r\n'), 'ends with CRLF');
  const lines = text.slice(0, -2).split('\r\n');
  for (const line of lines) {
    assert.ok(!line.includes('\n') && !line.includes('\r'), `a bare line break in ${JSON.stringify(line)}`);
    assert.ok(Buffer.byteLength(line) <= 75, `line over 75 octets: ${line}`);
  }
  assert.equal(lines[0], 'BEGIN:VCALENDAR');
  assert.equal(lines.at(-1), 'END:VCALENDAR');
}

export function parseFeed(text: string): Omit<ParsedFeed, 'headers'> {
  assertWellFormed(text);
  const calendar = new ICAL.Component(ICAL.parse(text));
  // Times with a TZID convert through the file's own VTIMEZONE (so the tests check those too), never a built-in zone.
  ICAL.TimezoneService.reset();
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  return { text, calendar, events: calendar.getAllSubcomponents('vevent') };
}

/** GETs a feed, checks 200 and the type, and parses it. */
export async function getFeed(h: Harness, path: string, options: InjectOptions = {}): Promise<ParsedFeed> {
  const response = await h.request('GET', path, options);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.headers['content-type'], 'text/calendar; charset=utf-8');
  return { ...parseFeed(response.body), headers: response.headers };
}

export const uidOf = (event: Vevent) => String(event.getFirstPropertyValue('uid'));
export const byUid = (feed: { events: Vevent[] }, uid: string) => feed.events.find((event) => uidOf(event) === uid);
export const prop = (event: Vevent, name: string) => event.getFirstPropertyValue(name) as any;
/** An ICAL.Time as a UTC ISO string without milliseconds, as the API's utc dates read. */
export const utcOf = (time: any) => `${(time.toJSDate() as Date).toISOString().slice(0, 19).replace('T', ' ')}`;

/** An event as the writer takes it: a timed hour in Berlin on 1 July 2027, confirmed; `overrides` changes any field. */
export const icalEvent = (overrides: Partial<IcalEvent> = {}): IcalEvent => ({
  uid: '1@example.org',
  sequence: 0,
  modifiedUtc: '2027-01-01 00:00:00',
  createdUtc: '2027-01-01 00:00:00',
  timezone: 'Europe/Berlin',
  allDay: false,
  startLocal: '2027-07-01 10:00:00',
  endLocal: '2027-07-01 11:00:00',
  startUtc: '2027-07-01 08:00:00',
  endUtc: '2027-07-01 09:00:00',
  summary: 'Summary',
  html: '',
  categories: [],
  status: 'CONFIRMED',
  ...overrides,
});
