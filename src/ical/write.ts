// D26: iCalendar (RFC 5545) out. Pure: plain event data in, text out. Components are built as jCal (RFC 7265) and
// written by ical.js, which escapes TEXT values and folds lines at 75 octets with CRLF; VTIMEZONE components come
// from timezones-ical-library (the IANA database), never hand-made. Every feed is written event by event, giving the
// event loop a turn between chunks (D31).
import ICAL from 'ical.js';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { utcToLocal } from '../domain/dates/stored-format.ts';

// ical.js folds into chunks of `foldLength` octets and puts a space before each continuation, so a continuation line
// would be one octet over RFC 5545's 75: 74 keeps every line, its leading space included, within 75.
ICAL.foldLength = 74;
// The extension properties written here, typed as RFC 7986 and the de-facto X-WR-* convention type them, so that
// ical.js escapes (and, on import, unescapes) their TEXT without adding a `VALUE=TEXT` parameter to every line.
// ical.js types a design set's tables as `any`; the property table maps a name to its definition.
const icalProperties: Record<string, { defaultType: string }> = ICAL.design.icalendar.property;
for (const name of ['x-wr-calname', 'x-wr-timezone', 'x-wr-caldesc', 'x-alt-desc', 'x-calendar-events-venue'])
  icalProperties[name] ??= { defaultType: 'text' };
for (const name of ['refresh-interval', 'x-published-ttl']) icalProperties[name] ??= { defaultType: 'duration' };

type JCal = [string, Record<string, unknown>, string, ...unknown[]];
type JComponent = [string, JCal[], JComponent[]];

/** `YYYY-MM-DD HH:MM:SS`, as the service stores dates. */
type WpDate = string;

export type IcalStatus = 'CONFIRMED' | 'TENTATIVE' | 'CANCELLED';

/** One VEVENT, as plain data (feed.ts builds it from the event as the caller reads it). */
export interface IcalEvent {
  uid: string;
  sequence: number;
  /** UTC: the last change (DTSTAMP and LAST-MODIFIED, so that an unchanged feed is byte-for-byte the same). */
  modifiedUtc: WpDate;
  createdUtc: WpDate;
  /** The event's zone (IANA, or an offset such as UTC+5: then the times are written in UTC). */
  timezone: string;
  allDay: boolean;
  startLocal: WpDate;
  endLocal: WpDate;
  startUtc: WpDate;
  endUtc: WpDate;
  summary: string;
  /** Plain text; left out, the plain text of `html` (written only when the VEVENT is, see `writeEntry`). */
  description?: string;
  /** The description as HTML (X-ALT-DESC), "" for none. */
  html: string;
  url?: string;
  venue?: { name: string; address: string; geo?: { lat: number; lng: number } };
  organizer?: { name: string; email: string; url: string };
  categories: string[];
  status: IcalStatus;
  image?: string;
  /** RFC 5545 lines (`RRULE:…`, `RDATE…`, `EXDATE…`) of a series; absent or [] for a single event. */
  recurrence?: readonly string[];
  /** An edited occurrence of a series: the occurrence's original start (UTC), its RECURRENCE-ID. */
  recurrenceIdUtc?: WpDate;
}

/** A series (or single event) and the edited occurrences written after it with the same UID. */
export interface IcalEntry {
  event: IcalEvent;
  exceptions?: readonly IcalEvent[];
}

interface ZoneBlock {
  tzid: string;
  component: JComponent;
}

const zoneBlocks = new Map<string, ZoneBlock | null>();

/** The VTIMEZONE of an IANA zone (aliases give their canonical TZID); null for offsets, UTC and unknown names. */
export function zoneBlock(zone: string): ZoneBlock | null {
  let block = zoneBlocks.get(zone);
  if (block !== undefined) return block;
  block = null;
  if (/^[A-Za-z]+\/[A-Za-z0-9_+\-/]+$/.test(zone) && !/^Etc\//.test(zone)) {
    const found = tzlib_get_ical_block(zone);
    if (Array.isArray(found) && typeof found[0] === 'string' && found[0].startsWith('BEGIN:VTIMEZONE')) {
      // ical.js types its jCal as `any`: one VTIMEZONE parsed is one component.
      const component: JComponent = ICAL.parse(found[0]);
      const tzid = component[1].find((property) => property[0] === 'tzid')?.[3];
      if (typeof tzid === 'string') block = { tzid, component };
    }
  }
  zoneBlocks.set(zone, block);
  return block;
}

const isoOf = (value: WpDate) => value.replace(' ', 'T');
const dateOf = (value: WpDate) => value.slice(0, 10);

/** The day after a `YYYY-MM-DD` (DTEND of an all-day event is exclusive). */
export function dayAfter(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** DTSTART, DTEND, RECURRENCE-ID: with the event's TZID, or in UTC when it has no VTIMEZONE (an offset zone, a UTC calendar). */
function dateProperty(name: string, local: WpDate, utc: WpDate, zone: ZoneBlock | null): JCal {
  return zone === null
    ? [name, {}, 'date-time', `${isoOf(utc)}Z`]
    : [name, { tzid: zone.tzid }, 'date-time', isoOf(local)];
}

const utcProperty = (name: string, utc: WpDate): JCal => [name, {}, 'date-time', `${isoOf(utc)}Z`];

const text = (name: string, value: string, params: Record<string, unknown> = {}): JCal => [name, params, 'text', value];

// Every value is made safe here, at the point of writing, whatever the database holds: a raw CR or LF in a value would
// end its line, and what follows would be read as properties (even components) of the writer's choosing. ical.js
// escapes LF in TEXT (`\n`) and in parameters (RFC 6868 `^n`), but not CR, and nothing in URIs.
const LINE_BREAK = /\r\n?/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what these patterns remove
const CONTROL_BUT_LF = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: (see above)
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/g;

/** RFC 5545 TEXT has no control characters: CRLF and CR become the escaped line break LF is written as, others go. */
export const safeText = (value: string) => value.replace(LINE_BREAK, '\n').replace(CONTROL_BUT_LF, '');

/** A URI cannot hold control characters or spaces (RFC 3986): they are percent-encoded, as a browser would send them. */
export const safeUri = (value: string) =>
  value.replace(CONTROL_OR_SPACE, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);

/** One property with every string in its parameters and values made safe for its value type. */
function safeProperty([name, params, type, ...values]: JCal): JCal {
  const safeParams: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params))
    safeParams[key] = typeof value === 'string' ? safeText(value) : value;
  const safeValue = type === 'uri' || type === 'cal-address' ? safeUri : safeText;
  return [name, safeParams, type, ...values.map((value) => (typeof value === 'string' ? safeValue(value) : value))];
}

/** An RFC 5545 line (`RRULE:FREQ=WEEKLY`, `EXDATE;TZID=Europe/Berlin:20270317T090000`) as jCal. */
function recurrenceLine(line: string): JCal {
  // ical.js types a property's jCal as `any`.
  return ICAL.Property.fromString(line.replace(CONTROL_OR_SPACE, '')).toJSON();
}

/** The VTIMEZONE a timed event's times are written with; none (UTC) for all-day events, and in a UTC calendar. */
const eventZone = (event: IcalEvent, utc: boolean) => (event.allDay || utc ? null : zoneBlock(event.timezone));

function veventOf(event: IcalEvent, zones: Map<string, ZoneBlock>, utc: boolean): JComponent {
  const zone = eventZone(event, utc);
  if (zone) zones.set(zone.tzid, zone);
  const properties: JCal[] = [
    text('uid', event.uid),
    utcProperty('dtstamp', event.modifiedUtc),
    utcProperty('created', event.createdUtc),
    utcProperty('last-modified', event.modifiedUtc),
    ['sequence', {}, 'integer', event.sequence],
  ];
  if (event.allDay) {
    properties.push(['dtstart', {}, 'date', dateOf(event.startLocal)]);
    properties.push(['dtend', {}, 'date', dayAfter(dateOf(event.endLocal))]);
  } else {
    properties.push(dateProperty('dtstart', event.startLocal, event.startUtc, zone));
    properties.push(dateProperty('dtend', event.endLocal, event.endUtc, zone));
  }
  if (event.recurrenceIdUtc !== undefined) properties.push(recurrenceIdProperty(event, zone));
  for (const line of event.recurrence ?? []) {
    const property = recurrenceLine(line);
    const tzid = property[1].tzid;
    if (typeof tzid === 'string') {
      const block = zoneBlock(tzid);
      if (block) zones.set(block.tzid, block);
    }
    properties.push(property);
  }
  properties.push(text('summary', event.summary));
  const description = event.description ?? htmlToText(event.html);
  if (description !== '') properties.push(text('description', description));
  if (event.html !== '') properties.push(text('x-alt-desc', event.html, { fmttype: 'text/html' }));
  if (event.url) properties.push(['url', {}, 'uri', event.url]);
  if (event.venue) {
    const { name, address, geo } = event.venue;
    properties.push(text('location', address === '' ? name : `${name}, ${address}`));
    // The venue's own name, so that an import (ours, or any that reads Apple's structured location) finds it again.
    properties.push(text('x-calendar-events-venue', name));
    if (geo) {
      properties.push(['geo', {}, 'float', [geo.lat, geo.lng]]);
      const params: Record<string, unknown> = { 'x-title': name };
      if (address !== '') params['x-address'] = address;
      properties.push(['x-apple-structured-location', params, 'uri', `geo:${geo.lat},${geo.lng}`]);
    }
  }
  if (event.organizer) {
    const { name, email, url } = event.organizer;
    properties.push(['organizer', { cn: name }, 'cal-address', email !== '' ? `mailto:${email}` : url]);
  }
  if (event.categories.length > 0) properties.push(['categories', {}, 'text', ...event.categories]);
  properties.push(text('status', event.status));
  if (event.image) properties.push(['attach', {}, 'uri', event.image]);
  return ['vevent', properties.map(safeProperty), []];
}

/**
 * RECURRENCE-ID in the form of the series' DTSTART: a date for all-day series (the occurrence's day in the event's
 * zone, as its DTSTART and the series' EXDATEs are written), else local time with its TZID.
 */
function recurrenceIdProperty(event: IcalEvent, zone: ZoneBlock | null): JCal {
  const utc = event.recurrenceIdUtc!;
  if (event.allDay) return ['recurrence-id', {}, 'date', dateOf(utcToLocal(utc, event.timezone))];
  if (zone === null) return utcProperty('recurrence-id', utc);
  return ['recurrence-id', { tzid: zone.tzid }, 'date-time', isoOf(utcToLocal(utc, event.timezone))];
}

export interface CalendarHead {
  prodId: string;
  name: string;
  /** X-WR-TIMEZONE: the site's zone. */
  timezone: string;
  /**
   * Every time in UTC (`…Z`), with no TZID and so no VTIMEZONE; dates of all-day events stay dates. For readers that
   * take a TZID time for the viewer's own (FullCalendar's iCalendar plugin): the entries' recurrence lines must then be
   * in UTC too (ical/feed.ts writes them so).
   */
  utc?: boolean;
}

/** The component's text, with the design set ical.js would pick for it by name (iCalendar's). */
const stringifyComponent = (component: JComponent) =>
  ICAL.stringify.component(component, ICAL.design.getDesignSet(component[0]));

/**
 * VEVENT texts by the data they were written from (the entry as JSON, its description standing for itself through its
 * last-modified stamp: any change is another key, so a hit is what writing would give). Calendar apps poll the same feeds over and over; a feed of 10,000
 * unchanged events then costs no writing at all. Bounded by characters (ICAL_CACHE_BYTES), oldest first out. One per
 * process, made at start (src/caches.ts): the key names an event by its UID, which two databases served by one process
 * could share.
 */
export class WrittenEntries {
  readonly #entries = new Map<string, string>();
  #bytes = 0;
  /** The characters of keys and texts kept at most; 0 keeps nothing. */
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** The characters of the keys and texts kept (for tests and diagnostics). */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): string | undefined {
    const text = this.#entries.get(key);
    if (text !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, text);
    }
    return text;
  }

  set(key: string, text: string): void {
    const size = key.length + text.length;
    if (size > this.maxBytes / 64) return;
    for (const [oldKey, oldText] of this.#entries) {
      if (this.#bytes + size <= this.maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= oldKey.length + oldText.length;
    }
    this.#entries.set(key, text);
    this.#bytes += size;
  }
}

/** The VEVENTs of one entry (a series, then its edited occurrences), and the zones they use; from `written` if it has them. */
function writeEntry(
  entry: IcalEntry,
  written: WrittenEntries | undefined,
  utc: boolean,
): { text: string; zones: ZoneBlock[] } {
  const events = [entry.event, ...(entry.exceptions ?? [])];
  const used = new Map<string, ZoneBlock>();
  // The description is left out of the key: it changes only with a write, which moves `modifiedUtc` (in the key).
  const key =
    written === undefined
      ? ''
      : JSON.stringify({ utc, entry }, (name, value) =>
          name === 'html' || name === 'description' ? undefined : value,
        );
  const cached = written?.get(key);
  if (cached !== undefined) {
    for (const event of events) zonesOf(event, used, utc);
    return { text: cached, zones: [...used.values()] };
  }
  const text = events.map((event) => stringifyComponent(veventOf(event, used, utc))).join('\r\n');
  written?.set(key, text);
  return { text, zones: [...used.values()] };
}

/** The zones an event's VEVENT names (its own, and those of its recurrence lines), as `veventOf` collects them. */
function zonesOf(event: IcalEvent, zones: Map<string, ZoneBlock>, utc: boolean): void {
  const zone = eventZone(event, utc);
  if (zone) zones.set(zone.tzid, zone);
  for (const line of event.recurrence ?? []) {
    const tzid = /;TZID=("?)([^;:"]+)\1[;:]/i.exec(line)?.[2];
    const block = tzid === undefined ? null : zoneBlock(tzid);
    if (block) zones.set(block.tzid, block);
  }
}

const CHUNK = 250;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The VCALENDAR of `entries`: every VEVENT (a series then its edited occurrences), then a VTIMEZONE for every zone
 * used, all in one text. `budget` bounds the bytes (D31): entries that would not fit are left out, and `truncated`
 * says so. VEVENTs written before are taken from `written` (the process's, for the feeds), and kept there.
 */
export async function writeCalendar(
  head: CalendarHead,
  entries: Iterable<IcalEntry> | AsyncIterable<IcalEntry>,
  budget = Number.POSITIVE_INFINITY,
  written?: WrittenEntries,
): Promise<{ text: string; truncated: boolean }> {
  const zones = new Map<string, ZoneBlock>();
  const utc = head.utc === true;
  const site = zoneBlock(head.timezone);
  if (site && !utc) zones.set(site.tzid, site);
  const events: string[] = [];
  let bytes = 0;
  let truncated = false;
  let count = 0;
  for await (const entry of entries) {
    const { text, zones: used } = writeEntry(entry, written, utc);
    const size = Buffer.byteLength(text) + 2;
    if (bytes + size > budget) {
      truncated = true;
      break;
    }
    bytes += size;
    events.push(text);
    for (const block of used) zones.set(block.tzid, block);
    if (++count % CHUNK === 0) await yieldToLoop();
  }
  const properties: JCal[] = [
    text('version', '2.0'),
    text('prodid', head.prodId),
    text('calscale', 'GREGORIAN'),
    text('method', 'PUBLISH'),
    text('x-wr-calname', head.name),
    text('x-wr-timezone', site?.tzid ?? head.timezone),
    ['refresh-interval', { value: 'DURATION' }, 'duration', 'PT1H'],
    ['x-published-ttl', {}, 'duration', 'PT1H'],
  ];
  const calendar: JComponent = [
    'vcalendar',
    properties.map(safeProperty),
    [...zones.values()].map((zone) => zone.component),
  ];
  const shell = stringifyComponent(calendar);
  const end = 'END:VCALENDAR';
  const body = events.length === 0 ? '' : `${events.join('\r\n')}\r\n`;
  return { text: `${shell.slice(0, shell.length - end.length)}${body}${end}\r\n`, truncated };
}

/** The plain text of sanitised HTML (DESCRIPTION): tags go, line and paragraph breaks stay, entities are decoded. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|h[1-6]|li|blockquote|pre|tr|table|ul|ol)>/gi, '\n\n')
      .replace(/<li[^>]*>/gi, '• ')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  hellip: '…',
  ndash: '–',
  mdash: '—',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

function decodeEntities(value: string): string {
  return value.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);/g, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code =
        entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[entity] ?? whole;
  });
}
