// Event rows: batch reads, every write of `events` and `event_organizers`, and the list query (§4).
import { countedTotal, countsComplete, type CountedQuery } from '../occurrences/counts.ts';
import { countedQueryOf } from './list-total.ts';
import { ALL_EVENTS } from '../../domain/occurrence-counts.ts';
import { walkInListOrder } from '../../domain/term-list-plan.ts';
import {
  sql,
  type Expression,
  type Insertable,
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  type Updateable,
} from 'kysely';
import { editScope, listVisibilityScope, POST_STATUSES } from '../../domain/access.ts';
import { parseCost } from '../../domain/cost.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import type { Actor } from '../../domain/actor.ts';
import { chunks } from '../../store/chunks.ts';
import type { Database, EventOrganizersTable, EventsTable } from '../../store/schema.ts';
import { plannedPerExecution } from '../../store/planned-per-execution.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import { isRowId, storeOf, type Db, type Store, type Trx } from '../../store/store.ts';
import { recordChanges } from '../change-log/log.ts';
import { loadPostsOfType, scheduledDueBetween, type PostRow } from '../posts/store.ts';
import { visibleInList, type StatusColumns } from '../posts/visibility.ts';
import type { EventListPlan } from './list-query.ts';
import { probesEachSeries, seriesCollapseOf } from './series-collapse.ts';
import { listStatementRows, type ListBuilder, type ListStatementRequest } from './list-statements.ts';
import { listSignature, type PageSeeks, type PageStart } from './page-seeks.ts';
import type { EventSchedule } from './schedule.ts';
import { EARTH_RADIUS_KM, geoBox } from '../../domain/geo-box.ts';

export type EventRow = Selectable<EventsTable>;

export interface EventRecord {
  post: PostRow;
  event: EventRow;
}

/**
 * Posts and event rows of many events in two queries; ids that are not events are left out. Posts the caller already
 * read (`known`, e.g. the one a GET by id checked access on) are not read again.
 */
export async function loadEventRecords(
  db: Db,
  ids: readonly number[],
  known: readonly PostRow[] = [],
): Promise<Map<number, EventRecord>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const knownPosts = known.filter((post) => post.type === 'event' && wanted.includes(post.id));
  const unread = wanted.filter((id) => !knownPosts.some((post) => post.id === id));
  const [posts, events] = await Promise.all([
    unread.length === 0 ? [] : loadPostsOfType(db, 'event', unread),
    eventsByIds.rows(db, wanted),
  ]);
  const eventById = new Map(events.map((event) => [event.id, event]));
  const records = new Map<number, EventRecord>();
  for (const post of [...knownPosts, ...posts]) {
    const event = eventById.get(post.id);
    if (event) records.set(post.id, { post, event });
  }
  return records;
}

const organizerLinksOf = preparedQuery((db, eventIds: readonly number[]) =>
  db
    .selectFrom('event_organizers')
    .select(['event_id', 'organizer_id'])
    .where('event_id', 'in', eventIds)
    .orderBy('event_id')
    .orderBy('position'),
);

/**
 * Each event's organizers (in their order) and terms (by id), in one query: what the followers of a write read of the
 * events' links (followed.ts), one round trip on PostgreSQL instead of two.
 */
const linksOf = preparedQuery((db, eventIds: readonly number[]) =>
  db
    .selectFrom('event_organizers')
    .select(['event_id', 'organizer_id as linked_id', 'position', sql<string>`'organizer'`.as('kind')])
    .where('event_id', 'in', eventIds)
    .unionAll(
      db
        .selectFrom('event_terms')
        .select(['event_id', 'term_id as linked_id', sql<number>`0`.as('position'), sql<string>`'term'`.as('kind')])
        .where('event_id', 'in', eventIds),
    )
    .orderBy('kind')
    .orderBy('event_id')
    .orderBy('position')
    .orderBy('linked_id'),
);

/** {@link loadOrganizerIds} and each event's term ids (of every taxonomy, in id order), in one query. */
export async function loadEventLinks(
  db: Db,
  eventIds: readonly number[],
): Promise<{ organizerIds: Map<number, number[]>; termIds: Map<number, number[]> }> {
  const links = { organizerIds: new Map<number, number[]>(), termIds: new Map<number, number[]>() };
  if (eventIds.length === 0) return links;
  for (const row of await linksOf.rows(db, [...new Set(eventIds)])) {
    const byEvent = row.kind === 'term' ? links.termIds : links.organizerIds;
    const list = byEvent.get(row.event_id);
    if (list === undefined) byEvent.set(row.event_id, [Number(row.linked_id)]);
    else list.push(Number(row.linked_id));
  }
  return links;
}

/** Each event's organizer ids, in their order, in one query. */
export async function loadOrganizerIds(db: Db, eventIds: readonly number[]): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>();
  if (eventIds.length === 0) return result;
  const rows = await organizerLinksOf.rows(db, [...new Set(eventIds)]);
  for (const row of rows) {
    const list = result.get(row.event_id) ?? [];
    list.push(row.organizer_id);
    result.set(row.event_id, list);
  }
  return result;
}

export const scheduleColumns = (schedule: EventSchedule) => ({
  timezone: schedule.timezone,
  timezone_abbr: schedule.timezoneAbbr,
  all_day: schedule.allDay ? 1 : 0,
  start_local: schedule.startLocal,
  end_local: schedule.endLocal,
  start_utc: schedule.startUtc,
  end_utc: schedule.endUtc,
});

/** The stored form of a `cost` input (§3.8): the raw values and the symbol and position read from them. */
export function costColumns(raw: unknown): Pick<EventsTable, 'cost_values' | 'currency_symbol' | 'currency_position'> {
  const cost = parseCost(raw) ?? { values: [], symbol: '', position: '' };
  return { cost_values: JSON.stringify(cost.values), currency_symbol: cost.symbol, currency_position: cost.position };
}

// ---------------------------------------------------------------------------------------------------------------------
// The writes of `events` and `event_organizers`: this module alone writes them (test/store/table-owners.test.ts).

/** Inserts an event row; answers it as stored (every column, defaults included). */
export async function insertEventRow(trx: Trx, row: Insertable<EventsTable>): Promise<EventRow> {
  const inserted = await insertedEvent.first(trx, row);
  if (inserted === undefined) throw new Error(`the event row ${row.id} was not inserted`);
  return inserted;
}

const insertedEvent = preparedQuery((db, row: Insertable<EventsTable>) =>
  db.insertInto('events').values(row).returningAll(),
);

/** Many event rows (the batch import, a series' new occurrences) through the store's row writer. */
export async function insertEventRows(trx: Trx, rows: readonly Insertable<EventsTable>[]): Promise<void> {
  await storeOf(trx).insertRows(trx, 'events', rows);
}

/** {@link insertEventRows}, answering the rows as written (defaults filled), in the order of their ids. */
export function insertEventRowsReturningAll(trx: Trx, rows: readonly Insertable<EventsTable>[]): Promise<EventRow[]> {
  return storeOf(trx).insertRowsReturningAll(trx, 'events', rows, 'id');
}

export async function updateEventRow(trx: Trx, id: number, changes: Updateable<EventsTable>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await eventChanged.affected(trx, id, changes);
}

/** Compiled once per set of columns changed (prepared-query.ts). */
const eventChanged = preparedQuery((db, id: number, changes: Updateable<EventsTable>) =>
  db.updateTable('events').set(changes).where('id', '=', id),
);

/** The same `changes` on every event of `ids`, one statement per 500. */
export async function updateEventRows(
  trx: Trx,
  ids: readonly number[],
  changes: Updateable<EventsTable>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  for (const chunk of chunks(ids)) await trx.updateTable('events').set(changes).where('id', 'in', chunk).execute();
}

/** Rows per CASE statement: two parameters a row and column, far below every limit. */
const ROWS_PER_CASE = 100;

/** Event rows that each get their own values (the same columns), in one `CASE id` statement per 100 rows. */
export async function updateEachEventRow(
  trx: Trx,
  rows: ReadonlyArray<{ id: number; values: Updateable<EventsTable> }>,
): Promise<void> {
  for (const chunk of chunks(rows, ROWS_PER_CASE)) {
    // Every row's values by column, looked up by the first row's column names.
    const rowValues = chunk.map(({ id, values }) => ({ id, byColumn: new Map(Object.entries(values)) }));
    const set: Record<string, unknown> = {};
    for (const [column, firstValue] of Object.entries(chunk[0].values)) {
      // PostgreSQL types a CASE of parameters as text: integers are cast back.
      const type = typeof firstValue === 'number' ? sql.raw('integer') : sql.raw('text');
      set[column] = sql`cast(case ${sql.ref('id')} ${sql.join(
        rowValues.map(({ id, byColumn }) => sql`when ${id} then ${byColumn.get(column)}`),
        sql` `,
      )} end as ${type})`;
    }
    await trx
      .updateTable('events')
      .set(set)
      .where(
        'id',
        'in',
        chunk.map(({ id }) => id),
      )
      .execute();
  }
}

/** A series' RFC 5545 lines, on every row of it (each occurrence shows its series' lines). */
export async function setSeriesLines(trx: Trx, seriesId: number, lines: readonly string[]): Promise<void> {
  await trx
    .updateTable('events')
    .set({ recurrence: JSON.stringify(lines) })
    .where('series_id', '=', seriesId)
    .execute();
}

/** D26: SEQUENCE + 1 (see events/sequence.ts for when). */
export async function incrementIcalSequence(trx: Trx, id: number): Promise<void> {
  await nextIcalSequence.affected(trx, id);
}

const nextIcalSequence = preparedQuery((db, id: number) =>
  db
    .updateTable('events')
    .set((eb) => ({ ical_sequence: eb('ical_sequence', '+', 1) }))
    .where('id', '=', id),
);

const eventsByIds = preparedQuery((db, ids: readonly number[]) =>
  db.selectFrom('events').selectAll().where('id', 'in', ids),
);

const eventById = preparedQuery((db, id: number) => db.selectFrom('events').selectAll().where('id', '=', id));

/** The event's own row (no post, no links); the caller knows it exists (it holds its claimed post). */
export async function eventRowOf(trx: Trx, id: number): Promise<EventRow> {
  const row = await eventById.first(trx, id);
  if (row === undefined) throw new Error(`event ${id} has no events row`);
  return row;
}

/** D26: the digest of the .ics unit an event was last imported from, in its own transaction. */
export async function setIcalHash(store: Store, id: number, digest: string): Promise<void> {
  await store.transaction((trx) => updateEventRow(trx, id, { ical_hash: digest }));
}

/** A venue leaves every event that had it (trashed or deleted); those events are logged as updated. Answers their ids. */
export async function removeVenueFromEvents(trx: Trx, venueId: number): Promise<number[]> {
  const ids = (
    await trx.updateTable('events').set({ venue_id: null }).where('venue_id', '=', venueId).returning('id').execute()
  ).map((row) => row.id);
  recordChanges(trx, 'event', ids, 'updated');
  return ids;
}

/** Replaces the organizers, in the order given (an id given twice is kept once). */
export async function setOrganizers(trx: Trx, eventId: number, organizerIds: number[]): Promise<void> {
  await trx.deleteFrom('event_organizers').where('event_id', '=', eventId).execute();
  await addOrganizers(trx, eventId, organizerIds);
}

/** {@link setOrganizers} of an event created in `trx`, which has none to replace yet. */
/** Links a new event's organizers in the order given, each once; answers them in that order. */
export async function addOrganizers(trx: Trx, eventId: number, organizerIds: number[]): Promise<number[]> {
  const unique = [...new Set(organizerIds)];
  if (unique.length === 0) return unique;
  await trx
    .insertInto('event_organizers')
    .values(unique.map((organizerId, position) => ({ event_id: eventId, organizer_id: organizerId, position })))
    .execute();
  return unique;
}

/** Organizer links of new events (the batch import), through the store's row writer. */
export async function insertOrganizerLinks(trx: Trx, rows: readonly Insertable<EventOrganizersTable>[]): Promise<void> {
  await storeOf(trx).insertRows(trx, 'event_organizers', rows);
}

/** The venue and the organizers an event links, read together (one statement). */
export async function linkedItemsOf(
  trx: Trx,
  eventId: number,
): Promise<{ venueId: number | null; organizerIds: number[] }> {
  const rows = await trx
    .selectFrom('events')
    .select(['venue_id as id', sql<string>`'venue'`.as('kind')])
    .where('id', '=', eventId)
    .unionAll(
      trx
        .selectFrom('event_organizers')
        .select(['organizer_id as id', sql<string>`'organizer'`.as('kind')])
        .where('event_id', '=', eventId),
    )
    .execute();
  return {
    venueId: rows.find((row) => row.kind === 'venue')?.id ?? null,
    organizerIds: rows.filter((row) => row.kind === 'organizer').map((row) => Number(row.id)),
  };
}

/** The series' organizers, in its order, copied onto its occurrences `ids` (replacing theirs). */
export async function copySeriesOrganizers(trx: Trx, seriesId: number, ids: readonly number[]): Promise<void> {
  await trx.deleteFrom('event_organizers').where('event_id', 'in', ids).execute();
  await trx
    .insertInto('event_organizers')
    .columns(['event_id', 'organizer_id', 'position'])
    .expression((eb) =>
      eb
        .selectFrom('events')
        .crossJoin('event_organizers')
        .select(['events.id', 'event_organizers.organizer_id', 'event_organizers.position'])
        .where('event_organizers.event_id', '=', seriesId)
        .where('events.id', 'in', ids),
    )
    .execute();
}

/** An organizer leaves every event that had it (trashed or deleted); those events are logged as updated. Answers their ids. */
export async function removeOrganizerFromEvents(trx: Trx, organizerId: number): Promise<number[]> {
  const rows = await trx
    .deleteFrom('event_organizers')
    .where('organizer_id', '=', organizerId)
    .returning('event_id')
    .execute();
  const ids = [...new Set(rows.map((row) => row.event_id))];
  recordChanges(trx, 'event', ids, 'updated');
  return ids;
}

/**
 * D13: venues within `radiusKm` of a point by great-circle distance, inclusive. The haversine term
 * `sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2)` grows with the distance, so it is compared with its value at the radius:
 * no square root or arcsine, hence no rounding error pushing an argument out of range on PostgreSQL. Only the venues
 * of the box that holds the circle (domain/geo-box.ts) are measured: a band of the coordinates' index, not every venue.
 */
function venuesNear(db: Db, actor: Actor, near: NonNullable<EventListPlan['near']>, nowUtc = formatWp(actor.now)) {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const number = (value: number) => sql<number>`cast(${value} as double precision)`;
  const limit = Math.sin(near.radiusKm / EARTH_RADIUS_KM / 2) ** 2;
  const haversine = sql<number>`power(sin((radians(geo_lat) - ${number(radians(near.lat))}) / 2), 2)
    + ${number(Math.cos(radians(near.lat)))} * cos(radians(geo_lat)) * power(sin((radians(geo_lng) - ${number(radians(near.lng))}) / 2), 2)`;
  const box = geoBox(near.lat, near.lng, near.radiusKm);
  let venues = db
    .selectFrom('venues')
    .select('id')
    .where('geo_lat', '>=', number(box.lat.min))
    .where('geo_lat', '<=', number(box.lat.max))
    .where('geo_lng', 'is not', null);
  if (box.lng !== undefined)
    venues = venues.where('geo_lng', '>=', number(box.lng.min)).where('geo_lng', '<=', number(box.lng.max));
  return onlyReadable(db, actor, 'venue', venues.where(haversine, '<=', number(limit)), nowUtc);
}

const venuesWithCoordinates = (db: Db, actor: Actor, nowUtc: string) =>
  onlyReadable(
    db,
    actor,
    'venue',
    db.selectFrom('venues').select('id').where('geo_lat', 'is not', null).where('geo_lng', 'is not', null),
    nowUtc,
  );

/**
 * D32: the venues or organizers the viewer could open by id (D19's list scope over every status), or undefined when
 * that is all of them (editors and up). A filter on an event's venue or organizers sees only links to these, so that
 * it cannot reveal a link (or a venue's place) that the event's own embed leaves out.
 */
function readableLinked(
  db: Db,
  actor: Actor,
  type: 'venue' | 'organizer',
  among?: readonly number[],
  nowUtc = formatWp(actor.now),
) {
  if (listVisibilityScope(actor.viewer).scope === 'all') return undefined;
  // Among the ids a filter names, when it names some: those few rows by key, not every readable venue or organizer.
  const posts =
    among === undefined
      ? db.selectFrom('posts')
      : db.selectFrom('posts').where('posts.id', 'in', among.length > 0 ? among : [0]);
  return posts
    .select('posts.id')
    .where('posts.type', '=', type)
    .where((eb) => visibleInList(eb, actor.viewer, POST_STATUSES, nowUtc));
}

/** Ids of venues, for an `in` condition. */
type VenueIds = SelectQueryBuilder<Database, 'venues', { id: number }>;

function onlyReadable(db: Db, actor: Actor, type: 'venue', query: VenueIds, nowUtc: string): VenueIds {
  const readable = readableLinked(db, actor, type, undefined, nowUtc);
  // Each venue the query keeps is looked up among the readable ones by its id: as an `in` list, SQLite read every
  // readable venue and looked the query's up by id, whatever its own conditions narrowed (a place's band of
  // coordinates: 3,750 of 50,000 venues, 59 ms).
  return readable === undefined
    ? query
    : query.where((eb) => eb.exists(readable.where(sql<boolean>`${sql.ref('posts.id')} = ${sql.ref('venues.id')}`)));
}

/** Where event lists read status, publication date and author: the copies on `occurrences` (see refreshListing). */
const OCCURRENCE_COLUMNS: StatusColumns = {
  status: 'occurrences.status',
  publishedUtc: 'occurrences.published_utc',
  author: 'occurrences.author_id',
};

/**
 * The filtered set of §4, before ordering and paging. Occurrences carry what every list filters and sorts on, so the
 * usual page and its total come from one index; posts and events are joined only for the filters that need them.
 */
/** How the page query should run: walking the list for a popular term, or from a known position (page-seeks.ts). */
interface ListAccess {
  walkInOrder?: boolean;
  /** The page starts after a known position, a tighter lower bound on start_local than any date condition. */
  seeking?: boolean;
  /** The request's time as stored (`formatWp(actor.now)`), or what stands for it in a prepared list (list-statements.ts). */
  nowUtc?: string;
}

function filteredOccurrences(store: Store, actor: Actor, plan: EventListPlan, access: ListAccess = {}) {
  const { walkInOrder = false, seeking = false, nowUtc = formatWp(actor.now) } = access;
  const db = store.db;
  const needsPosts = plan.searchTerms !== undefined || plan.parentId !== undefined || plan.modified !== undefined;
  const needsEvents = plan.featured !== undefined || plan.geoloc !== undefined;
  // SQLite keeps the written order of a CROSS JOIN, so the occurrences index drives the query (its planner would
  // otherwise start from another table and sort); PostgreSQL plans it as the inner join it is. The type claims both
  // tables; the filters below refer to a table only when it was joined.
  let joined: ReturnType<typeof joinBoth> = db.selectFrom('occurrences');
  if (needsPosts) joined = joined.crossJoin('posts').whereRef('posts.id', '=', 'occurrences.event_id');
  if (needsEvents) joined = joined.crossJoin('events').whereRef('events.id', '=', 'occurrences.event_id');
  let query = joined
    .where('occurrences.hidden', '=', 0)
    .where((eb) => visibleInList(eb, actor.viewer, plan.statuses, nowUtc, OCCURRENCE_COLUMNS));

  for (const condition of plan.dates) {
    // From a known position, a lower bound on the start is a filter only (`start_local || ''`, the same text, which no
    // index serves): SQLite would otherwise start the index range there, at the window's start, not at the position.
    const lowerStart = condition.column === 'start' && (condition.operator === '>=' || condition.operator === '>');
    query = query.where(
      condition.column === 'end'
        ? sql.ref<string>('occurrences.end_local')
        : seeking && lowerStart
          ? sql<string>`(${sql.ref('occurrences.start_local')} || '')`
          : sql.ref<string>('occurrences.start_local'),
      condition.operator,
      condition.value,
    );
    // An event never ends before it starts (D3), so an upper bound on the end bounds the start too: the index range
    // on start_local then stops there instead of running to the last event.
    if (condition.column === 'end' && (condition.operator === '<=' || condition.operator === '<')) {
      query = query.where('occurrences.start_local', condition.operator, condition.value);
    }
  }
  if (plan.searchTerms !== undefined) {
    const terms = plan.searchTerms;
    const readable = protectedContentReadable(actor, plan.searchPassword);
    query = query.where(
      terms.length === 0
        ? sql<SqlBool>`1 = 0`
        : sql<SqlBool>`(${sql.join(
            terms.map((term) => {
              const title = store.containsText(sql.ref('posts.title'), term);
              const body = sql`(${store.containsText(sql.ref('posts.excerpt'), term)} or ${store.containsText(sql.ref('posts.content'), term)})`;
              return readable === true ? sql`(${title} or ${body})` : sql`(${title} or (${readable} and ${body}))`;
            }),
            sql` and `,
          )})`,
    );
    // D30: the search index narrows the candidates; the conditions above decide.
    const indexed = store.searchIndexFilter(sql.ref('occurrences.event_id'), terms);
    if (indexed !== undefined) query = query.where(indexed);
  }
  // `IN (subquery)` rather than a correlated EXISTS: the planner can then start from the term's events (measured 3.7
  // times faster on a million events) instead of probing once per occurrence in the window. For a popular term the
  // caller asks to walk the list in order instead (domain/term-list-plan.ts): then the correlated EXISTS, one probe of
  // the (event, term) key per row walked, and the walk stops once the page is full.
  for (const termIds of [plan.categoryIds, plan.tagIds]) {
    if (termIds === undefined) continue;
    const ids = termIds.length > 0 ? termIds : [0];
    query = walkInOrder
      ? query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('event_terms')
              .select('event_terms.term_id')
              .whereRef('event_terms.event_id', '=', 'occurrences.event_id')
              .where('event_terms.term_id', 'in', ids),
          ),
        )
      : query.where(
          'occurrences.event_id',
          'in',
          db.selectFrom('event_terms').select('event_terms.event_id').where('event_terms.term_id', 'in', ids),
        );
  }
  // The venue filters as the term filters: `IN (subquery)`, so that a venue's few events can drive the query.
  if (plan.venueIds !== undefined) {
    let located = db
      .selectFrom('events')
      .select('events.id')
      .where('events.venue_id', 'in', plan.venueIds.length > 0 ? plan.venueIds : [0]);
    const readable = readableLinked(db, actor, 'venue', plan.venueIds, nowUtc);
    if (readable !== undefined) located = located.where('events.venue_id', 'in', readable);
    query = query.where('occurrences.event_id', 'in', located);
  }
  if (plan.organizerIds !== undefined) {
    const organizerIds = plan.organizerIds;
    const readable = readableLinked(db, actor, 'organizer', organizerIds, nowUtc);
    let links = db
      .selectFrom('event_organizers')
      .select('event_organizers.event_id')
      .where('event_organizers.organizer_id', 'in', organizerIds);
    if (readable !== undefined) links = links.where('event_organizers.organizer_id', 'in', readable);
    query = query.where('occurrences.event_id', 'in', links);
  }
  if (plan.featured !== undefined) query = query.where('events.featured', '=', plan.featured ? 1 : 0);
  if (plan.include !== undefined) {
    // D31: an id beyond 32 bits names no event (and PostgreSQL would reject it); 0 names none either.
    const ids = plan.include.filter(isRowId);
    query = query.where('occurrences.event_id', 'in', ids.length > 0 ? ids : [0]);
  }
  if (plan.parentId !== undefined) query = query.where('posts.parent_id', '=', plan.parentId);
  if (plan.modified?.after !== undefined) query = query.where('posts.modified_utc', '>', plan.modified.after);
  if (plan.modified?.before !== undefined) query = query.where('posts.modified_utc', '<=', plan.modified.before);
  if (plan.geoloc !== undefined) {
    // biome-ignore lint/suspicious/noExplicitAny: the builder of a query whose joins vary with the plan; only its call form is used
    const located = (eb: (...args: any[]) => Expression<SqlBool>) =>
      eb('events.venue_id', 'in', venuesWithCoordinates(db, actor, nowUtc));
    query = query.where((eb) =>
      plan.geoloc ? located(eb) : eb.or([eb('events.venue_id', 'is', null), eb.not(located(eb))]),
    );
  }
  if (plan.near !== undefined) {
    query = query.where(
      'occurrences.event_id',
      'in',
      db
        .selectFrom('events')
        .select('events.id')
        .where('events.venue_id', 'in', venuesNear(db, actor, plan.near, nowUtc)),
    );
  }
  // Its best plan depends on the values (a category of half the events or of three, a day or ten years): PostgreSQL
  // plans it for them at every execution. With the plan PostgreSQL kept after five, a list of a venue or an organizer
  // took three times as long, of a category and a tag four, a plain page or a search 1.4–1.7 (measured one at a time).
  return query.modifyEnd(plannedPerExecution);
}

/**
 * D33: may a search match the event's excerpt and content? Yes when it has no password, when the request's `password`
 * is its password, or when the caller may edit it (`editScope`); otherwise only its title is searched, as WordPress
 * searches protected posts for logged-out visitors. `true` when every event qualifies (editors and up).
 */
function protectedContentReadable(actor: Actor, password: string | undefined): RawBuilder<SqlBool> | true {
  const scope = editScope(actor.viewer);
  if (scope.scope === 'all') return true;
  const conditions: RawBuilder<SqlBool>[] = [sql<SqlBool>`${sql.ref('posts.password')} = ''`];
  if (password !== undefined && password !== '')
    conditions.push(sql<SqlBool>`${sql.ref('posts.password')} = ${password}`);
  if (scope.scope === 'own') {
    const statuses = scope.statuses === 'any' ? ['trash'] : ['trash', 'publish', 'future'];
    conditions.push(
      sql<SqlBool>`(${sql.ref('posts.author_id')} = ${scope.authorId} and ${sql.ref('posts.status')} not in (${sql.join(statuses)}))`,
    );
  }
  return sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
}

const joinBoth = (db: Db) => db.selectFrom('occurrences').crossJoin('posts').crossJoin('events');

/**
 * What a list's statements take besides its plan, for a prepared list (list-statements.ts) to put its placeholders in:
 * the request's time as stored, and the page's limit and offset (by default the plan's, or from the known start).
 */
export interface ListValues {
  nowUtc?: string;
  limit?: number;
  offset?: number;
}

/** The queries of a list page: the size of the whole filtered set, one page of ids in list order, and both at once. */
export function eventListQueries(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  start?: PageStart,
  walkInOrder = false,
  values: ListValues = {},
) {
  const seeking = start !== undefined && plan.order === 'start';
  let filtered = filteredOccurrences(store, actor, plan, { walkInOrder, seeking, nowUtc: values.nowUtc });
  // D25: the rows before collapsing, of which a collapsed list's size is counted (below).
  const uncollapsed = filtered;
  if (plan.collapseSeries) {
    // D25: of each series, the first occurrence the filters keep (in list order); single events all stay.
    const firsts = filteredOccurrences(store, actor, plan)
      .where('occurrences.series_id', 'is not', null)
      .select((eb) => [
        'occurrences.event_id as event_id',
        sql<number>`row_number() over (partition by ${eb.ref('occurrences.series_id')} order by ${eb.ref('occurrences.start_local')}, ${eb.ref('occurrences.event_id')})`.as(
          'rank',
        ),
      ]);
    const firstIds = store.db.selectFrom(firsts.as('ranked')).select('ranked.event_id').where('ranked.rank', '=', 1);
    filtered = filtered.where((eb) =>
      eb.or([eb('occurrences.series_id', 'is', null), eb('occurrences.event_id', 'in', firstIds)]),
    );
  }
  // A collapsed list holds every single event and one occurrence of each series it finds, so its size is counted in
  // one pass over the uncollapsed rows, without ranking each series' occurrences.
  const count = plan.collapseSeries
    ? uncollapsed.select(
        sql<
          number | string
        >`count(*) - count(${sql.ref('occurrences.series_id')}) + count(distinct ${sql.ref('occurrences.series_id')})`.as(
          'total',
        ),
      )
    : filtered.select((eb) => eb.fn.countAll<number | string>().as('total'));
  // A page whose start is known (page-seeks.ts) seeks the list index to the row after it, in the list's order.
  if (seeking) {
    const { after } = start;
    filtered = filtered.where((eb) =>
      eb(
        eb.refTuple('occurrences.start_local', 'occurrences.published_utc', 'occurrences.event_id'),
        '>',
        eb.tuple(after.start, after.published, after.id),
      ),
    );
  }
  let page = filtered.select([
    'occurrences.event_id as id',
    'occurrences.start_local as start',
    'occurrences.published_utc as published',
  ]);
  if (plan.order === 'start') page = page.orderBy('occurrences.start_local');
  page = page
    .orderBy('occurrences.published_utc')
    .orderBy('occurrences.event_id')
    .limit(values.limit ?? plan.perPage)
    .offset(values.offset ?? (seeking ? start.skip : (plan.page - 1) * plan.perPage));
  // The page with the size of the whole filtered set on each row: a window over every row the filters keep, which
  // both databases compute before the limit and offset apply.
  const pageWithTotal = page.select(sql<number | string>`count(*) over ()`.as('total'));
  return { count, page, pageWithTotal };
}

/** What the statements of a list collapsed per series read besides the schema: every series, each one's first. */
type SeriesListDatabase = Database & {
  series_ids: { id: number | null };
  series_firsts: { id: number; start: string; published: string };
};

/**
 * D25: every series' id, one seek of the series index each (migration 0025): the least, then each time the least above
 * the last, so that a series of seven hundred occurrences costs one seek, not seven hundred rows. Each is the first
 * row of the index in its order (not `min()`, which PostgreSQL planned as a scan of the table while its statistics
 * predated the series).
 */
function withSeriesIds(db: Db) {
  return db.withRecursive('series_ids(id)', (cte) =>
    cte
      .selectNoFrom((eb) =>
        eb
          .selectFrom('occurrences')
          .select('occurrences.series_id')
          .where('occurrences.series_id', 'is not', null)
          .orderBy('occurrences.series_id')
          .limit(1)
          .as('id'),
      )
      .unionAll(
        cte
          .selectFrom('series_ids')
          .select((eb) =>
            eb
              .selectFrom('occurrences')
              .select('occurrences.series_id')
              .whereRef('occurrences.series_id', '>', 'series_ids.id')
              .orderBy('occurrences.series_id')
              .limit(1)
              .as('id'),
          )
          .where('series_ids.id', 'is not', null),
      ),
  );
}

/**
 * The queries of a list that collapses series no index narrows (series-collapse.ts): its single events, walked in list
 * order by their own index, beside each series' first occurrence the filters keep (`series_firsts`: one probe of the
 * series' rows in start order each, the order the ranked form ranks them in); the total is the single events counted
 * plus the series that have such an occurrence. The page carries its total: the probes are made once for both.
 */
function collapsedPerSeries(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  start: PageStart | undefined,
  values: ListValues,
  walkInOrder = false,
) {
  const nowUtc = values.nowUtc;
  const withSeries = store.db as unknown as Kysely<SeriesListDatabase>;
  // A category or tag is checked row by row as the index is walked (walkInOrder), not read whole first.
  const singles = (seeking = false) =>
    filteredOccurrences(store, actor, plan, { nowUtc, seeking, walkInOrder }).where(
      'occurrences.series_id',
      'is',
      null,
    );
  // Of the series of the `series_ids` row the statement is at, the first occurrence the filters keep.
  const firstOfSeries = filteredOccurrences(store, actor, plan, { nowUtc, walkInOrder })
    .where('occurrences.series_id', '=', sql.ref<number>('series_ids.id'))
    .select('occurrences.id')
    .orderBy('occurrences.start_local')
    .orderBy('occurrences.event_id')
    .limit(1);
  // Materialised: read by the page and by its total, the probes are made once (SQLite would otherwise inline it twice).
  const statement = withSeriesIds(store.db).with(
    (cte) => cte('series_firsts').materialized(),
    () =>
      withSeries
        .selectFrom('series_ids')
        .innerJoin('occurrences as first', (join) => join.on('first.id', '=', firstOfSeries))
        .select(['first.event_id as id', 'first.start_local as start', 'first.published_utc as published']),
  );
  let listedSingles = singles();
  let listedFirsts = withSeries
    .selectFrom('series_firsts')
    .select(['series_firsts.id', 'series_firsts.start', 'series_firsts.published']);
  // A page whose start is known (page-seeks.ts) takes the rows after it, the single events seeking their index there;
  // each series' first is still its first of the whole list.
  if (start !== undefined) {
    const { after } = start;
    listedSingles = singles(true).where((eb) =>
      eb(
        eb.refTuple('occurrences.start_local', 'occurrences.published_utc', 'occurrences.event_id'),
        '>',
        eb.tuple(after.start, after.published, after.id),
      ),
    );
    listedFirsts = listedFirsts.where((eb) =>
      eb(
        eb.refTuple('series_firsts.start', 'series_firsts.published', 'series_firsts.id'),
        '>',
        eb.tuple(after.start, after.published, after.id),
      ),
    );
  }
  const listed = listedSingles
    .select([
      'occurrences.event_id as id',
      'occurrences.start_local as start',
      'occurrences.published_utc as published',
    ])
    .unionAll(listedFirsts);
  const total = sql<number | string>`(${singles().select((eb) => eb.fn.countAll<number>().as('found'))}) + (${withSeries
    .selectFrom('series_firsts')
    .select((eb) => eb.fn.countAll<number>().as('found'))})`.as('total');
  const page = statement
    .selectFrom(listed.as('listed'))
    .select(['listed.id', 'listed.start', 'listed.published'])
    .orderBy('listed.start')
    .orderBy('listed.published')
    .orderBy('listed.id')
    .limit(values.limit ?? plan.perPage)
    .offset(values.offset ?? (start !== undefined ? start.skip : (plan.page - 1) * plan.perPage));
  return { count: statement.selectNoFrom(total), page, pageWithTotal: page.select(total) };
}

/** The list's counted query where the occurrence counts give its total; undefined where its rows must be counted. */
async function countedQueryFor(store: Store, actor: Actor, plan: EventListPlan): Promise<CountedQuery | undefined> {
  const counted = countedQueryOf(plan, actor.viewer, formatWp(actor.now));
  return counted !== undefined && (await countsComplete(store)) ? counted : undefined;
}

/** A statement selecting event ids, for {@link eventPageOf}. */
type EventIdsQuery = SelectQueryBuilder<Database, keyof Database, { id: number }>;

/**
 * The page of `plan` (built for this request, in whichever form of a collapsed list findEventPage would take), kept to
 * the events `only` selects and without those `except` selects. Both apply as the list's own filters do, after
 * collapsing series: a series whose first occurrence is left out is left out (iCalendar feeds: ical/feed.ts).
 */
export async function eventPageOf(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  { only, except }: { only?: EventIdsQuery; except?: EventIdsQuery },
) {
  const walk = await seriesWalk(store, actor, plan);
  if (seriesCollapseOf(plan) === 'per-series' || walk) {
    let { page } = collapsedPerSeries(store, actor, plan, undefined, {}, walk);
    if (only !== undefined) page = page.where('listed.id', 'in', only);
    if (except !== undefined) page = page.where('listed.id', 'not in', except);
    return page;
  }
  let { page } = eventListQueries(store, actor, plan);
  if (only !== undefined) page = page.where('occurrences.event_id', 'in', only);
  if (except !== undefined) page = page.where('occurrences.event_id', 'not in', except);
  return page;
}

/** {@link countedTotal} of a list's counted query, the venue or organizer it names checked as the list checks it. */
async function countedListTotal(db: Db, actor: Actor, counted: CountedQuery): Promise<number> {
  if (counted.near !== undefined) {
    // The venues near the place first (a statement of its own), then the sum of their counts.
    const venueIds = (await venuesNear(db, actor, counted.near).execute()).map((venue) => venue.id);
    return countedTotal(db, counted, { venueIds });
  }
  const readable = counted.linked && readableLinked(db, actor, counted.linked.type, [counted.linked.id]);
  return countedTotal(db, counted, { readable });
}

/**
 * Windows of at most this many days take the term's rows in every window into the choice (a third sum): most of a
 * term's events are outside such a window, and starting from them reads them all. A longer window holds much of them.
 */
const SHORT_WINDOW_DAYS = 92;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/**
 * For a list of one category or tag whose total the counts give: that total, and whether its page is found by walking
 * the list in order rather than from the term's events (domain/term-list-plan.ts), from the term's and the window's
 * counted totals, and for a short window the term's in every window (sums of the ledger, sent together).
 */
async function termListShape(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  rowsNeeded: number,
): Promise<{ total: number; walkInOrder: boolean } | undefined> {
  if (plan.order !== 'start') return undefined;
  const counted = countedQueryOf(plan, actor.viewer, formatWp(actor.now));
  // A list of a venue, an organizer or a place has no term to walk by: its total is summed as any other.
  if (counted === undefined || counted.dimension === ALL_EVENTS || counted.linked || counted.near) return undefined;
  const { fromDay, toDay } = counted;
  // Starting from the term's events reads all of them, not only the window's: for a few days of a term with thousands
  // of events, reading those took 1–5 ms where walking the window read a few hundred rows.
  const short =
    fromDay !== undefined && toDay !== undefined && dayNumber(toDay) - dayNumber(fromDay) < SHORT_WINDOW_DAYS;
  const share = await filterShare(store, counted, short);
  return share && { total: share.matches, walkInOrder: walkInListOrder({ ...share, rowsNeeded }) };
}

/**
 * How many events of its window a list's one filter keeps, and how many the window holds (and with `termRows`, how
 * many the filter keeps in every window): sums of the ledger, sent together; undefined while the counts are not
 * complete.
 */
async function filterShare(
  store: Store,
  counted: CountedQuery,
  termRows = false,
): Promise<{ matches: number; windowRows: number; termRows?: number } | undefined> {
  if (!(await countsComplete(store))) return undefined;
  const [matches, windowRows, everyWindow] = await Promise.all([
    countedTotal(store.db, counted),
    countedTotal(store.db, { ...counted, dimension: ALL_EVENTS }),
    termRows ? countedTotal(store.db, { ...counted, fromDay: undefined, toDay: undefined }) : undefined,
  ]);
  return { matches, windowRows, termRows: everyWindow };
}

/**
 * For a list that collapses series and is narrowed by one category, tag, venue or organizer: whether to probe each
 * series, walking the list in order, rather than rank what the filter keeps (series-collapse.ts), from the filter's
 * share of the window.
 */
async function seriesWalk(store: Store, actor: Actor, plan: EventListPlan): Promise<boolean> {
  if (seriesCollapseOf(plan) !== 'ranked' || plan.order !== 'start') return false;
  const counted = countedQueryOf({ ...plan, collapseSeries: false }, actor.viewer, formatWp(actor.now));
  if (counted === undefined || counted.dimension === ALL_EVENTS || counted.near) return false;
  const share = await filterShare(store, counted);
  return share !== undefined && probesEachSeries(share);
}

/**
 * eventListQueries as list-statements.ts prepares it once per shape of list: given only what a shape keeps of the
 * actor (a prepared statement outlives the request that made it).
 */
export function listBuilder(store: Store, actor: Actor): ListBuilder {
  const listActor: Actor = { viewer: actor.viewer, now: actor.now, config: actor.config };
  // A list that collapses series and walks in order is probed per series (seriesWalk).
  return (plan, start, { walkInOrder, ...values }) =>
    seriesCollapseOf(plan) === 'per-series' || (plan.collapseSeries && walkInOrder)
      ? collapsedPerSeries(store, listActor, plan, start, values, walkInOrder)
      : eventListQueries(store, listActor, plan, start, walkInOrder, values);
}

/** A row of a list page's statement: the event, its place in the list, and the total where the statement counts it. */
interface PageRow {
  id: number;
  start: string;
  published: string;
  total?: number | string;
}

interface CountRow {
  total: number | string;
}

/** What a list reader brings to reach deep pages by position: the process's page ends, and its data version if read. */
export interface ListSeeking {
  seeks: PageSeeks;
  /** The data version the caller already read (an anonymous read's); read here otherwise. */
  dataVersion?: string;
}

export async function findEventPage(
  store: Store,
  actor: Actor,
  plan: EventListPlan,
  seeking?: ListSeeking,
): Promise<{ total: number; ids: number[] }> {
  // Deep pages (page-seeks.ts): from where an earlier page of the same list ended, when that is still where it ends.
  const seeks = seeking?.seeks.covers(plan) ? seeking.seeks : undefined;
  const version = seeks === undefined ? '' : (seeking?.dataVersion ?? (await store.dataVersion()));
  const signature = seeks === undefined ? '' : listSignature(plan, actor.viewer);
  const nowUtc = formatWp(actor.now);
  let start = seeks?.startOf(signature, version, plan.page, plan.perPage);
  // A position read later than this request's clock may count a scheduled event this request does not show yet.
  if (start !== undefined && nowUtc < start.readAt) start = undefined;
  if (start !== undefined && (await scheduledDueBetween(store.db, start.readAt, nowUtc))) {
    seeks?.forget(signature);
    start = undefined;
  }
  const rowsNeeded = (start === undefined ? (plan.page - 1) * plan.perPage : start.skip) + plan.perPage;
  const termList = await termListShape(store, actor, plan, rowsNeeded);
  const perSeriesWalk = await seriesWalk(store, actor, plan);
  const build = listBuilder(store, actor);
  const statement: ListStatementRequest = {
    store,
    viewer: actor.viewer,
    nowUtc,
    plan,
    start,
    walkInOrder: perSeriesWalk,
  };
  const pageRows = (which: 'page' | 'pageWithTotal') =>
    listStatementRows<PageRow>({ ...statement, walkInOrder: termList?.walkInOrder ?? perSeriesWalk }, which, build);
  // The count from the first row: a page from a known position bounds its start as a filter only, which the
  // count would then not use to find its rows.
  const countQuery = async () =>
    Number((await listStatementRows<CountRow>({ ...statement, start: undefined }, 'count', build))[0].total);
  const counted = termList === undefined ? await countedQueryFor(store, actor, plan) : undefined;
  // A total the counts do not give is counted in the page's own statement where reads run in turn (SQLite), which then
  // reads the rows the filters keep once instead of twice: a search within a category measured 54 % less CPU. Where
  // they run at once (PostgreSQL), the page and the count stay apart, each planned for itself: merged, the page's walk
  // of the list index in order could no longer stop at the page's end (a broad word: 53 ms). Not for a page found from
  // a known position (its rows start there) nor for a list that ranks series (counted apart, see eventListQueries). A
  // list collapsed per series carries its total on either database: both read the probes of its series once.
  const withTotal =
    seriesCollapseOf(plan) === 'per-series' ||
    perSeriesWalk ||
    (store.readers === 'one' &&
      termList === undefined &&
      counted === undefined &&
      start === undefined &&
      !plan.collapseSeries);
  const [given, rows] = await Promise.all([
    termList?.total ??
      (counted !== undefined ? countedListTotal(store.db, actor, counted) : withTotal ? undefined : countQuery()),
    pageRows(withTotal ? 'pageWithTotal' : 'page'),
  ]);
  const carried = rows[0] !== undefined && 'total' in rows[0] ? Number(rows[0].total) : undefined;
  // Past the last row the page's statement has no row to carry the total: the first page is then empty, and a later
  // one is counted apart.
  const total = given ?? carried ?? (plan.page === 1 ? 0 : await countQuery());
  const last = rows.at(-1);
  if (seeks !== undefined && rows.length === plan.perPage && last !== undefined)
    seeks.remember(
      signature,
      version,
      plan.page,
      { start: last.start, published: last.published, id: last.id },
      nowUtc,
    );
  return { total, ids: rows.map((row) => row.id) };
}
