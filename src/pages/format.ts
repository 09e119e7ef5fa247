// D28: how public pages word dates, times, zones and links. Pure functions of the API's own objects (§3.1), so a page
// shows exactly what the API serialised, only worded for people.
import { basicUtc, utcToLocal } from '../domain/dates/stored-format.ts';
import type { ApiVenue } from './api-object.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The calendar day `days` after a `YYYY-MM-DD…` value, `YYYY-MM-DD` (plain date arithmetic: no zone is involved). */
export function addDays(wp: string, days: number): string {
  const date = new Date(Date.UTC(Number(wp.slice(0, 4)), Number(wp.slice(5, 7)) - 1, Number(wp.slice(8, 10)) + days));
  return date.toISOString().slice(0, 10);
}

/** `Tuesday 10 March 2027` of a stored wall-clock value (`YYYY-MM-DD HH:MM:SS`, or its date alone). */
export function dayLabel(wp: string): string {
  const year = Number(wp.slice(0, 4));
  const month = Number(wp.slice(5, 7));
  const day = Number(wp.slice(8, 10));
  return `${DAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()]} ${day} ${MONTHS[month - 1]} ${year}`;
}

/** `March 2027` of `YYYY-MM`. */
export const monthLabel = (key: string) => `${MONTHS[Number(key.slice(5, 7)) - 1]} ${key.slice(0, 4)}`;

const timeLabel = (wp: string) => wp.slice(11, 16);

/** The event's dates in the event's own zone, as people read them. */
export interface When {
  /** e.g. `Tuesday 10 March 2027, 09:00 – 17:00`. */
  text: string;
  /** e.g. `Europe/Rome (CET)`, or `UTC`; "" for an all-day event, which has no times to place in a zone. */
  zone: string;
  /** The day the event starts and the day it ends (`YYYY-MM-DD`). */
  startDay: string;
  endDay: string;
}

/**
 * An end at exactly midnight belongs to the day before (an event from 22:00 to 00:00 is one evening), unless the
 * event is shorter than that day.
 */
export function lastDay(startLocal: string, endLocal: string): string {
  const endDay = endLocal.slice(0, 10);
  if (endLocal.slice(11) === '00:00:00' && endDay > startLocal.slice(0, 10)) {
    return addDays(endLocal, -1);
  }
  return endDay;
}

/**
 * English locales whose zone names ICU gives as letters where the American and British ones give `GMT+11`: Sydney is
 * AEDT in en-AU, Kolkata IST in en-IN, Nairobi EAT in en-KE. Across these locales no zone has two different letter
 * names, so the first one found is the name.
 */
const NAMING_LOCALES = [
  'en-AU',
  'en-NZ',
  'en-IN',
  'en-CA',
  'en-IE',
  'en-ZA',
  'en-KE',
  'en-SG',
  'en-HK',
  'en-PH',
  'en-NG',
  'en-PK',
];
const GMT_OFFSET = /^(GMT|UTC)[+-]/;
const letterNames = new Map<string, string>();
/** Zones × offsets a site uses are few; the bound only keeps a stream of odd zones from growing the map. */
const MAX_LETTER_NAMES = 1000;

/**
 * The abbreviation a page shows for an event's zone: the API's own (`timezone_abbr`, e.g. `CET`), unless that is a
 * GMT offset for a named (IANA) zone: then the letter name some English locale gives at `utcInstant` (`AEDT`), else
 * none, so that the zone is named by its IANA id alone ("Australia/Sydney" reads better than "GMT+11").
 */
export function readableAbbreviation(timezone: string, abbreviation: string, utcInstant: string): string {
  if (!GMT_OFFSET.test(abbreviation) || !timezone.includes('/') || timezone.startsWith('Etc/')) return abbreviation;
  const key = `${timezone}|${abbreviation}`;
  let name = letterNames.get(key);
  if (name === undefined) {
    name = '';
    const instant = new Date(`${utcInstant.replace(' ', 'T')}Z`);
    for (const locale of NAMING_LOCALES) {
      let short: string | undefined;
      try {
        short = new Intl.DateTimeFormat(locale, { timeZone: timezone, timeZoneName: 'short' })
          .formatToParts(instant)
          .find((part) => part.type === 'timeZoneName')?.value;
      } catch {
        break; // Not a zone Intl knows: the IANA id alone.
      }
      if (short !== undefined && /^[A-Z]{2,5}$/.test(short)) {
        name = short;
        break;
      }
    }
    if (letterNames.size >= MAX_LETTER_NAMES) letterNames.clear();
    letterNames.set(key, name);
  }
  return name;
}

export function zoneLabel(timezone: string, abbreviation: string): string {
  const zone = timezone === '' ? 'UTC' : timezone;
  return abbreviation === '' || abbreviation === zone ? zone : `${zone} (${abbreviation})`;
}

/**
 * The zone a month entry names, when the site's clock would not show the event's start time (an event in Rome on a
 * site in Berlin needs none: both clocks read 19:30). Undefined for all-day events, which have no time.
 */
export function monthEntryZone(
  event: {
    all_day: boolean | null;
    start_date: string;
    utc_start_date: string;
    timezone: string;
    timezone_abbr: string;
  },
  siteZone: string,
): { tag: string; name: string } | undefined {
  if (event.all_day || utcToLocal(event.utc_start_date, siteZone) === event.start_date) return undefined;
  return {
    tag: zoneTag(event.timezone, event.timezone_abbr, event.utc_start_date),
    name: event.timezone === '' ? 'UTC' : event.timezone,
  };
}

/** The short name of a zone on a month entry: its abbreviation (`CET`, `AEDT`), else its IANA id. */
export function zoneTag(timezone: string, abbreviation: string, utcInstant: string): string {
  return readableAbbreviation(timezone, abbreviation, utcInstant) || (timezone === '' ? 'UTC' : timezone);
}

export function describeWhen(event: {
  start_date: string;
  end_date: string;
  utc_start_date: string;
  all_day: boolean | null;
  timezone: string;
  timezone_abbr: string;
}): When {
  const start = event.start_date;
  const end = event.end_date;
  const startDay = event.start_date.slice(0, 10);
  const endDay = event.all_day ? event.end_date.slice(0, 10) : lastDay(event.start_date, event.end_date);
  let text: string;
  if (event.all_day) {
    text = startDay === endDay ? `${dayLabel(start)}, all day` : `${dayLabel(start)} – ${dayLabel(end)}, all day`;
  } else if (startDay === endDay) {
    text =
      event.start_date === event.end_date
        ? `${dayLabel(start)}, ${timeLabel(start)}`
        : `${dayLabel(start)}, ${timeLabel(start)} – ${timeLabel(end)}`;
  } else {
    text = `${dayLabel(start)}, ${timeLabel(start)} – ${dayLabel(end)}, ${timeLabel(end)}`;
  }
  const zone = event.all_day
    ? ''
    : zoneLabel(event.timezone, readableAbbreviation(event.timezone, event.timezone_abbr, event.utc_start_date));
  return { text, zone, startDay, endDay };
}

const RULE_DAYS: Record<string, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};

/** `a`, `a and b`, `a, b and c`. */
const joinAnd = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/**
 * D25: how a series repeats, in a few words, from its RFC 5545 lines (`recurrence`) and its first start: "Repeats every
 * Tuesday", "Repeats every 2 weeks on Monday and Thursday", "Repeats monthly". A series of one rule is worded by its
 * frequency and interval (and, weekly, its days); anything else (several rules, extra dates alone, a rule by the hour)
 * is "One of a series of dates".
 */
export function describeRecurrence(lines: readonly string[], firstStartLocal: string): string {
  const rules = lines.filter((line) => /^RRULE:/i.test(line));
  const fallback = 'One of a series of dates';
  if (rules.length !== 1) return fallback;
  const parts = new Map(
    rules[0]
      .slice('RRULE:'.length)
      .split(';')
      .map((part) => {
        const [name, value = ''] = part.split('=');
        return [name.toUpperCase(), value.toUpperCase()] as const;
      }),
  );
  const interval = /^[1-9]\d{0,3}$/.test(parts.get('INTERVAL') ?? '1') ? Number(parts.get('INTERVAL') ?? '1') : 1;
  const every = (one: string, unit: string) =>
    interval === 1 ? `Repeats ${one}` : `Repeats every ${interval} ${unit}`;
  switch (parts.get('FREQ')) {
    case 'DAILY':
      return every('daily', 'days');
    case 'WEEKLY': {
      const codes = parts.get('BYDAY')?.split(',') ?? [
        Object.keys(RULE_DAYS)[(new Date(`${firstStartLocal.slice(0, 10)}T00:00:00Z`).getUTCDay() + 6) % 7],
      ];
      const days = codes.map((code) => RULE_DAYS[code]);
      if (days.some((day) => day === undefined)) return every('weekly', 'weeks');
      return interval === 1 ? `Repeats every ${joinAnd(days)}` : `Repeats every ${interval} weeks on ${joinAnd(days)}`;
    }
    case 'MONTHLY':
      return every('monthly', 'months');
    case 'YEARLY':
      return every('yearly', 'years');
    default:
      return fallback;
  }
}

/** `3 more dates`, `1 more date`. */
export const moreDates = (count: number) => `${count} more ${count === 1 ? 'date' : 'dates'}`;

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Character references decoded (numeric ones and amp, lt, gt, quot, apos, nbsp): the text an escaped value stands for. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|amp|lt|gt|quot|apos|nbsp);/gi, (match, entity: string) => {
    const lower = entity.toLowerCase();
    const code = lower.startsWith('#x')
      ? Number.parseInt(lower.slice(2), 16)
      : lower.startsWith('#')
        ? Number(lower.slice(1))
        : undefined;
    if (code !== undefined)
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : match;
    return NAMED_ENTITIES[lower] ?? match;
  });
}

/** Text of sanitised HTML (for attributes, OpenGraph and calendar links): tags dropped, entities decoded, spaces collapsed. */
export function plainText(html: string): string {
  return decodeEntities(html.replace(/<br\s*\/?>|<\/p>/gi, '\n').replace(/<[^>]*>/g, ''))
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/** At most `max` characters, cut at a word, with an ellipsis when cut. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * JSON for a `<script type="application/ld+json">` element: nothing in it can close the element or start a comment
 * (`<`, `>` and `&` as \u escapes), and the two line separators JavaScript once refused are escaped too.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Google Calendar's event template link (`calendar.google.com/calendar/render?action=TEMPLATE`): title, UTC times (or
 * whole days, the end exclusive), the event's zone, a short description ending with the page's address, the place.
 */
export function googleCalendarLink(
  event: {
    title: string;
    url: string;
    all_day: boolean | null;
    start_date: string;
    end_date: string;
    utc_start_date: string;
    utc_end_date: string;
    timezone: string;
    description: string;
    excerpt: string;
  },
  location: string,
): string {
  const dates = event.all_day
    ? `${event.start_date.slice(0, 10).replace(/-/g, '')}/${addDays(event.end_date, 1).replace(/-/g, '')}`
    : `${basicUtc(event.utc_start_date)}/${basicUtc(event.utc_end_date)}`;
  const summary = shorten(plainText(event.excerpt || event.description), 500);
  const params = new URLSearchParams({ action: 'TEMPLATE', text: event.title, dates });
  if (event.timezone !== '' && !/^UTC[+-]/.test(event.timezone)) params.set('ctz', event.timezone);
  params.set('details', summary === '' ? event.url : `${summary}\n\n${event.url}`);
  if (location !== '') params.set('location', location);
  return `https://calendar.google.com/calendar/render?${params.toString()}`;
}

/** Google Calendar's "add by URL" of a calendar file (`cid=`, its webcal:// address): a subscription that follows it. */
export const googleSubscribeLink = (icsUrl: string) =>
  `https://calendar.google.com/calendar/render?${new URLSearchParams({ cid: webcal(icsUrl) }).toString()}`;

/** A venue's address on one line, from the parts it has. */
type AddressPart = 'address' | 'city' | 'country' | 'province' | 'state' | 'zip' | 'stateprovince';

export function venueAddress(venue: Pick<ApiVenue, AddressPart>): string {
  const part = (key: AddressPart) => (venue[key] ?? '').trim();
  const region = part('stateprovince') || part('state') || part('province');
  const cityLine = [part('zip'), part('city')].filter(Boolean).join(' ');
  return [part('address'), cityLine, region, part('country')].filter(Boolean).join(', ');
}

/** A map search for the venue: its coordinates when stored, else its name and address. */
export function mapLink(venue: Pick<ApiVenue, AddressPart | 'venue' | 'geo_lat' | 'geo_lng'>): string | undefined {
  const query =
    typeof venue.geo_lat === 'number' && typeof venue.geo_lng === 'number'
      ? `${venue.geo_lat},${venue.geo_lng}`
      : [venue.venue ?? '', venueAddress(venue)].filter(Boolean).join(', ');
  if (query === '') return undefined;
  return `https://www.google.com/maps/search/?${new URLSearchParams({ api: '1', query }).toString()}`;
}

/** The `webcal://` twin of a feed URL, which calendar apps open as a subscription. */
export const webcal = (url: string) => url.replace(/^https?:\/\//, 'webcal://');
