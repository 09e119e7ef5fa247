// D25 recurring events, kept the way the reference's add-on keeps them: every occurrence is an event of its own (its
// posts, events and occurrences rows, its venue, organizers and terms), tied to the series by `events.series_id`. The
// series is its first occurrence's row, which holds the RFC 5545 lines; every other occurrence is materialised from it
// here, and nowhere else. Lists, filters, totals, sync, webhooks, feeds and pages therefore see occurrences without
// any code of their own, and a list page stays one indexed query however many occurrences there are.
//
// An occurrence edited on its own (an exception) records the fields edited on it in `overrides`: series edits leave
// those alone. A cancelled occurrence is trashed with the `cancelled` override and its start becomes an EXDATE.
//
// What a series write does to its occurrences is decided by the pure series plan (domain/recurrence/series-plan.ts):
// this module reads the series and its members, asks for the plan, and applies it through the repositories.
import { parseStringList } from '../../domain/lists.ts';
import type { Insertable } from 'kysely';
import { recordChange, recordChanges, type ChangeAction } from '../change-log/log.ts';
import type { Actor } from '../../domain/actor.ts';
import { basicUtc, formatWp, parseWp, utcToLocal } from '../../domain/dates/stored-format.ts';
import { timezoneAbbr } from '../../domain/dates/zones.ts';
import { invalidField } from '../../domain/errors.ts';
import {
  CANCELLED,
  expandForMaterialising,
  extensionDue,
  materialiseHorizon,
  parseRecurrence,
  planSeriesSync,
  planSplit,
  RECURRENCE_ERROR_CODE,
  type Materialised,
  type MaterialiseLimits,
  type OccurrenceTimes,
  type ParsedRecurrence,
  type PlannedSeries,
  type SeriesPlan,
  type SeriesStart,
} from '../../domain/recurrence/index.ts';
import { trashedSlug, untrashedSlug } from '../../domain/slugs.ts';
import { chunks } from '../../store/chunks.ts';
import type { EventsTable, PostsTable } from '../../store/schema.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import { storeOf, type Db, type Store, type Trx } from '../../store/store.ts';
import { lockItems } from '../item-locks.ts';
import { rebuildOccurrences, refreshListing } from '../occurrences/store.ts';
import { nowStamp } from '../posts/fields.ts';
import {
  claimPost,
  createPosts,
  deletePostsForever,
  listedBeforeWrite,
  restorePosts,
  trashPosts,
} from '../posts/lifecycle.ts';
import { deletePostRows, updatePosts } from '../posts/store.ts';
import { copySeriesTerms } from '../terms/store.ts';
import type { EventSchedule } from './schedule.ts';
import {
  copySeriesOrganizers,
  insertEventRows,
  linkedItemsOf,
  setSeriesLines,
  updateEachEventRow,
  updateEventRow,
  updateEventRows,
  type EventRow,
} from './store.ts';

export { CANCELLED };

/** What an exception may override, by the input fields that set it (D25 "Writing"). */
const OVERRIDE_OF_INPUT: Record<string, string> = {
  title: 'title',
  description: 'description',
  excerpt: 'excerpt',
  password: 'password',
  author: 'author',
  image: 'image',
  status: 'status',
  date: 'date',
  date_utc: 'date',
  cost: 'cost',
  website: 'website',
  show_map: 'show_map',
  show_map_link: 'show_map_link',
  hide_from_listings: 'hide_from_listings',
  sticky: 'sticky',
  featured: 'featured',
  venue: 'venue',
  organizer: 'organizer',
  categories: 'categories',
  tags: 'tags',
  start_date: 'dates',
  end_date: 'dates',
  all_day: 'dates',
  timezone: 'dates',
};

/** The columns each override (or series-wide field) covers on the posts and events rows. */
const POST_COLUMNS: Record<string, ReadonlyArray<keyof PostsTable>> = {
  title: ['title'],
  description: ['content'],
  excerpt: ['excerpt'],
  password: ['password'],
  author: ['author_id'],
  image: ['image_id'],
  status: ['status'],
  date: ['date_local', 'date_utc'],
};
const EVENT_COLUMNS: Record<string, ReadonlyArray<keyof EventsTable>> = {
  cost: ['cost_values', 'currency_symbol', 'currency_position'],
  website: ['website'],
  show_map: ['show_map'],
  show_map_link: ['show_map_link'],
  hide_from_listings: ['hide_from_listings'],
  sticky: ['sticky'],
  featured: ['featured'],
  venue: ['venue_id'],
};

/** The overrides an occurrence write sets: one per field it sent. */
export function overridesOf(input: Record<string, unknown>): string[] {
  return [
    ...new Set(
      Object.keys(input).flatMap((key) => (OVERRIDE_OF_INPUT[key] === undefined ? [] : [OVERRIDE_OF_INPUT[key]])),
    ),
  ];
}

export const storedOverrides = (event: Pick<EventRow, 'overrides'>): string[] =>
  event.overrides === '' ? [] : parseStringList(event.overrides);
export const storedRecurrence = (event: Pick<EventRow, 'recurrence'>): string[] =>
  event.recurrence === '' ? [] : parseStringList(event.recurrence);

/** Is this row an occurrence of a series other than the series' own (first) one? */
export const isOccurrence = (event: Pick<EventRow, 'id' | 'series_id'>) =>
  event.series_id !== null && event.series_id !== event.id;

const seriesStart = (
  schedule: Pick<EventSchedule, 'timezone' | 'allDay' | 'startLocal' | 'endLocal'>,
): SeriesStart => ({
  timezone: schedule.timezone,
  allDay: schedule.allDay,
  startLocal: schedule.startLocal,
  endLocal: schedule.endLocal,
});

/** D25's 400 on `recurrence`: rest_invalid_param with details.recurrence.code rest_invalid_recurrence. */
export const invalidRecurrence = (message: string) =>
  invalidField('recurrence', { code: RECURRENCE_ERROR_CODE, message, data: { param: 'recurrence' } });

/** A `recurrence` input read against the series' schedule: null for a single event ([] or ""); 400 when invalid. */
export function readRecurrence(input: unknown, schedule: EventSchedule): ParsedRecurrence | null {
  const parsed = parseRecurrence(input, seriesStart(schedule));
  if (!parsed.ok) throw invalidRecurrence(`${parsed.line}: ${parsed.message}`);
  return parsed.recurrence;
}

const nowUtc = (actor: Actor) => formatWp(actor.now.toUTC());

/** How a series starting at `startUtc` is materialised now: RECURRENCE_HORIZON_DAYS ahead, RECURRENCE_MAX_OCCURRENCES. */
const limitsFor = (actor: Actor, startUtc: string): MaterialiseLimits => ({
  horizonUtc: materialiseHorizon(nowUtc(actor), startUtc, actor.config.recurrence.horizonDays),
  maxOccurrences: actor.config.recurrence.maxOccurrences,
});

/** The occurrences materialised (a 400 when there would be too many). */
function materialised(expansion: Materialised) {
  if (!expansion.ok) throw invalidRecurrence(expansion.message);
  return expansion;
}

type SeriesSchedule = Pick<EventSchedule, 'timezone' | 'allDay' | 'startLocal' | 'endLocal' | 'startUtc'>;

/**
 * The occurrences of a series being written (400 past RECURRENCE_MAX_OCCURRENCES in all): every one of its finite
 * rules (COUNT or UNTIL) and extra dates (RDATE), however far ahead, those of open-ended rules up to the horizon; and
 * how far that is when the series goes on.
 */
export function expandSeries(actor: Actor, recurrence: ParsedRecurrence, schedule: SeriesSchedule) {
  return materialised(expandForMaterialising(recurrence, seriesStart(schedule), limitsFor(actor, schedule.startUtc)));
}

/**
 * The most occurrences a stored rule is expanded to. RECURRENCE_MAX_OCCURRENCES is checked when a rule is written; as
 * days pass, the horizon moves and an open-ended series outgrows it (a daily one by a day a day): following it must
 * not fail, nor fail the list that brings the series up to the horizon.
 */
const STORED_RULE_CEILING = 100_000;

/** A series' own schedule, as its row stores it. */
const storedScheduleOf = (series: EventRow) => ({
  timezone: series.timezone,
  allDay: series.all_day === 1,
  startLocal: series.start_local,
  endLocal: series.end_local,
  startUtc: series.start_utc,
});

/** A series' stored lines, parsed (they were checked when written). */
function parseStored(series: EventRow): ParsedRecurrence {
  const parsed = parseRecurrence(storedRecurrence(series), seriesStart(storedScheduleOf(series)));
  if (!parsed.ok || parsed.recurrence === null)
    throw invalidRecurrence(parsed.ok ? 'recurrence: empty' : `${parsed.line}: ${parsed.message}`);
  return parsed.recurrence;
}

/**
 * How a series' stored rule is materialised: as {@link expandSeries} does; past RECURRENCE_MAX_OCCURRENCES, up to the
 * horizon only, with STORED_RULE_CEILING: an open-ended series that outgrew the maximum as days passed, or a finite
 * rule stored before finite rules were materialised in full (which may hold far more), goes on as it was.
 */
const storedLimitsFor = (actor: Actor, series: EventRow): MaterialiseLimits => ({
  ...limitsFor(actor, series.start_utc),
  storedCeiling: STORED_RULE_CEILING,
});

/** The occurrences of a series' stored rule, materialised. */
const expandStored = (actor: Actor, series: EventRow) =>
  materialised(
    expandForMaterialising(parseStored(series), seriesStart(storedScheduleOf(series)), storedLimitsFor(actor, series)),
  );

/** The series' own row, as the plan sees it. */
const plannedSeries = (series: EventRow): PlannedSeries => ({
  timezone: series.timezone,
  allDay: series.all_day === 1,
  startUtc: series.start_utc,
});

const readSeries = (trx: Trx, seriesId: number) =>
  trx.selectFrom('events').selectAll().where('id', '=', seriesId).executeTakeFirstOrThrow();

interface SeriesMember {
  id: number;
  occurrenceStartUtc: string;
  overrides: string[];
  status: string;
  /** With `status`, who may list it (the change log's ListedBefore). */
  authorId: number;
  publishedUtc: string;
  slug: string;
  startLocal: string;
  endLocal: string;
  allDay: boolean;
  timezone: string;
}

/** The series' occurrences other than its own row. */
async function seriesMembers(trx: Trx, seriesId: number): Promise<SeriesMember[]> {
  const rows = await trx
    .selectFrom('events')
    .innerJoin('posts', 'posts.id', 'events.id')
    .select([
      'events.id',
      'events.occurrence_start_utc',
      'events.overrides',
      'posts.status',
      'posts.author_id',
      'posts.date_utc',
      'posts.slug',
      'events.start_local',
      'events.end_local',
      'events.all_day',
      'events.timezone',
    ])
    .where('events.series_id', '=', seriesId)
    .where('events.id', '!=', seriesId)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    occurrenceStartUtc: row.occurrence_start_utc ?? '',
    overrides: storedOverrides(row),
    status: row.status,
    authorId: row.author_id,
    publishedUtc: row.date_utc,
    slug: row.slug,
    startLocal: row.start_local,
    endLocal: row.end_local,
    allDay: row.all_day === 1,
    timezone: row.timezone,
  }));
}

/** Members logged with who could list each before this write (read before it changed them). */
function logMembers(trx: Trx, actor: Actor, members: readonly SeriesMember[], action: ChangeAction): void {
  for (const member of members)
    recordChange(trx, { type: 'event', id: member.id, action, before: listedBeforeWrite(member, actor) });
}

/** What a series write did to its occurrences, for the answer and the change log (already logged). */
export interface SeriesOutcome {
  created: number[];
  updated: number[];
  deleted: number[];
}

/**
 * Brings a series' occurrences in line with its own row (after a create, or an edit of its rule or dates, or when the
 * horizon moves): see planSeriesSync. Everything is logged.
 */
export async function syncSeries(trx: Trx, _store: Store, actor: Actor, seriesId: number): Promise<SeriesOutcome> {
  const series = await readSeries(trx, seriesId);
  const rule = expandStored(actor, series);
  const members = await seriesMembers(trx, seriesId);
  return applyPlan(trx, actor, series, planSeriesSync(plannedSeries(series), rule, members), members);
}

/**
 * A plan applied to the series (`series` is its row as the new occurrences copy it) and logged: the series' horizon,
 * the members deleted, the members moved, the new occurrences. `members` are those the plan was made of.
 */
async function applyPlan(
  trx: Trx,
  actor: Actor,
  series: EventRow,
  plan: SeriesPlan,
  members: readonly SeriesMember[],
): Promise<SeriesOutcome> {
  await updateEventRow(trx, series.id, { series_horizon_utc: plan.horizonUtc, occurrence_start_utc: series.start_utc });
  const deletedIds = new Set(plan.delete);
  const deleted = members.filter((member) => deletedIds.has(member.id));
  const updated = plan.move.map(({ id }) => id);
  // Deleted first, so that their slugs are free for the new occurrences; logged last, as a series write always was.
  await deletePostRows(trx, plan.delete);
  await updateEachEventRow(
    trx,
    plan.move.map(({ id, times }) => ({ id, values: occurrenceDates(series, times) })),
  );
  const created = await materialise(trx, actor, series, plan.create);
  await rebuildOccurrences(trx, updated);
  // New times change nobody's right to list an occurrence.
  recordChanges(trx, 'event', updated, 'updated');
  logMembers(trx, actor, deleted, 'deleted');
  return { created, updated, deleted: plan.delete };
}

type ScheduleColumns = Pick<
  EventsTable,
  'timezone' | 'timezone_abbr' | 'all_day' | 'start_local' | 'end_local' | 'start_utc' | 'end_utc'
>;

/** An occurrence's schedule columns: its own times, the series' zone (its abbreviation at that start) and kind. */
function occurrenceDates(series: EventRow, times: OccurrenceTimes): ScheduleColumns {
  return {
    timezone: series.timezone,
    timezone_abbr: timezoneAbbr(series.timezone, parseWp(times.startLocal, series.timezone)),
    all_day: series.all_day,
    start_local: times.startLocal,
    end_local: times.endLocal,
    start_utc: times.startUtc,
    end_utc: times.endUtc,
  };
}

/**
 * A new occurrence's slug base: the series' slug and its local date, with the time too when the series has several
 * occurrences on one day (the page `/event/<slug>/` of an occurrence is then its own).
 */
function slugBases(seriesSlug: string, times: readonly OccurrenceTimes[]): string[] {
  const perDay = new Map<string, number>();
  for (const { startLocal } of times)
    perDay.set(startLocal.slice(0, 10), (perDay.get(startLocal.slice(0, 10)) ?? 0) + 1);
  const base = untrashedSlug(seriesSlug);
  return times.map(({ startLocal }) => {
    const day = startLocal.slice(0, 10);
    return perDay.get(day)! > 1
      ? `${base}-${day}-${startLocal.slice(11, 13)}${startLocal.slice(14, 16)}`
      : `${base}-${day}`;
  });
}

/**
 * New occurrences of a series at `times`, copied from the series' rows (post, event, organizers, terms) in a few
 * statements whatever their number; logged as created. Their ids come from the shared post sequence (D1b).
 */
async function materialise(
  trx: Trx,
  actor: Actor,
  series: EventRow,
  times: readonly OccurrenceTimes[],
): Promise<number[]> {
  if (times.length === 0) return [];
  const seriesId = series.id;
  const post = await trx.selectFrom('posts').selectAll().where('id', '=', seriesId).executeTakeFirstOrThrow();
  const stamp = nowStamp(actor.now, actor.config.siteTimezone);
  const trashed = post.status === 'trash';
  const ids = await createPosts(
    trx,
    'event',
    slugBases(post.slug, times).map((base) => ({
      author_id: post.author_id,
      status: post.status,
      status_before_trash: post.status_before_trash,
      slugBase: trashed ? trashedSlug(base) : base,
      title: post.title,
      content: post.content,
      excerpt: post.excerpt,
      password: post.password,
      image_id: post.image_id,
      parent_id: post.parent_id,
      date_local: post.date_local,
      date_utc: post.date_utc,
      modified_local: stamp.local,
      modified_utc: stamp.utc,
    })),
  );
  const {
    id: _id,
    series_id: _series,
    overrides: _overrides,
    series_horizon_utc: _horizon,
    occurrence_start_utc: _start,
    ...copied
  } = { ...series, venue_id: await lockSeriesLinks(trx, series) };
  await insertEventRows(
    trx,
    times.map(
      (occurrence, index): Insertable<EventsTable> => ({
        ...copied,
        ...occurrenceDates(series, occurrence),
        id: ids[index],
        series_id: seriesId,
        occurrence_start_utc: occurrence.startUtc,
        overrides: '',
        // D26: the series' UID and import digest name the series (its own row); an occurrence is found by its start.
        ical_uid: null,
        ical_hash: null,
        ical_sequence: 0,
      }),
    ),
  );
  for (const chunk of chunks(ids)) {
    await copySeriesOrganizers(trx, seriesId, chunk);
    await copySeriesTerms(trx, seriesId, chunk, ['event_category', 'event_tag']);
  }
  await rebuildOccurrences(trx, ids);
  return ids;
}

/**
 * The series' venue and organizers, locked as an event write locks what it links (events/service.ts lockLinkedItems),
 * before new occurrences copy them: an edit of one of them at the same time then either lists the new occurrences
 * among the events that embed it (and logs them after itself), or has committed before they copy it. Without the
 * lock, an edit could list the venue's events before the occurrences commit and commit after them: a syncing client
 * would keep them with the venue as it was. Answers the series' venue as it stands once locked (a trash or delete in
 * between takes it off the series). The horizon job and date changes create occurrences too, linking nothing themselves.
 */
async function lockSeriesLinks(trx: Trx, series: EventRow): Promise<number | null> {
  // SQLite's single writer: nobody else writes meanwhile.
  if (storeOf(trx).writers === 'one') return series.venue_id;
  const before = await linkedItemsOf(trx, series.id);
  await lockItems(trx, [...(before.venueId === null ? [] : [before.venueId]), ...before.organizerIds]);
  return (await linkedItemsOf(trx, series.id)).venueId;
}

/**
 * After a write of the series' own row: the `fields` it changed (overridesOf the input, without its dates) are copied
 * onto every occurrence that did not edit that field itself, with the series' lines; cancelled occurrences are left
 * alone. Logged as updated.
 */
export async function copySeriesFields(
  trx: Trx,
  actor: Actor,
  seriesId: number,
  fields: readonly string[],
  alreadyLogged: ReadonlySet<number>,
): Promise<void> {
  const members = (await seriesMembers(trx, seriesId)).filter((member) => !member.overrides.includes(CANCELLED));
  if (members.length === 0) return;
  const stamp = nowStamp(actor.now, actor.config.siteTimezone);
  // Members with the same overrides take the same copy: usually one group, all of them.
  const groups = new Map<string, { fields: string[]; ids: number[] }>();
  for (const member of members) {
    const key = JSON.stringify(member.overrides);
    const group = groups.get(key) ?? { fields: fields.filter((field) => !member.overrides.includes(field)), ids: [] };
    group.ids.push(member.id);
    groups.set(key, group);
  }
  const series = await trx
    .selectFrom('posts')
    .innerJoin('events', 'events.id', 'posts.id')
    .selectAll()
    .where('posts.id', '=', seriesId)
    .executeTakeFirstOrThrow();
  for (const { fields: copied, ids } of groups.values()) {
    const postSet: Record<string, unknown> = { modified_local: stamp.local, modified_utc: stamp.utc };
    const eventSet: Record<string, unknown> = { recurrence: series.recurrence };
    for (const field of copied) {
      for (const column of POST_COLUMNS[field] ?? []) postSet[column] = series[column];
      for (const column of EVENT_COLUMNS[field] ?? []) eventSet[column] = series[column];
    }
    for (const chunk of chunks(ids)) {
      await updatePosts(trx, chunk, postSet);
      await updateEventRows(trx, chunk, eventSet);
      if (copied.includes('organizer')) await copySeriesOrganizers(trx, seriesId, chunk);
      await copySeriesTerms(trx, seriesId, chunk, [
        ...(copied.includes('categories') ? ['event_category' as const] : []),
        ...(copied.includes('tags') ? ['event_tag' as const] : []),
      ]);
    }
  }
  await refreshListing(
    trx,
    members.map((member) => member.id),
  );
  // The status, author or publication date copied may change who lists them.
  logMembers(
    trx,
    actor,
    members.filter((member) => !alreadyLogged.has(member.id)),
    'updated',
  );
}

/**
 * The whole series to the trash with the series' row (already trashed): every occurrence that is not already
 * trashed, with the `__trashed` slug. Logged as trashed.
 */
export async function trashSeriesMembers(trx: Trx, actor: Actor, seriesId: number): Promise<void> {
  const members = (await seriesMembers(trx, seriesId)).filter((member) => member.status !== 'trash');
  await trashPosts(trx, actor, 'event', members);
  await refreshListing(
    trx,
    members.map((member) => member.id),
  );
}

/** The series restored with its row: every trashed occurrence but the cancelled ones takes the series' status. */
export async function restoreSeriesMembers(trx: Trx, actor: Actor, seriesId: number, status: string): Promise<void> {
  const members = (await seriesMembers(trx, seriesId)).filter(
    (member) => member.status === 'trash' && !member.overrides.includes(CANCELLED),
  );
  await restorePosts(trx, actor, 'event', members, status);
  await refreshListing(
    trx,
    members.map((member) => member.id),
  );
}

/** Every id in the series, its own row first. */
async function seriesIds(trx: Trx, seriesId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('events')
    .select('id')
    .where('series_id', '=', seriesId)
    .where('id', '!=', seriesId)
    .execute();
  return [seriesId, ...rows.map((row) => row.id)];
}

/** The whole series gone for good: its occurrences (its own row is deleted by the caller). */
export async function deleteSeriesMembers(trx: Trx, actor: Actor, seriesId: number): Promise<void> {
  await deletePostsForever(trx, actor, 'event', await seriesMembers(trx, seriesId));
}

/** The EXDATE value of an occurrence's original start: the UTC instant, or the day of an all-day series. */
export function exdateLine(occurrenceStartUtc: string, series: Pick<EventRow, 'all_day' | 'timezone'>): string {
  if (series.all_day === 1)
    return `EXDATE;VALUE=DATE:${utcToLocal(occurrenceStartUtc, series.timezone).slice(0, 10).replace(/-/g, '')}`;
  return `EXDATE:${basicUtc(occurrenceStartUtc)}`;
}

/** A series' lines with `line` added (cancel) or removed (restore of a cancelled occurrence), on every row of it. */
export async function setExdate(
  trx: Trx,
  seriesId: number,
  occurrenceStartUtc: string,
  present: boolean,
): Promise<void> {
  const series = await readSeries(trx, seriesId);
  const line = exdateLine(occurrenceStartUtc, series);
  const lines = storedRecurrence(series).filter((existing) => existing !== line);
  if (present) lines.push(line);
  await setSeriesLines(trx, seriesId, lines);
  // Every occurrence shows the series' lines: each one changed.
  recordChanges(trx, 'event', await seriesIds(trx, seriesId), 'updated');
}

const seriesIdOf = preparedQuery((db, id: number) =>
  db.selectFrom('events').select(['id', 'series_id']).where('id', '=', id),
);

/**
 * Before any write of an event: when it is an occurrence, its series' post row is claimed first, as a write of the
 * series claims it, so that series-wide writes and writes of one occurrence take turns and always lock in the same
 * order (series, then occurrence): no deadlock.
 */
export async function lockSeriesOf(trx: Trx, id: number): Promise<void> {
  const row = await seriesIdOf.first(trx, id);
  if (row && isOccurrence(row)) await claimPost(trx, row.series_id!);
}

/** The occurrence's overrides with `added` (and without `removed`). */
export async function setOverrides(
  trx: Trx,
  event: EventRow,
  added: readonly string[],
  removed: readonly string[] = [],
): Promise<void> {
  const overrides = [...new Set([...storedOverrides(event), ...added])]
    .filter((field) => !removed.includes(field))
    .sort();
  await updateEventRow(trx, event.id, { overrides: overrides.length === 0 ? '' : JSON.stringify(overrides) });
}

/** Logs an update of the series' own row when nothing else did (its rule changed without a post write). */
const logSeriesRow = (trx: Trx, seriesId: number) =>
  recordChange(trx, { type: 'event', id: seriesId, action: 'updated' });

/**
 * Open-ended series are materialised up to RECURRENCE_HORIZON_DAYS ahead; as days pass, each one whose horizon fell
 * behind is extended, here, without any client write (the new occurrences are logged as created). The background job
 * (core/background/series-horizons.ts) runs it; no read does. Answers how many occurrences it created.
 */
export async function extendSeriesHorizons(store: Store, actor: Actor): Promise<number> {
  const due = extensionDue(nowUtc(actor), actor.config.recurrence.horizonDays);
  const rows = await store.db
    .selectFrom('events')
    .select('id')
    .where('series_horizon_utc', 'is not', null)
    .where('series_horizon_utc', '<', due)
    .execute();
  let created = 0;
  for (const { id } of rows) {
    created += await store.transaction(async (trx) => {
      if (!(await claimPost(trx, id))) return 0;
      const series = await trx
        .selectFrom('events')
        .select('id')
        .where('id', '=', id)
        .where('series_horizon_utc', '<', due)
        .executeTakeFirst();
      if (!series) return 0;
      // The rule expanded to the later horizon gives new starts past the previous one: the sync creates them.
      return (await syncSeries(trx, store, actor, id)).created.length;
    });
  }
  return created;
}

/**
 * D25 `scope=following` on occurrence `occurrence`, to start again at `newStart`: the series ends before it, and the
 * occurrence becomes the first of a new series (keeping its id) with the rest of the old rule moved with it
 * (splitRecurrence: the COUNT left, an UNTIL moved as the start moved) or the `recurrence` sent. Its later
 * occurrences are new; the old series' later ones, exceptions included, are gone, as in Google Calendar's "this and
 * following events". Extra dates (RDATE) stay with the old series (see planSplit). The caller then applies the sent
 * fields to the occurrence and makes it a series with the lines returned.
 */
export async function splitSeries(
  trx: Trx,
  _store: Store,
  actor: Actor,
  occurrence: EventRow,
  newStart: Pick<EventSchedule, 'timezone' | 'allDay' | 'startLocal'>,
): Promise<string[]> {
  const seriesId = occurrence.series_id!;
  const series = await readSeries(trx, seriesId);
  const members = await seriesMembers(trx, seriesId);
  const plan = planSplit({
    recurrence: parseStored(series),
    series: { ...seriesStart(storedScheduleOf(series)), startUtc: series.start_utc },
    occurrence: { id: occurrence.id, occurrenceStartUtc: occurrence.occurrence_start_utc! },
    newStart,
    members,
    limits: storedLimitsFor(actor, series),
  });
  if (!plan.ok) throw invalidRecurrence(plan.message);

  // The occurrence leaves the old series (the plan left it out of the members it deletes) to become the new series' row.
  await updateEventRow(trx, plan.detached, {
    series_id: plan.detached,
    overrides: '',
    occurrence_start_utc: occurrence.start_utc,
  });
  const recurrence = JSON.stringify(plan.before);
  await updateEventRow(trx, seriesId, { recurrence });
  const outcome = await applyPlan(trx, actor, { ...series, recurrence }, plan.beforeSplit, members);
  await copySeriesFields(
    trx,
    actor,
    seriesId,
    [],
    new Set([...outcome.created, ...outcome.updated, ...outcome.deleted]),
  );
  logSeriesRow(trx, seriesId);
  return plan.following;
}

/**
 * The occurrences of these series that were edited on their own (not merely cancelled: a cancellation is an EXDATE
 * of the series), by series: what an iCalendar feed writes as RECURRENCE-ID components. One query.
 */
export async function seriesExceptionIds(db: Db, seriesIds: readonly number[]): Promise<Map<number, number[]>> {
  const exceptions = new Map<number, number[]>();
  if (seriesIds.length === 0) return exceptions;
  const rows = await db
    .selectFrom('events')
    .select(['id', 'series_id', 'overrides'])
    .where('series_id', 'in', [...new Set(seriesIds)])
    .whereRef('id', '!=', 'series_id')
    .where('overrides', '!=', '')
    .orderBy('occurrence_start_utc')
    .execute();
  for (const row of rows) {
    if (storedOverrides(row).includes(CANCELLED)) continue;
    const list = exceptions.get(row.series_id!) ?? [];
    list.push(row.id);
    exceptions.set(row.series_id!, list);
  }
  return exceptions;
}
