// `GET /events/fullcalendar`: FullCalendar's JSON event source (its `events` option given this URL). FullCalendar sends
// the range it shows (`start`, `end`: ISO 8601, with the browser's offset, or in `timeZone` when the calendar names a
// zone) and expects an array of its event objects. The answer holds, one per occurrence, the events `GET /events`
// lists to this caller that overlap the range; cancelled (trashed) events are never among them, and a protected event
// shows what a list shows of it. Read through the list's own plan and query (no second query path), at most
// ICAL_MAX_EVENTS of them, as the iCalendar feed.
import { DateTime, type Zone } from 'luxon';
import Type from 'typebox';
import { planListRequest } from './list-request.ts';
import { effectiveStatus } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { isValidTimezone, requireZone } from '../../domain/dates/zones.ts';
import type { RequestContext } from '../../http/context.ts';
import { JSON_TYPE } from '../../http/content-types.ts';
import { invalidParam } from '../../http/errors.ts';
import { NOT_MODIFIED } from '../../http/etag.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { absoluteUrl, closedObject, component } from '../../http/schemas.ts';
import { yieldIfBusy } from '../../store/event-loop.ts';
import { arg, type Validator } from '../../core/input/args.ts';
import { eventListArgs } from '../../core/events/input.ts';
import type { EventListParams } from '../../core/events/list-query.ts';
import { eventListQueries, type EventRow } from '../../core/events/store.ts';
import { postLike, publicUrl } from '../../core/posts/fields.ts';
import type { PostRow } from '../../core/posts/store.ts';
import type { Db } from '../../store/store.ts';
import { dayAfter, htmlToText } from '../../ical/write.ts';

export const FULLCALENDAR_PATH = '/events/fullcalendar';

/**
 * The widest gap between two wall clocks (UTC−12 to UTC+14). The list compares each event's own wall-clock times with
 * bounds in the site's zone; a range widened by this much on both sides misses no event that overlaps it in time, and
 * the overlap itself is then decided on the UTC times.
 */
const WALL_CLOCK_SPREAD = { hours: 26 };
/** Events read at a time. */
const LOAD_CHUNK = 1000;

/** FullCalendar sends ISO 8601 (`2027-03-01T00:00:00-08:00`, `…Z`, or without an offset in the named zone). */
const isIsoTime: Validator<string> = (value) => {
  const parsed = DateTime.fromISO(value, { setZone: true, zone: 'utc' });
  return parsed.isValid && parsed.year >= 1 && parsed.year <= 9999;
};

const rangeArg = (description: string) => arg.string({ description, required: true, validate: isIsoTime });

const sourceArgs = {
  start: rangeArg(
    'The start of the range FullCalendar shows (inclusive): ISO 8601 with an offset, or without one in timeZone (else the site time zone).',
  ),
  end: rangeArg('The end of the range FullCalendar shows (exclusive), as start; after start.'),
  timeZone: arg.string({
    description:
      'The zone FullCalendar sends when its timeZone option names one (an IANA name, or UTC): start and end without an offset are read in it, and the times answered are written in it. Without it they are in UTC.',
    validate: (value) => isValidTimezone(value),
  }),
  search: eventListArgs.search,
  categories: eventListArgs.categories,
  tags: eventListArgs.tags,
  venue: eventListArgs.venue,
  organizer: eventListArgs.organizer,
  featured: eventListArgs.featured,
};

const FullCalendarEventSchema = component(
  'FullCalendarEvent',
  closedObject(
    {
      id: Type.Integer({ description: 'The event id (of the occurrence, for a series).' }),
      title: Type.String({ description: 'The event title, as plain text.' }),
      start: Type.String({
        description:
          'Timed: the start, ISO 8601 with an offset (in timeZone, else UTC). All-day: the first day, YYYY-MM-DD.',
      }),
      end: Type.String({
        description:
          'Timed: the end, as start. All-day: the day after the last day, YYYY-MM-DD (exclusive, as FullCalendar reads it).',
      }),
      allDay: Type.Boolean({
        description:
          'Whether the event lasts whole days (false while a password hides the details, as lists show all_day null).',
      }),
      url: absoluteUrl('The event page.'),
    },
    { description: "An event in FullCalendar's event format." },
  ),
);

type FullCalendarEvent = { id: number; title: string; start: string; end: string; allDay: boolean; url: string };

/** The range FullCalendar asked for, each end with the offset it was sent with (its days are the calendar's days). */
interface Range {
  start: DateTime;
  end: DateTime;
}

const POST_COLUMNS = [
  'id',
  'type',
  'author_id',
  'status',
  'status_before_trash',
  'slug',
  'title',
  'date_utc',
  'password',
] as const;
const EVENT_COLUMNS = ['id', 'all_day', 'start_local', 'end_local', 'start_utc', 'end_utc'] as const;

/** What an item shows of an event: these columns only (no content is read, nor rendered as a full load would). */
interface SourceRecord {
  post: Pick<PostRow, (typeof POST_COLUMNS)[number]>;
  event: Pick<EventRow, (typeof EVENT_COLUMNS)[number]>;
}

/** The records of `ids` that are events (others are left out), in two queries. */
async function loadSourceRecords(db: Db, ids: readonly number[]): Promise<Map<number, SourceRecord>> {
  const [posts, events] = await Promise.all([
    db.selectFrom('posts').select(POST_COLUMNS).where('id', 'in', ids).execute(),
    db.selectFrom('events').select(EVENT_COLUMNS).where('id', 'in', ids).execute(),
  ]);
  const eventById = new Map(events.map((event) => [event.id, event]));
  const records = new Map<number, SourceRecord>();
  for (const post of posts) {
    const event = eventById.get(post.id);
    if (post.type === 'event' && event) records.set(post.id, { post, event });
  }
  return records;
}

const readTime = (value: string, zone: Zone) => DateTime.fromISO(value, { setZone: true, zone });

/** The site's wall-clock time of an instant, as the list's date arguments read it. */
const siteWallClock = (ctx: RequestContext, time: DateTime) => formatWp(time.setZone(ctx.config.siteTimezone));

/** Text of a stored title (HTML entities decoded, on one line): FullCalendar shows it as text. */
const plainTitle = (title: string) => htmlToText(title).replace(/\s*\n\s*/g, ' ');

const utcTime = (wp: string) => DateTime.fromSQL(wp, { zone: 'utc' });

/** The first day after the range: the day of its end, or the next one when the end is not at midnight. */
const dayPastRange = (range: Range) =>
  (range.end.startOf('day').equals(range.end) ? range.end : range.end.plus({ days: 1 })).toISODate()!;

/**
 * One event as FullCalendar reads it, or undefined when it does not overlap the range. `detailed` false: a protected
 * event the caller cannot open, shown as a list shows it (title and times; whole days are not said).
 */
function sourceEvent(
  ctx: RequestContext,
  { post, event }: SourceRecord,
  range: Range,
  outputZone: Zone,
  detailed: boolean,
): FullCalendarEvent | undefined {
  const head = { id: post.id, title: plainTitle(post.title) };
  // postLike and publicUrl take a whole row, of which they read only columns a source record has.
  const row = post as PostRow;
  const url = publicUrl(ctx.config, row, effectiveStatus(postLike(row), formatWp(ctx.now)));
  if (event.all_day === 1 && detailed) {
    const firstDay = event.start_local.slice(0, 10);
    const lastDay = event.end_local.slice(0, 10);
    if (firstDay >= dayPastRange(range) || lastDay < range.start.toISODate()!) return undefined;
    return { ...head, start: firstDay, end: dayAfter(lastDay), allDay: true, url };
  }
  const start = utcTime(event.start_utc);
  const end = utcTime(event.end_utc);
  if (start >= range.end || end <= range.start) return undefined;
  const iso = (time: DateTime) => time.setZone(outputZone).toISO({ suppressMilliseconds: true })!;
  return { ...head, start: iso(start), end: iso(end), allDay: false, url };
}

const source = endpoint({
  methods: ['GET'],
  summary: "FullCalendar's JSON event source: the events GET /events lists that overlap a range",
  responses: {
    200: {
      description:
        "The events overlapping the range, one per occurrence, in FullCalendar's format; cancelled events never. At most ICAL_MAX_EVENTS, and MAX_RESPONSE_BYTES (then X-Truncated: true).",
      schema: Type.Array(FullCalendarEventSchema, { description: "Events in FullCalendar's event format." }),
    },
    ...NOT_MODIFIED,
    400: { description: 'Invalid parameter (end not after start, among others).' },
  },
  args: sourceArgs,
  check(ctx, params) {
    const zone = requireZone(params.timeZone ?? ctx.config.siteTimezone);
    if (readTime(params.end, zone) <= readTime(params.start, zone)) {
      throw invalidParam('end', {
        code: 'rest_invalid_param',
        message: 'end must be after start.',
        data: { param: 'end' },
      });
    }
  },
  async handler(ctx, params) {
    const zone = requireZone(params.timeZone ?? ctx.config.siteTimezone);
    const range: Range = { start: readTime(params.start, zone), end: readTime(params.end, zone) };
    const listParams: EventListParams = {
      page: 1,
      strict_dates: true,
      ends_after: siteWallClock(ctx, range.start.minus(WALL_CLOCK_SPREAD)),
      starts_before: siteWallClock(ctx, range.end.plus(WALL_CLOCK_SPREAD)),
      search: params.search,
      categories: params.categories,
      tags: params.tags,
      venue: params.venue,
      organizer: params.organizer,
      featured: params.featured,
    };
    const plan = await planListRequest(ctx, listParams);
    const max = ctx.config.ical.maxEvents;
    const rows = await eventListQueries(ctx.store, ctx, { ...plan, page: 1, perPage: max + 1 }).page.execute();
    const ids = rows.slice(0, max).map((row) => row.id);
    const outputZone = params.timeZone === undefined ? requireZone('UTC') : zone;
    const budget = ctx.config.deadlines.maxResponseBytes;
    const items: string[] = [];
    let bytes = 2;
    let truncated = rows.length > max;
    // Read LOAD_CHUNK events at a time (bounded memory), giving the event loop a turn as the answer is written (D31).
    reading: for (let at = 0; at < ids.length; at += LOAD_CHUNK) {
      const chunk = ids.slice(at, at + LOAD_CHUNK);
      const records = await loadSourceRecords(ctx.store.db, chunk);
      for (const id of chunk) {
        const record = records.get(id);
        // Deleted for good between the query and this read: left out, as if the list were read after.
        if (!record) continue;
        // A list read without a password or context=edit shows no one a protected event's details (§3.10, §11).
        const item = sourceEvent(ctx, record, range, outputZone, record.post.password === '');
        if (!item) continue;
        const text = JSON.stringify(item);
        const size = Buffer.byteLength(text) + 1;
        if (bytes + size > budget) {
          truncated = true;
          break reading;
        }
        bytes += size;
        items.push(text);
        await yieldIfBusy('row');
      }
    }
    const headers: Record<string, string> = truncated ? { 'X-Truncated': 'true' } : {};
    return { type: JSON_TYPE, payload: `[${items.join(',')}]`, headers };
  },
});

export function fullCalendarRoutes(): RouteGroup[] {
  return [{ path: FULLCALENDAR_PATH, pattern: FULLCALENDAR_PATH, endpoints: [source] }];
}
