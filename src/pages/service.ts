// D28: what the public pages read, through the same core as the JSON API: the event list plan and its two queries
// (list-query.ts, events/store.ts findEventPage), the batch loaders and the serializers. Pages always read as an
// anonymous reader (viewer null), whatever credentials came with the request: only what anyone may see.
import { planListRequest } from '../api/events/list-request.ts';
import { canAccessProtected, canReadPost } from '../domain/access.ts';
import { END_OF_DAY, formatWp, START_OF_DAY, utcToLocal } from '../domain/dates/stored-format.ts';
import type { RequestContext } from '../http/context.ts';
import type { DateCondition, EventListParams } from '../core/events/list-query.ts';
import { blankProtectedFields } from '../core/events/protected.ts';
import { loadEventBundle, serializeEvent } from '../core/events/serialize.ts';
import { findEventPage } from '../core/events/store.ts';
import { sameForEveryReader } from '../core/events/item-cache.ts';
import type { LinkedPostKind } from '../core/linked/kind.ts';
import { loadLinked, serializeLinked } from '../core/linked/serialize.ts';
import { postLike, publicUrl, statusOf } from '../core/posts/fields.ts';
import { findPostById, findPostBySlug, type PostRow } from '../core/posts/store.ts';
import { serializeTerms } from '../core/terms/service.ts';
import type { TaxonomyInfo } from '../core/terms/taxonomies.ts';
import { isRowId } from '../store/store.ts';
import { hasEffectiveStatus, visibleInList, type StatusColumns } from '../core/posts/visibility.ts';
import { publicTermUrl } from '../core/terms/serialize.ts';
import { loadHierarchy } from '../core/terms/store.ts';
import { TAXONOMIES } from '../core/terms/taxonomies.ts';
import type { SitemapEntry } from './sitemap.ts';
import { icalEventOf, loadFeedBundle, uidHost } from '../ical/feed.ts';
import { writeCalendar } from '../ical/write.ts';
import { trashedSlug } from '../domain/slugs.ts';
import { CANCELLED, storedOverrides, storedRecurrence } from '../core/events/series.ts';
import { parseRecurrence } from '../domain/recurrence/index.ts';
import { formatFloating, SECONDS_PER_DAY } from '../domain/recurrence/civil.ts';
import { decodeEntities } from './format.ts';
import { monthBounds } from './month.ts';
import { unlockMatches, unlockProof } from './unlock.ts';
import { eventPasswordTarget, guessPassword } from '../http/event-passwords.ts';
import {
  apiEvent,
  apiOrganizer,
  apiTerm,
  apiVenue,
  type ApiEvent,
  type ApiOrganizer,
  type ApiTerm,
  type ApiVenue,
} from './api-object.ts';

/** Where an error page sends the reader instead (the series of a cancelled date). */
export interface PageLink {
  href: string;
  text: string;
}

/**
 * A page that cannot be shown: 400 (the address cannot name a page), 403 (a protected event's file, without its
 * password), 404 (it names none anyone may see) or 410 (it named a date of a series that was cancelled).
 */
export class PageError extends Error {
  readonly status: 400 | 403 | 404 | 410;
  readonly heading: string;
  readonly link?: PageLink;
  constructor(status: 400 | 403 | 404 | 410, heading: string, message: string, link?: PageLink) {
    super(message);
    this.status = status;
    this.heading = heading;
    this.link = link;
  }
}

export const notFound = (message = 'There is no page at this address, or it is not public.') =>
  new PageError(404, 'Page not found', message);
export const badAddress = (message: string) => new PageError(400, 'Bad address', message);

/** What a slug may hold (slugify's output, the `__trashed` suffix, transliterated or not); at most 200 characters (D31). */
const SLUG = /^[\p{L}\p{N}\p{M}_.-]{1,200}$/u;

export function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) throw badAddress('This address holds characters that no page address has.');
  return slug;
}

/** `?page=` or `/page/N/`: a whole number from 1 (anything else is 400). */
export function parsePage(value: unknown): number {
  if (value === undefined) return 1;
  const text = Array.isArray(value) ? String(value[0]) : String(value);
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw badAddress('A page number is a whole number from 1.');
  return Number(text);
}

/** The anonymous reader every page reads as. */
export const anonymous = (ctx: RequestContext): RequestContext => ({ ...ctx, viewer: null });

const nowUtc = (ctx: RequestContext) => formatWp(ctx.now);

export interface ListedEvent {
  /** §3.1 list form; a protected event blanked as GET /events blanks it for anonymous readers (§3.10). */
  event: ApiEvent;
  locked: boolean;
  /** D25, in a list of one entry per series: how many more of the series' dates the list's window holds. */
  moreDates?: number;
}

export interface EventPage {
  events: ListedEvent[];
  total: number;
  page: number;
  perPage: number;
  pages: number;
}

/** Filters a page may set on the upcoming-events list, as GET /events takes them. */
export type PageFilters = Pick<EventListParams, 'venue' | 'organizer' | 'categories' | 'tags'>;

/**
 * One page of events, exactly as GET /events lists them to an anonymous reader (D19: published only; hidden events
 * left out), in its constant number of queries. `dates` replaces the default window (the month view); `perPage`
 * overrides the page size.
 */
export async function listEvents(
  ctx: RequestContext,
  filters: PageFilters,
  page: number,
  options: { dates?: DateCondition[]; perPage?: number; collapseSeries?: boolean } = {},
): Promise<EventPage> {
  // Pages read as an anonymous visitor, whatever the request's credentials.
  const plan = await planListRequest(ctx, { page, ...filters, collapse_series: options.collapseSeries }, null);
  if (options.dates) plan.dates = options.dates;
  if (options.perPage) plan.perPage = options.perPage;
  const { total, ids } = await findEventPage(ctx.store, ctx, plan);
  if (ids.length === 0 && page > 1) throw notFound('This list has fewer pages.');
  const bundle = await loadEventBundle(ctx.store.db, ctx, ids);
  const listed = ids.filter((id) => bundle.records.has(id));
  const seriesIds = listed.map((id) => bundle.records.get(id)!.event.series_id).filter((id) => id !== null);
  const seriesDates = plan.collapseSeries
    ? await countSeriesDates(ctx, seriesIds, plan.dates)
    : new Map<number, number>();
  const events = listed.map((id) => {
    const event = serializeEvent(ctx, bundle, id, { single: false });
    const locked = bundle.records.get(id)!.post.password !== '';
    const seriesId = bundle.records.get(id)!.event.series_id;
    const moreDates =
      seriesId === null || !plan.collapseSeries ? undefined : Math.max(0, (seriesDates.get(seriesId) ?? 1) - 1);
    return { event: apiEvent(locked ? blankProtectedFields(event) : event), locked, moreDates };
  });
  return { events, total, page, perPage: plan.perPage, pages: total === 0 ? 1 : Math.ceil(total / plan.perPage) };
}

/** Where occurrence rows keep the copies of their event's status, publication date and author. */
const OCCURRENCE_STATUS: StatusColumns = {
  status: 'occurrences.status',
  publishedUtc: 'occurrences.published_utc',
  author: 'occurrences.author_id',
};

/** The listed dates of series that anyone may see, as lists (and so the list's window) see them. */
function publicSeriesDates(ctx: RequestContext) {
  // OCCURRENCE_STATUS points visibleInList at the occurrences' copies of the columns it reads.
  return ctx.store.db
    .selectFrom('occurrences')
    .where('occurrences.hidden', '=', 0)
    .where((eb) => visibleInList(eb, null, ['publish'], nowUtc(ctx), OCCURRENCE_STATUS));
}

/** How many public dates each series has within `dates` (a list's window), in one query. */
async function countSeriesDates(
  ctx: RequestContext,
  seriesIds: readonly number[],
  dates: readonly DateCondition[],
): Promise<Map<number, number>> {
  if (seriesIds.length === 0) return new Map();
  let query = publicSeriesDates(ctx).where('occurrences.series_id', 'in', [...new Set(seriesIds)]);
  for (const condition of dates) {
    query = query.where(
      condition.column === 'start' ? 'occurrences.start_local' : 'occurrences.end_local',
      condition.operator,
      condition.value,
    );
  }
  const rows = await query
    .select((eb) => ['occurrences.series_id', eb.fn.countAll<number | string>().as('total')])
    .groupBy('occurrences.series_id')
    .execute();
  return new Map(rows.map((row) => [Number(row.series_id), Number(row.total)]));
}

/** An event page shows at most this many of its series' other upcoming dates. */
export const SERIES_DATES_SHOWN = 10;

export interface SeriesDates {
  /** The series' next public dates but this event's, in start order, at most {@link SERIES_DATES_SHOWN}. */
  dates: Array<{ slug: string; start_local: string; end_local: string; all_day: number }>;
  /** How many such dates there are in all. */
  total: number;
}

/** D25: the other dates of `event`'s series that have not ended, as anyone may see them (two queries). */
async function readSeriesDates(ctx: RequestContext, event: { id: number; series_id: number }): Promise<SeriesDates> {
  const others = publicSeriesDates(ctx)
    .where('occurrences.series_id', '=', event.series_id)
    .where('occurrences.event_id', '!=', event.id)
    .where('occurrences.end_utc', '>', nowUtc(ctx));
  const [dates, count] = await Promise.all([
    others
      .innerJoin('posts', 'posts.id', 'occurrences.event_id')
      .innerJoin('events', 'events.id', 'occurrences.event_id')
      .select(['posts.slug', 'occurrences.start_local', 'occurrences.end_local', 'events.all_day'])
      .orderBy('occurrences.start_local')
      .orderBy('occurrences.event_id')
      .limit(SERIES_DATES_SHOWN)
      .execute(),
    others.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { dates, total: Number(count.total) };
}

/** The month view reads at most this many events (the busiest months say how many more there are). */
export const MONTH_MAX_EVENTS = 300;

/** Every event of the month (by its own zone's wall clock) that an anonymous reader may list, in start order. */
export function listMonth(ctx: RequestContext, year: number, month: number): Promise<EventPage> {
  const { first, next } = monthBounds(year, month);
  return listEvents(ctx, {}, 1, {
    perPage: MONTH_MAX_EVENTS,
    dates: [
      { param: 'starts_before', column: 'start', operator: '<', value: `${next} ${START_OF_DAY}` },
      { param: 'ends_after', column: 'end', operator: '>', value: `${first} ${START_OF_DAY}` },
    ],
  });
}

export type EventView =
  | {
      locked: false;
      event: ApiEvent;
      post: PostRow;
      unlockedWith?: 'password' | 'cookie';
      /** D25: the other dates of the event's series, when it belongs to one. */
      seriesDates?: SeriesDates;
      /** Unlocked by the form's password: the value of the cookie that keeps it unlocked (unlock.ts). */
      unlockProof?: string;
      /** The page is the same for every reader until the event changes (core/events/item-cache.ts). */
      sameForEveryReader?: boolean;
    }
  | { locked: true; event: ApiEvent; post: PostRow; wrongPassword: boolean };

/**
 * The event as GET /events/by-slug/{slug} answers an anonymous reader (json_ld included). Trashed, draft, pending,
 * private or not-yet-published events are 404, as if they did not exist. A password-protected event is locked
 * (§3.10's blanked fields) unless the request brings its password (a POSTed form) or the unlock cookie.
 */
export async function readEvent(
  ctx: RequestContext,
  slug: string,
  access: { password?: unknown; cookies?: Record<string, string> } = {},
): Promise<EventView> {
  const post = await findPostBySlug(ctx.store.db, 'event', checkSlug(slug));
  if (!post || !canReadPost(null, 'event', postLike(post), nowUtc(ctx))) {
    // A cancelled occurrence took the `__trashed` suffix: its former address says so (410) rather than 404.
    const trashed = post ?? (await findPostBySlug(ctx.store.db, 'event', trashedSlug(slug)));
    throw (
      (trashed && (await cancelledOccurrence(ctx, trashed))) ?? notFound('There is no public event at this address.')
    );
  }
  const bundle = await loadEventBundle(ctx.store.db, ctx, [post.id], [post]);
  if (!bundle.records.has(post.id)) throw notFound('There is no public event at this address.');
  const serialized = serializeEvent(ctx, bundle, post.id, { single: true });
  const event = apiEvent(serialized);
  const seriesId = bundle.records.get(post.id)!.event.series_id;
  const seriesDates = seriesId === null ? undefined : await readSeriesDates(ctx, { id: post.id, series_id: seriesId });
  // A series' page lists its other dates, which change without this event changing: it is not kept with the event.
  if (post.password === '')
    return {
      locked: false,
      event,
      post,
      seriesDates,
      sameForEveryReader: seriesId === null && sameForEveryReader(bundle, post.id),
    };
  // D29: the form's password is a guess, counted against the event as GET /events/{id}?password= counts it (429 past
  // the limit, without checking it).
  if (
    access.password !== undefined &&
    (await guessPassword(ctx, eventPasswordTarget(post.id), () =>
      canAccessProtected({
        postPassword: post.password,
        suppliedPassword: access.password,
        contextEdit: false,
        canEdit: false,
      }),
    ))
  ) {
    return {
      locked: false,
      event,
      post,
      seriesDates,
      unlockedWith: 'password',
      unlockProof: await unlockProof(ctx.store, post),
    };
  }
  if (access.cookies && (await unlockMatches(ctx.store, post, access.cookies)))
    return { locked: false, event, post, seriesDates, unlockedWith: 'cookie' };
  const { json_ld: _hidden, ...listed } = blankProtectedFields(serialized);
  return { locked: true, event: apiEvent(listed), post, wrongPassword: access.password !== undefined };
}

/**
 * D25: the occurrences of the series `/event/<slug>/` that start on `date` (their own zone's wall-clock day), each as
 * {@link readEvent} reads it. The series' first occurrence is the event at `<slug>` itself; every other occurrence is an
 * event of its own whose slug the series gave it (`<slug>-<date>`, or `<slug>-<date>-<HHMM>` when a day has several:
 * core/events/series.ts), tied to the series by `series_id`. An empty answer is a 404.
 */
export async function readOccurrences(
  ctx: RequestContext,
  slug: string,
  date: string,
  access: { cookies?: Record<string, string> } = {},
): Promise<EventView[]> {
  checkSlug(slug);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(date) ||
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date
  ) {
    throw badAddress('An occurrence is named by its date, written YYYY-MM-DD.');
  }
  const series = await findPostBySlug(ctx.store.db, 'event', slug);
  if (!series) throw notFound('There is no public event at this address.');
  // The series' events that start that day, through the series index (a slug pattern would scan every event).
  const candidates = await ctx.store.db
    .selectFrom('events')
    .innerJoin('posts', 'posts.id', 'events.id')
    .select(['posts.id', 'posts.slug', 'posts.status', 'events.series_id', 'events.overrides'])
    .where((eb) => eb.or([eb('events.id', '=', series.id), eb('events.series_id', '=', series.id)]))
    .where('events.start_local', '>=', `${date} ${START_OF_DAY}`)
    .where('events.start_local', '<=', `${date} ${END_OF_DAY}`)
    .execute();
  const views: EventView[] = [];
  for (const candidate of candidates) {
    const view = await readEvent(ctx, candidate.slug, access).catch((error: unknown) => {
      if (error instanceof PageError) return undefined;
      throw error;
    });
    if (view) views.push(view);
  }
  if (views.length === 0) {
    const cancelled =
      canReadPost(null, 'event', postLike(series), nowUtc(ctx)) &&
      (candidates.some((candidate) => isCancelled(candidate)) || (await excludesDay(ctx, series.id, date)));
    throw cancelled ? cancelledError(ctx, series) : notFound('This event has no public occurrence on that day.');
  }
  return views.sort((a, b) => a.event.start_date.localeCompare(b.event.start_date));
}

/** An occurrence cancelled on its own (D25: trashed with the `cancelled` override), not one trashed with its series. */
const isCancelled = (row: { id: number; status: string; series_id: number | null; overrides: string }) =>
  row.status === 'trash' &&
  row.series_id !== null &&
  row.series_id !== row.id &&
  storedOverrides(row).includes(CANCELLED);

const cancelledError = (ctx: RequestContext, series: PostRow) =>
  new PageError(
    410,
    'This date was cancelled',
    "This date of the series was cancelled. Its other dates are on the series' page.",
    {
      href: new URL(publicUrl(ctx.config, series, statusOf(series, ctx.now))).pathname,
      text: `See ${decodeEntities(series.title)}`,
    },
  );

/**
 * Whether the series' EXDATE lines take out `date` (its own zone's day): a date deleted for good (D25: nothing is left
 * of the occurrence but that line), or left out when the series was written.
 */
async function excludesDay(ctx: RequestContext, seriesId: number, date: string): Promise<boolean> {
  const series = await ctx.store.db
    .selectFrom('events')
    .select(['recurrence', 'timezone', 'all_day', 'start_local', 'end_local'])
    .where('id', '=', seriesId)
    .where('series_id', '=', seriesId)
    .executeTakeFirst();
  if (!series) return false;
  const parsed = parseRecurrence(storedRecurrence(series), {
    timezone: series.timezone,
    allDay: series.all_day === 1,
    startLocal: series.start_local,
    endLocal: series.end_local,
  });
  if (!parsed.ok || parsed.recurrence === null) return false;
  return parsed.recurrence.exdates.some((value) => {
    if (value.kind === 'utc') return utcToLocal(value.utc, series.timezone).startsWith(date);
    return formatFloating(value.kind === 'date' ? value.days * SECONDS_PER_DAY : value.seconds).startsWith(date);
  });
}

/** The 410 of `post` when it is a cancelled occurrence of a series anyone may read; undefined otherwise. */
async function cancelledOccurrence(ctx: RequestContext, post: PostRow): Promise<PageError | undefined> {
  if (post.status !== 'trash') return undefined;
  const event = await ctx.store.db
    .selectFrom('events')
    .select(['id', 'series_id', 'overrides'])
    .where('id', '=', post.id)
    .executeTakeFirst();
  if (!event || !isCancelled({ ...event, status: post.status })) return undefined;
  const series = await findPostById(ctx.store.db, event.series_id!);
  if (!series || !canReadPost(null, 'event', postLike(series), nowUtc(ctx))) return undefined;
  return cancelledError(ctx, series);
}

/**
 * D25: one event's own date as an iCalendar file, without the rule of its series: what "add this date" adds. A date
 * of a series gets a UID of its own (`occurrence-<id>@<host>`), so that a calendar holding the series as well keeps
 * both rather than replacing the series with this one date; a single event keeps the UID its .ics has in the API.
 */
export async function dateCalendar(ctx: RequestContext, id: number): Promise<string> {
  const bundle = await loadFeedBundle(ctx.store.db, [id]);
  const host = uidHost(ctx.config.siteUrl);
  const event = icalEventOf(ctx, bundle, id, host)!;
  const uid = bundle.records.get(id)!.event.series_id === null ? event.uid : `occurrence-${id}@${host}`;
  const head = { prodId: `-//${host}//calendar-events//EN`, name: event.summary, timezone: ctx.config.siteTimezone };
  return (await writeCalendar(head, [{ event: { ...event, uid, recurrence: undefined } }])).text;
}

/** A venue or an organizer, told apart by its kind's type. */
export type LinkedItem = { type: 'venue'; item: ApiVenue } | { type: 'organizer'; item: ApiOrganizer };

/** A venue or organizer as GET by slug answers anonymous readers (json_ld included); 404 unless published. */
export async function readLinked(ctx: RequestContext, kind: LinkedPostKind, slug: string): Promise<LinkedItem> {
  const post = await findPostBySlug(ctx.store.db, kind.type, checkSlug(slug));
  if (!post || !canReadPost(null, kind.type, postLike(post), nowUtc(ctx)))
    throw notFound(`There is no public ${kind.type} at this address.`);
  const record = (await loadLinked(ctx.store.db, kind, [post.id])).get(post.id);
  if (!record) throw notFound(`There is no public ${kind.type} at this address.`);
  const object = serializeLinked(ctx, kind, record, { single: true });
  return kind.type === 'venue'
    ? { type: 'venue', item: apiVenue(object) }
    : { type: 'organizer', item: apiOrganizer(object) };
}

/**
 * A category (by the last slug of its nested path) or a tag, in the endpoint form of GET /categories/{id} (§3.4),
 * whose `url` is the canonical page address (a page asked under another path redirects there).
 */
export async function readTerm(ctx: RequestContext, info: TaxonomyInfo, slug: string): Promise<ApiTerm> {
  checkSlug(slug);
  const row = await ctx.store.db
    .selectFrom('terms')
    .selectAll()
    .where('taxonomy', '=', info.taxonomy)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound(`There is no ${info.hierarchical ? 'category' : 'tag'} at this address.`);
  return apiTerm((await serializeTerms(ctx.store.db, ctx, info, [row]))[0]);
}

/**
 * D28's sitemap lists the pages anyone may read and robots may index, kind by kind in this order, each by id: published
 * events without a password that are not hidden from listings, published venues and organizers, and the category and
 * tag pages that list a published event. A password form is `noindex`, and a hidden event asked not to be listed.
 */
const SITEMAP_KINDS = ['event', 'venue', 'organizer', 'event_category', 'event_tag'] as const;
type SitemapKind = (typeof SITEMAP_KINDS)[number];
type PostKind = Extract<SitemapKind, 'event' | 'venue' | 'organizer'>;
type TermKind = Exclude<SitemapKind, PostKind>;

const isTermKind = (kind: SitemapKind): kind is TermKind => kind === 'event_category' || kind === 'event_tag';

const sitemapTerms = (ctx: RequestContext, taxonomy: TermKind) =>
  ctx.store.db.selectFrom('terms').where('taxonomy', '=', taxonomy).where('published_count', '>', 0);

function sitemapPosts(ctx: RequestContext, type: PostKind) {
  const db = ctx.store.db;
  const posts = db
    .selectFrom('posts')
    .where('posts.type', '=', type)
    .where('posts.password', '=', '')
    .where((eb) => hasEffectiveStatus(eb, ['publish'], nowUtc(ctx)));
  return type === 'event'
    ? posts.where(
        'posts.id',
        'not in',
        db.selectFrom('events').select('events.id').where('events.hide_from_listings', '=', 1),
      )
    : posts;
}

/** How many URLs of each kind the sitemap lists (one query per kind), in the sitemap's order. */
export function sitemapCounts(ctx: RequestContext): Promise<Array<{ kind: SitemapKind; count: number }>> {
  return Promise.all(
    SITEMAP_KINDS.map(async (kind) => {
      const row = await (isTermKind(kind)
        ? sitemapTerms(ctx, kind).select((eb) => eb.fn.countAll<number | string>().as('total'))
        : sitemapPosts(ctx, kind).select((eb) => eb.fn.countAll<number | string>().as('total'))
      ).executeTakeFirstOrThrow();
      return { kind, count: Number(row.total) };
    }),
  );
}

/** The sitemap's URLs from position `offset` (0-based, across the kinds in order), at most `limit` of them. */
export async function sitemapEntries(
  ctx: RequestContext,
  counts: ReadonlyArray<{ kind: SitemapKind; count: number }>,
  offset: number,
  limit: number,
): Promise<SitemapEntry[]> {
  const entries: SitemapEntry[] = [];
  let skip = offset;
  for (const { kind, count } of counts) {
    const wanted = limit - entries.length;
    if (wanted === 0) break;
    if (skip >= count) {
      skip -= count;
      continue;
    }
    if (isTermKind(kind)) {
      const rows = await sitemapTerms(ctx, kind).selectAll().orderBy('id').limit(wanted).offset(skip).execute();
      const info = TAXONOMIES[kind];
      const hierarchy = info.hierarchical
        ? await loadHierarchy(
            ctx.store.db,
            rows.map((row) => row.parent_id),
          )
        : new Map();
      entries.push(...rows.map((row) => ({ url: publicTermUrl(ctx.config, info, row, hierarchy) })));
    } else {
      const rows = await sitemapPosts(ctx, kind)
        .select(['posts.slug', 'posts.modified_utc'])
        .orderBy('posts.id')
        .limit(wanted)
        .offset(skip)
        .execute();
      // D1: the pretty permalink of a published item.
      entries.push(
        ...rows.map((row) => ({ url: `${ctx.config.siteUrl}/${kind}/${row.slug}/`, modifiedUtc: row.modified_utc })),
      );
    }
    skip = 0;
  }
  return entries;
}

/** `?p=<id>`: the public page of a published event, venue or organizer; undefined for anything else. */
export async function permalink(ctx: RequestContext, id: number): Promise<string | undefined> {
  if (!isRowId(id)) return undefined;
  const post = await findPostById(ctx.store.db, id);
  if (!post || (post.type !== 'event' && post.type !== 'venue' && post.type !== 'organizer')) return undefined;
  if (!canReadPost(null, post.type, postLike(post), nowUtc(ctx))) return undefined;
  return publicUrl(ctx.config, post, statusOf(post, ctx.now));
}
