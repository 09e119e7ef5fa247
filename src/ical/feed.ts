// D26: what an iCalendar feed holds for a caller. The events `GET /events` would list with the same filters (no paging,
// at most ICAL_MAX_EVENTS), plus the trashed events in the window the caller could have seen there, trashed within the
// last 30 days, as STATUS:CANCELLED so that subscribers drop them. A core function of (store, actor, plan): no HTTP.
import {
  canAccessProtected,
  canEditPost,
  canReadPost,
  effectiveStatus,
  listVisibilityScope,
  type PostStatus,
} from '../domain/access.ts';
import type { Actor } from '../domain/actor.ts';
import { basicUtc, formatWp } from '../domain/dates/stored-format.ts';
import type { Selectable } from 'kysely';
import type { DateTime } from 'luxon';
import type { Db, Store } from '../store/store.ts';
import type { OrganizersTable, VenuesTable } from '../store/schema.ts';
import { postLike, publicUrl } from '../core/posts/fields.ts';
import { scheduledDueBetween, trashedModifiedBetween, type PostRow } from '../core/posts/store.ts';
import type { EventListPlan } from '../core/events/list-query.ts';
import { loadImages } from '../core/images/images.ts';
import { loadOrganizerIds, type EventRecord } from '../core/events/store.ts';
import { eventPageOf } from '../core/events/store.ts';
import { CANCELLED, exdateLine, seriesExceptionIds, storedOverrides, storedRecurrence } from '../core/events/series.ts';
import { htmlToText, type IcalEntry, type IcalEvent, type IcalStatus } from './write.ts';

/** How long a trashed event stays in feeds as CANCELLED. */
export const CANCELLED_DAYS = 30;
/** The default window starts this many days ago and has no end. */
export const FEED_PAST_DAYS = 30;
/** Events loaded and serialised at a time. */
const LOAD_CHUNK = 1000;

/** The feed's default window: events that end on or after the start of the day 30 days ago (site zone), no end. */
export function feedWindow(plan: EventListPlan, actor: Actor): EventListPlan {
  const from = actor.now.setZone(actor.config.siteTimezone).minus({ days: FEED_PAST_DAYS }).startOf('day');
  return { ...plan, dates: [{ param: 'start_date', column: 'end', operator: '>=', value: formatWp(from) }] };
}

/**
 * Whether what a feed holds may have changed between two times with no write at all: what it shows of the clock. A
 * scheduled post came due (an event listed, a venue or organizer shown), or a trashed event left the cancelled days.
 * Its window is the other part, a day of the site's zone: callers compare plans. A clock that went back may undo
 * either, so it counts as moved; a venue or organizer trashed at the same time counts too (a feed written again for
 * nothing, never a stale one).
 */
export async function feedClockMovedBetween(store: Store, then: DateTime, now: DateTime): Promise<boolean> {
  if (now < then) return true;
  const cutoff = (at: DateTime) => formatWp(at.minus({ days: CANCELLED_DAYS }));
  const [due, aged] = await Promise.all([
    scheduledDueBetween(store.db, formatWp(then), formatWp(now)),
    trashedModifiedBetween(store.db, cutoff(then), cutoff(now)),
  ]);
  return due || aged;
}

export interface FeedSelection {
  /** Event ids in list order (by start). */
  active: number[];
  /** Trashed events shown as CANCELLED. */
  cancelled: number[];
  /** More matched than `max`. */
  truncated: boolean;
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** Effective statuses a trashed event may have had to be in this list (a due `future` counts as `publish`). */
const beforeTrash = (statuses: readonly PostStatus[]): string[] =>
  statuses.includes('publish') ? unique<string>([...statuses, 'future']) : [...statuses];

/**
 * The ids of the feed. Password-protected events are left out for anonymous callers (D26; others see them only when
 * they may edit them or sent the password, checked when they are written), drafts and private ones by the list rules.
 * `withCancelled` false (the feed's `cancelled=0`) leaves the trashed events out instead of listing them as cancelled.
 */
export async function selectFeed(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  max: number,
  withCancelled = true,
): Promise<FeedSelection> {
  const db = store.db;
  const paged = { ...plan, page: 1, perPage: max + 1 };
  const protectedEvents = db
    .selectFrom('posts')
    .select('posts.id')
    .where('posts.type', '=', 'event')
    .where('posts.password', '!=', '');
  const page = await eventPageOf(store, actor, paged, {
    except: actor.viewer === null ? protectedEvents : undefined,
  });
  const active = unique((await page.execute()).map((row) => row.id));
  const truncatedActive = active.length > max;
  const kept = active.slice(0, max);
  const room = max - kept.length;
  if (!withCancelled || room === 0 || !plan.statuses.some((status) => status !== 'trash')) {
    return { active: kept, cancelled: [], truncated: truncatedActive };
  }

  // Trashed events: listed as an editor would list `status=trash`, narrowed to those this caller could have seen.
  const scope = listVisibilityScope(actor.viewer);
  const cutoff = formatWp(actor.now.minus({ days: CANCELLED_DAYS }));
  const elevated: Actor = { ...actor, viewer: { id: actor.viewer?.id ?? 0, role: 'administrator' } };
  let trashed = db
    .selectFrom('posts')
    .select('posts.id')
    .where('posts.type', '=', 'event')
    .where('posts.status', '=', 'trash')
    .where('posts.modified_utc', '>=', cutoff)
    .where('posts.status_before_trash', 'in', beforeTrash(plan.statuses.filter((status) => status !== 'trash')));
  if (scope.scope === 'published-only') {
    trashed = trashed.where('posts.status_before_trash', 'in', ['publish', 'future']).where('posts.password', '=', '');
  } else if (scope.scope === 'published-or-own') {
    const own = scope.authorId;
    trashed = trashed.where((eb) =>
      eb.or([
        eb.and([eb('posts.status_before_trash', 'in', ['publish', 'future']), eb('posts.password', '=', '')]),
        eb('posts.author_id', '=', own),
      ]),
    );
  }
  const cancelledQuery = await eventPageOf(
    store,
    elevated,
    { ...paged, statuses: ['trash'], perPage: room + 1 },
    { only: trashed },
  );
  const cancelled = unique((await cancelledQuery.execute()).map((row) => row.id)).filter((id) => !kept.includes(id));
  return { active: kept, cancelled: cancelled.slice(0, room), truncated: truncatedActive || cancelled.length > room };
}

export interface FeedOptions {
  /** `<host>` of SITE_URL: UIDs are `<id>@<host>`. */
  host: string;
  /** The request's `password` (§11), which lets a caller see the one protected event it opens. */
  password?: unknown;
  /** The feed's `utc=1`: every time in UTC (see {@link utcSeriesLines} for what that makes of a timed series). */
  utc?: boolean;
}

/** The UID host: SITE_URL's host name. */
export const uidHost = (siteUrl: string) => new URL(siteUrl).hostname;

/** Whether the caller may see a protected event's content in a feed (anonymous callers never: D26). */
function mayShow(actor: Actor, bundle: FeedBundle, id: number, options: FeedOptions): boolean {
  const { post } = bundle.records.get(id)!;
  if (post.password === '') return true;
  if (actor.viewer === null) return false;
  // Those who may edit it see it (a feed has no blanked form to fall back on); others need its password.
  if (canEditPost(actor.viewer, postLike(post), formatWp(actor.now))) return true;
  return canAccessProtected({
    postPassword: post.password,
    suppliedPassword: options.password,
    contextEdit: false,
    canEdit: false,
  });
}

const STATUS: Record<string, IcalStatus> = { draft: 'TENTATIVE', pending: 'TENTATIVE', trash: 'CANCELLED' };

/** Text of a stored title or name (HTML entities decoded, on one line). */
const decode = (value: string) => htmlToText(value).replace(/\s*\n\s*/g, ' ');

const LINKED_POST_COLUMNS = [
  'id',
  'type',
  'author_id',
  'status',
  'status_before_trash',
  'slug',
  'title',
  'date_utc',
] as const;

/** A linked venue or organizer: its post and its own row. */
interface LinkedRow<Meta> {
  post: PostRow;
  meta: Meta;
}

/** What the VEVENTs of a set of events need, read in a constant number of queries (no JSON objects, no rendering). */
export interface FeedBundle {
  records: Map<number, EventRecord>;
  venues: Map<number, LinkedRow<Selectable<VenuesTable>>>;
  organizerIds: Map<number, number[]>;
  organizers: Map<number, LinkedRow<Selectable<OrganizersTable>>>;
  categories: Map<number, string[]>;
  images: Map<number, { url: string }>;
}

/**
 * Posts of the feed read without the columns it never uses (the descriptions of linked items, an event's excerpt):
 * typed as whole rows because the core's helpers (postLike, publicUrl) take whole rows, of which they read only
 * columns selected here.
 */
const partialPosts = (rows: Promise<Partial<PostRow>[]>) => rows as Promise<PostRow[]>;

async function loadLinkedRows<Meta extends { id: number }>(
  db: Db,
  type: 'venue' | 'organizer',
  ids: readonly number[],
  readMetas: (ids: number[]) => Promise<Meta[]>,
): Promise<Map<number, LinkedRow<Meta>>> {
  const wanted = unique(ids);
  const result = new Map<number, LinkedRow<Meta>>();
  if (wanted.length === 0) return result;
  const [posts, metas] = await Promise.all([
    // Only what the VEVENT and the D32 check read: not the descriptions.
    partialPosts(db.selectFrom('posts').select(LINKED_POST_COLUMNS).where('id', 'in', wanted).execute()),
    readMetas(wanted),
  ]);
  const metaById = new Map(metas.map((meta) => [meta.id, meta]));
  for (const post of posts) {
    const meta = metaById.get(post.id);
    if (post.type === type && meta) result.set(post.id, { post, meta });
  }
  return result;
}

/** The feed's batch read of `ids` (events; other ids are left out). */
export async function loadFeedBundle(db: Db, ids: readonly number[]): Promise<FeedBundle> {
  const wanted = unique(ids);
  const empty: FeedBundle = {
    records: new Map(),
    venues: new Map(),
    organizerIds: new Map(),
    organizers: new Map(),
    categories: new Map(),
    images: new Map(),
  };
  if (wanted.length === 0) return empty;
  const [posts, events, organizerIds, terms] = await Promise.all([
    // The type is checked here rather than in SQL, as posts/store.ts does (SQLite would walk the type index).
    partialPosts(
      db
        .selectFrom('posts')
        .select([...LINKED_POST_COLUMNS, 'content', 'password', 'image_id', 'modified_utc'])
        .where('id', 'in', wanted)
        .execute(),
    ),
    db.selectFrom('events').selectAll().where('id', 'in', wanted).execute(),
    loadOrganizerIds(db, wanted),
    db
      .selectFrom('event_terms')
      .innerJoin('terms', 'terms.id', 'event_terms.term_id')
      .select(['event_terms.event_id', 'terms.name'])
      .where('terms.taxonomy', '=', 'event_category')
      .where('event_terms.event_id', 'in', wanted)
      .execute(),
  ]);
  const eventById = new Map(events.map((event) => [event.id, event]));
  const records = new Map<number, EventRecord>();
  for (const post of posts) {
    const event = eventById.get(post.id);
    if (post.type === 'event' && event) records.set(post.id, { post, event });
  }
  const categories = new Map<number, string[]>();
  for (const term of terms.sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()))) {
    categories.set(term.event_id, [...(categories.get(term.event_id) ?? []), term.name]);
  }
  const venueIds = [...records.values()].flatMap(({ event }) => (event.venue_id === null ? [] : [event.venue_id]));
  // Only the first readable organizer is written; all are read, as D32 decides which one that is.
  const [venues, organizers, images] = await Promise.all([
    loadLinkedRows(db, 'venue', venueIds, (ids) =>
      db.selectFrom('venues').selectAll().where('id', 'in', ids).execute(),
    ),
    loadLinkedRows(db, 'organizer', [...organizerIds.values()].flat(), (ids) =>
      db.selectFrom('organizers').selectAll().where('id', 'in', ids).execute(),
    ),
    loadImages(
      db,
      [...records.values()].map(({ post }) => post.image_id),
    ),
  ]);
  return { records, venues, organizerIds, organizers, categories, images };
}

/**
 * One event as a VEVENT, read from its records (no JSON object is built: a feed of 10,000 events must answer within a
 * second). What it shows follows the event object's rules: D32, a venue or organizer only when this caller could open
 * it by id; the description as stored (sanitised HTML) in X-ALT-DESC and as plain text in DESCRIPTION.
 */
export function icalEventOf(
  actor: Actor,
  bundle: FeedBundle,
  id: number,
  host: string,
  plan?: EventListPlan,
): IcalEvent | undefined {
  const record = bundle.records.get(id);
  if (!record) return undefined;
  const { post, event } = record;
  const nowUtc = formatWp(actor.now);
  const readable = <T extends { post: PostRow }>(type: 'venue' | 'organizer', linked: T | undefined): T | undefined =>
    linked !== undefined && canReadPost(actor.viewer, type, postLike(linked.post), nowUtc) ? linked : undefined;
  const venue = event.venue_id === null ? undefined : readable('venue', bundle.venues.get(event.venue_id));
  const organizerIds = bundle.organizerIds.get(id) ?? [];
  const organizers = organizerIds
    .map((organizerId) => readable('organizer', bundle.organizers.get(organizerId)))
    .filter((item) => item !== undefined);
  const cancelled = post.status === 'trash';
  // A cancelled event found through a venue or organizer filter shows only when that link is readable (D32).
  if (cancelled && plan?.venueIds !== undefined && (venue === undefined || !plan.venueIds.includes(venue.post.id)))
    return undefined;
  if (
    cancelled &&
    plan?.organizerIds !== undefined &&
    !organizers.some((organizer) => plan.organizerIds!.includes(organizer.post.id))
  )
    return undefined;

  let venueData: IcalEvent['venue'];
  if (venue !== undefined) {
    const meta = venue.meta;
    const region = meta.stateprovince.trim() || meta.state.trim() || meta.province.trim();
    const address = [meta.address.trim(), meta.city.trim(), region, meta.zip.trim(), meta.country.trim()]
      .filter((part) => part !== '')
      .map(decode)
      .join(', ');
    const lat = meta.geo_lat;
    const lng = meta.geo_lng;
    venueData = {
      name: decode(venue.post.title),
      address,
      geo: typeof lat === 'number' && typeof lng === 'number' ? { lat, lng } : undefined,
    };
  }
  const organizer = organizers[0];
  const image = post.image_id === null ? undefined : bundle.images.get(post.image_id)?.url;
  const recurrence = storedRecurrence(event);
  return {
    uid: event.ical_uid ?? `${event.series_id ?? id}@${host}`,
    sequence: event.ical_sequence ?? 0,
    modifiedUtc: post.modified_utc,
    createdUtc: post.date_utc,
    timezone: event.timezone,
    allDay: event.all_day === 1,
    startLocal: event.start_local,
    endLocal: event.end_local,
    startUtc: event.start_utc,
    endUtc: event.end_utc,
    summary: decode(post.title),
    html: post.content,
    url: publicUrl(actor.config, post, effectiveStatus(postLike(post), nowUtc)),
    venue: venueData,
    organizer:
      organizer === undefined
        ? undefined
        : {
            name: decode(organizer.post.title),
            email: organizer.meta.email.trim(),
            url: publicUrl(actor.config, organizer.post, effectiveStatus(postLike(organizer.post), nowUtc)),
          },
    categories: (bundle.categories.get(id) ?? []).map(decode),
    status: STATUS[post.status] ?? 'CONFIRMED',
    image,
    recurrence: recurrence.length > 0 ? recurrence : undefined,
  };
}

/** `bundle` with the rows of `more` added (ids `bundle` lacks, so nothing of it is replaced). */
function mergeBundles(bundle: FeedBundle, more: FeedBundle): FeedBundle {
  const merged = <K, V>(a: Map<K, V>, b: Map<K, V>) => new Map([...a, ...b]);
  return {
    records: merged(bundle.records, more.records),
    venues: merged(bundle.venues, more.venues),
    organizerIds: merged(bundle.organizerIds, more.organizerIds),
    organizers: merged(bundle.organizers, more.organizers),
    categories: merged(bundle.categories, more.categories),
    images: merged(bundle.images, more.images),
  };
}

/**
 * The original starts (UTC) of the occurrences of these series other than their first, by series, cancelled ones left
 * out (a cancellation is an EXDATE of its series). One query.
 */
async function laterStartsUtc(db: Db, seriesIds: readonly number[]): Promise<Map<number, string[]>> {
  const starts = new Map<number, string[]>();
  if (seriesIds.length === 0) return starts;
  const rows = await db
    .selectFrom('events')
    .select(['series_id', 'occurrence_start_utc', 'overrides'])
    .where('series_id', 'in', unique(seriesIds))
    .whereRef('id', '!=', 'series_id')
    .orderBy('occurrence_start_utc')
    .execute();
  for (const row of rows) {
    if (row.occurrence_start_utc === null || storedOverrides(row).includes(CANCELLED)) continue;
    starts.set(row.series_id!, [...(starts.get(row.series_id!) ?? []), row.occurrence_start_utc]);
  }
  return starts;
}

/**
 * A timed series' lines in a UTC feed: every occurrence's original start as an RDATE in UTC, and no RRULE. A rule
 * repeats the wall-clock time of its DTSTART: from a DTSTART in UTC it would move every occurrence past a
 * daylight-saving change by an hour. The dates are those materialised (D25), so an open-ended series reaches
 * RECURRENCE_HORIZON_DAYS ahead, a horizon that moves on as the feed is read again. The first date (DTSTART) is
 * listed too: ical.js, and so FullCalendar, counts no DTSTART that a list of dates leaves out, and RFC 5545 counts a
 * date given twice once.
 */
const utcSeriesLines = (firstUtc: string, laterUtc: readonly string[]) =>
  [firstUtc, ...laterUtc].map((start) => `RDATE:${basicUtc(start)}`);

/** A series' row id, for an event row (null for a single event). */
const seriesOf = (bundle: FeedBundle, id: number): number | null => bundle.records.get(id)?.event.series_id ?? null;

/**
 * The entries of `ids`, loaded and serialised `LOAD_CHUNK` at a time (bounded memory, and the event loop gets a turn
 * between chunks). Events this caller may not see (protected) are skipped. An occurrence of a series stands for its
 * series (D25): one VEVENT with the series' RRULE/RDATE/EXDATE lines and dates, then one per edited occurrence with its
 * RECURRENCE-ID, each series once.
 */
export async function* feedEntries(
  store: Store,
  actor: Actor,
  ids: readonly number[],
  options: FeedOptions,
  plan?: EventListPlan,
): AsyncGenerator<IcalEntry> {
  const written = new Set<number>();
  const nowUtc = formatWp(actor.now);
  // The next chunk is read while this one is written (on PostgreSQL the queries' round trips then overlap the work).
  const chunkAt = (at: number) => ids.slice(at, at + LOAD_CHUNK);
  let upcoming: Promise<FeedBundle> | undefined = ids.length > 0 ? loadFeedBundle(store.db, chunkAt(0)) : undefined;
  for (let at = 0; at < ids.length; at += LOAD_CHUNK) {
    const chunk = chunkAt(at);
    let bundle = await upcoming!;
    upcoming = at + LOAD_CHUNK < ids.length ? loadFeedBundle(store.db, chunkAt(at + LOAD_CHUNK)) : undefined;
    // Handled here too, so that a consumer that stops early (a truncated feed) leaves no unhandled rejection.
    upcoming?.catch(() => {});
    const series = unique(
      chunk.map((id) => seriesOf(bundle, id)).filter((id): id is number => id !== null && !written.has(id)),
    );
    let exceptions = new Map<number, number[]>();
    let laterUtc = new Map<number, string[]>();
    if (series.length > 0) {
      [exceptions, laterUtc] = await Promise.all([
        seriesExceptionIds(store.db, series),
        options.utc ? laterStartsUtc(store.db, series) : new Map<number, string[]>(),
      ]);
      const extra = unique([...series, ...[...exceptions.values()].flat()]).filter((id) => !bundle.records.has(id));
      if (extra.length > 0) bundle = mergeBundles(bundle, await loadFeedBundle(store.db, extra));
    }
    for (const id of chunk) {
      const seriesId = seriesOf(bundle, id);
      const mainId = seriesId ?? id;
      // A cancelled occurrence is an EXDATE of its series, not an entry of its own.
      if (seriesId !== null && id !== seriesId && bundle.records.get(id)?.post.status === 'trash') continue;
      if (written.has(mainId) || !bundle.records.has(mainId) || !mayShow(actor, bundle, mainId, options)) continue;
      written.add(mainId);
      let event = icalEventOf(actor, bundle, mainId, options.host, plan);
      if (!event) continue;
      // All-day series keep their rule: dates have no zone to get wrong.
      if (options.utc && seriesId !== null && !event.allDay)
        event = { ...event, recurrence: utcSeriesLines(event.startUtc, laterUtc.get(seriesId) ?? []) };
      const hidden: string[] = [];
      const edited = (seriesId === null ? [] : (exceptions.get(seriesId) ?? [])).flatMap((exceptionId) => {
        const record = bundle.records.get(exceptionId);
        if (!record || record.post.status === 'trash') return [];
        if (
          !canReadPost(actor.viewer, 'event', postLike(record.post), nowUtc) ||
          !mayShow(actor, bundle, exceptionId, options)
        ) {
          // An occurrence this caller may not list (private, a draft, protected) leaves the series' dates as well: the
          // rule alone would still show it at its original time.
          const originalStart = record.event.occurrence_start_utc;
          if (originalStart !== null) hidden.push(exdateLine(originalStart, bundle.records.get(mainId)!.event));
          return [];
        }
        const exception = icalEventOf(actor, bundle, exceptionId, options.host);
        return exception
          ? [
              {
                ...exception,
                uid: event.uid,
                recurrence: undefined,
                recurrenceIdUtc: record.event.occurrence_start_utc ?? undefined,
              },
            ]
          : [];
      });
      yield {
        event: hidden.length === 0 ? event : { ...event, recurrence: [...(event.recurrence ?? []), ...hidden] },
        exceptions: edited,
      };
    }
  }
}
