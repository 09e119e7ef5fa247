// D26 iCalendar out: `GET /events.ics` (every filter of `GET /events`) and `GET /events/{id}.ics`. Thin: the list plan,
// the feed's selection (ical/feed.ts) and the writer (ical/write.ts). ETag/304 and Cache-Control come from the
// plugins as for every GET (D22, D12): the tag is the hash of the bytes, so an unchanged feed answers 304.
import { planListRequest } from './list-request.ts';
import { canReadPost } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParams } from '../../http/errors.ts';
import { eventPasswordTarget, sentPassword, startPasswordGuess } from '../../http/event-passwords.ts';
import { entityTag, httpDate, noneMatchFails, NOT_MODIFIED } from '../../http/etag.ts';
import { hasParam } from '../../core/input/params.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { feedClockMovedBetween, feedEntries, feedWindow, selectFeed, uidHost } from '../../ical/feed.ts';
import type { FeedTags } from '../../ical/feed-tags.ts';
import { writeCalendar, type CalendarHead, type WrittenEntries } from '../../ical/write.ts';
import { loadPost } from '../../core/posts/input.ts';
import { postLike } from '../../core/posts/fields.ts';
import { coordinateIssue, DATE_PARAMS, type EventListPlan } from '../../core/events/list-query.ts';
import { eventListArgs, idArg, passwordArg } from '../../core/events/input.ts';
import { arg } from '../../core/input/args.ts';

export const ICAL_TYPE = 'text/calendar; charset=utf-8';

/**
 * How a feed is written, for readers that get the plain feed wrong: FullCalendar's iCalendar plugin reads a TZID time
 * as the viewer's local time, and shows cancelled events as any other.
 */
const feedFormatArgs = {
  utc: arg.boolean({
    description:
      'true (or 1): every time in UTC, with no TZID or VTIMEZONE (all-day events stay dates; a timed series is written as its dates, RDATE, up to RECURRENCE_HORIZON_DAYS ahead), for readers that misread TZID times, such as FullCalendar.',
    default: false,
  }),
  cancelled: arg.boolean({
    description:
      'false (or 0): leave cancelled (trashed) events out instead of listing them as STATUS:CANCELLED, for readers that show them as any other, such as FullCalendar. A series leaves its cancelled dates out either way.',
    default: true,
  }),
};

const head = (ctx: RequestContext, name: string, utc: boolean): CalendarHead => ({
  prodId: `-//${uidHost(ctx.config.siteUrl)}//calendar-events//EN`,
  name,
  timezone: ctx.config.siteTimezone,
  utc,
});

const icsHeaders = (filename: string, truncated: boolean): Record<string, string> => ({
  'Content-Disposition': `inline; filename="${filename}"`,
  ...(truncated ? { 'X-Truncated': 'true' } : {}),
});

const icsReply = (text: string, filename: string, truncated: boolean) => ({
  type: ICAL_TYPE,
  payload: text,
  headers: icsHeaders(filename, truncated),
});

/** The process's caches the feeds use (src/caches.ts). */
export interface FeedCaches {
  /** VEVENT texts, which feeds polled over and over mostly repeat. */
  entries: WrittenEntries;
  /** The tag each feed last had (ical/feed-tags.ts). */
  tags: FeedTags;
}

/**
 * What a feed's text depends on besides the data and the clock: the reader, the parameters (the defaults filled in)
 * and the dates the plan reads, which the default window takes from the day. Undefined for a feed whose request sends
 * an event password: each such request is a guess to count (D29), and its answer is never remembered.
 */
function feedTagKey(ctx: RequestContext, params: Record<string, unknown>, plan: EventListPlan): string | undefined {
  if (sentPassword(params.password as string | undefined)) return undefined;
  return JSON.stringify([ctx.viewer?.id ?? null, ctx.viewer?.role ?? null, params, plan.dates]);
}

const ICS_RESPONSE = (description: string) => ({ description, mediaType: 'text/calendar' });

/**
 * D22: a poll whose If-None-Match holds the tag this feed last had, at the data version still current and with the
 * clock having changed nothing the feed shows, is answered 304 without selecting or writing the feed; every feed
 * written is tagged here (the conditional plugin keeps a tag it is given) and remembered.
 */
const feed = ({ entries: written, tags }: FeedCaches) =>
  endpoint({
    methods: ['GET'],
    summary: 'Subscribe to events: the events GET /events lists, as an iCalendar feed',
    responses: {
      200: ICS_RESPONSE(
        'An RFC 5545 calendar (text/calendar): every matching event from 30 days ago on (unless dates are given), at most ICAL_MAX_EVENTS (then X-Truncated: true), events trashed within 30 days as STATUS:CANCELLED (unless cancelled=0).',
      ),
      ...NOT_MODIFIED,
      400: { description: 'Invalid parameter.' },
    },
    args: { ...eventListArgs, ...feedFormatArgs },
    async handler(ctx, params, raw) {
      const issue = coordinateIssue(params);
      if (issue) throw invalidParams(issue);
      let plan = await planListRequest(ctx, params);
      if (!DATE_PARAMS.some((name) => hasParam(raw, name)) && params.include === undefined)
        plan = feedWindow(plan, ctx);
      // D25: a series is one VEVENT (with its rule and edited occurrences), however many of its occurrences match.
      plan = { ...plan, collapseSeries: true };
      const key = feedTagKey(ctx, params, plan);
      // Read before anything of the feed is: a write committed while it is written leaves the tag stale, never wrong.
      const version = key === undefined ? undefined : (ctx.dataVersion ?? (await ctx.store.dataVersion()));
      const known = key === undefined ? undefined : tags.get(key);
      if (
        known !== undefined &&
        known.version === version &&
        ctx.ifNoneMatch !== undefined &&
        noneMatchFails(ctx.ifNoneMatch, known.tag) &&
        !(await feedClockMovedBetween(ctx.store, known.at, ctx.now))
      )
        return { status: 304, headers: { ...icsHeaders('events.ics', known.truncated), ETag: known.tag } };
      const max = ctx.config.ical.maxEvents;
      const selection = await selectFeed(ctx.store, ctx, plan, max, params.cancelled);
      const options = { host: uidHost(ctx.config.siteUrl), password: params.password, utc: params.utc };
      const entries = feedEntries(ctx.store, ctx, [...selection.active, ...selection.cancelled], options, plan);
      const { text, truncated } = await writeCalendar(
        head(ctx, ctx.config.siteName, params.utc),
        entries,
        ctx.config.deadlines.maxResponseBytes,
        written,
      );
      const tag = entityTag(ICAL_TYPE, text);
      const cut = selection.truncated || truncated;
      if (key !== undefined && version !== undefined) tags.remember(key, { tag, version, at: ctx.now, truncated: cut });
      const reply = icsReply(text, 'events.ics', cut);
      return { ...reply, headers: { ...reply.headers, ETag: tag } };
    },
  });

/** GET by id's refusals (§5.1); a password-protected event is refused later, when it is left out of the file (D26). */
function refusal(ctx: RequestContext, post: NonNullable<Awaited<ReturnType<typeof loadPost>>>): ApiError | undefined {
  const nowUtc = formatWp(ctx.now);
  if (post.status === 'trash')
    return new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  if (!canReadPost(ctx.viewer, 'event', postLike(post), nowUtc))
    return new ApiError(403, 'event-not-accessible', 'The requested event is not accessible');
  return undefined;
}

const single = (written: WrittenEntries) =>
  endpoint({
    methods: ['GET'],
    summary: 'Get one event as an iCalendar file',
    responses: {
      200: ICS_RESPONSE(
        'An RFC 5545 calendar (text/calendar) holding the event (a series: with its edited occurrences).',
      ),
      ...NOT_MODIFIED,
      400: { description: 'Not an event.' },
      403: { description: 'Trashed, not accessible, or password-protected.' },
      404: { description: 'No such id.' },
    },
    // `cancelled` is accepted as on the feed, so that one set of options fits both: a trashed event is refused here anyway.
    args: { ...idArg, password: passwordArg, ...feedFormatArgs },
    async handler(ctx, params) {
      const post = await loadPost(ctx, params.id);
      if (!post) throw new ApiError(404, 'rest-event-not-found', `Event with ID ${params.id} does not exist.`);
      if (post.type !== 'event')
        throw new ApiError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');
      const refused = refusal(ctx, post);
      if (refused) throw refused;
      // D29: a password sent to a protected event is a guess, counted before it is checked (http/event-passwords.ts).
      const guess =
        post.password !== '' && sentPassword(params.password)
          ? await startPasswordGuess(ctx, eventPasswordTarget(post.id))
          : undefined;
      const options = { host: uidHost(ctx.config.siteUrl), password: params.password, utc: params.utc };
      const entries = [];
      for await (const entry of feedEntries(ctx.store, ctx, [post.id], options)) entries.push(entry);
      await guess?.settle(entries.length > 0);
      if (entries.length === 0) {
        throw new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password');
      }
      const { text } = await writeCalendar(
        head(ctx, post.title, params.utc),
        entries,
        Number.POSITIVE_INFINITY,
        written,
      );
      const reply = icsReply(text, `${post.slug || 'event'}.ics`, false);
      // D22: Last-Modified where the item has a modified_utc.
      const modified = httpDate(post.modified_utc);
      return modified === undefined ? reply : { ...reply, headers: { ...reply.headers, 'Last-Modified': modified } };
    },
  });

export function feedRoutes(caches: FeedCaches): RouteGroup[] {
  return [
    { path: '/events.ics', pattern: '/events.ics', endpoints: [feed(caches)] },
    { path: '/events/:id(^\\d+).ics', pattern: '/events/(?P<id>\\d+).ics', endpoints: [single(caches.entries)] },
  ];
}
