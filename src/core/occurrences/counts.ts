// The one owner of `occurrence_counts` and `counted_events` (totals without scans): every transaction that changes
// events counts them again before it commits (documents' follower, documents/follow.ts), appending to the ledger the
// difference between what each event added before (`counted_events`) and what it adds now. Appending, never updating
// a shared row, lets concurrent writers on PostgreSQL count without waiting on (or deadlocking over) each other;
// compaction later sums each key's rows into one. Each change is appended under its day key and its month key
// (domain/occurrence-counts.ts), in the same statement; a total adds up the days and months of its window
// (domain/counted-ranges.ts).
import { sql, type ExpressionBuilder, type Insertable, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database, OccurrenceCountsTable } from '../../store/schema.ts';
import { chunks } from '../../store/chunks.ts';
import { preparedQuery, type PreparedQuery } from '../../store/prepared-query.ts';
import { storeOf, type Db, type Store, type Trx } from '../../store/store.ts';
import { lockItems } from '../item-locks.ts';
import {
  contributionKeys,
  countDelta,
  countKey,
  monthDimension,
  splitKey,
  venueDimension,
  withMonthKeys,
  type CountedLinks,
  type CountedOccurrence,
} from '../../domain/occurrence-counts.ts';
import { readSetting, replaceSetting, writeSetting } from '../settings/store.ts';
import { countedRanges, type CountedRange } from '../../domain/counted-ranges.ts';

const COMPLETE_SETTING = 'occurrence_counts';
const NO_LINKS: CountedLinks = { termIds: [], venueId: null, organizerIds: [] };

const parseKeys = (json: string): string[] => {
  const keys: unknown = JSON.parse(json);
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string'))
    throw new Error('counted_events holds keys that are not strings');
  return keys;
};

const countedKeysOf = preparedQuery((db, ids: readonly number[]) =>
  db.selectFrom('counted_events').select(['event_id', 'keys']).where('event_id', 'in', ids),
);

/**
 * What each event's occurrences row holds (one per event, store.ts), read where it comes from, by key: a bulk load
 * counts its batches while the occurrences' own indexes are set aside.
 */
const countedRowsOf = preparedQuery((db, ids: readonly number[]) =>
  db
    .selectFrom('events')
    .innerJoin('posts', 'posts.id', 'events.id')
    .select([
      'events.id as event_id',
      'posts.status',
      'posts.date_utc',
      'events.start_local',
      'events.end_local',
      'events.hide_from_listings as hidden',
      'events.venue_id',
    ])
    .where('events.id', 'in', ids),
);

/** Terms and organizers in one statement: one round trip less on PostgreSQL for every write. */
const countedLinksOf = preparedQuery((db, ids: readonly number[]) =>
  db
    .selectFrom('event_terms')
    .select(['event_id', 'term_id as linked_id', sql<string>`'term'`.as('kind')])
    .where('event_id', 'in', ids)
    .unionAll(
      db
        .selectFrom('event_organizers')
        .select(['event_id', 'organizer_id as linked_id', sql<string>`'organizer'`.as('kind')])
        .where('event_id', 'in', ids),
    ),
);

/** What counting an event reads of it: its occurrences row's values and its links; absent for a deleted event. */
export interface CountedEvent {
  occurrence: CountedOccurrence;
  links: CountedLinks;
}

/**
 * Counts events `ids` again as they stand in `trx`. Each event's lock is taken first (item-locks.ts): two transactions
 * counting one event at once would both take back its old keys; the second to lock reads what the first committed.
 */
export async function countEvents(trx: Trx, ids: readonly number[]): Promise<void> {
  const wanted = [...new Set(ids)].sort((a, b) => a - b);
  await lockItems(trx, wanted);
  for (const chunk of chunks(wanted)) {
    const [counted, events] = await Promise.all([countedKeysOf.rows(trx, chunk), readCountedEvents(trx, chunk)]);
    await countAgain(trx, chunk, counted, events);
  }
}

/**
 * {@link countEvents} of events whose locks `trx` holds and which the caller has read already (a write's follower,
 * which shares one read of the changed events with the stored documents' renderer: follow-counts.ts). `events` holds
 * those of `ids` that exist; those of `created` were created in `trx`, so none has been counted yet (nothing is read
 * of them).
 */
export async function countEventsAsRead(
  trx: Trx,
  ids: readonly number[],
  events: ReadonlyMap<number, CountedEvent>,
  created: ReadonlySet<number> = new Set(),
): Promise<void> {
  const wanted = [...new Set(ids)].sort((a, b) => a - b);
  for (const chunk of chunks(wanted)) {
    const counted = chunk.filter((id) => !created.has(id));
    await countAgain(trx, chunk, counted.length === 0 ? [] : await countedKeysOf.rows(trx, counted), events);
  }
}

async function readCountedEvents(trx: Trx, ids: readonly number[]): Promise<Map<number, CountedEvent>> {
  const [occurrences, linked] = await Promise.all([countedRowsOf.rows(trx, ids), countedLinksOf.rows(trx, ids)]);
  const termIds = new Map<number, number[]>();
  const organizerIds = new Map<number, number[]>();
  for (const row of linked) {
    const byEvent = row.kind === 'term' ? termIds : organizerIds;
    byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), Number(row.linked_id)]);
  }
  const events = new Map<number, CountedEvent>();
  for (const row of occurrences) {
    events.set(row.event_id, {
      occurrence: {
        status: row.status,
        publishedUtc: row.date_utc,
        startLocal: row.start_local,
        endLocal: row.end_local,
        hidden: row.hidden === 1,
      },
      links: {
        termIds: termIds.get(row.event_id) ?? [],
        venueId: row.venue_id,
        organizerIds: organizerIds.get(row.event_id) ?? [],
      },
    });
  }
  return events;
}

/**
 * Appends to the ledger, for the events of `chunk`, the difference between the keys they were counted under
 * (`counted`) and those they add now (`events`: a deleted event is absent), and records the new keys.
 */
async function countAgain(
  trx: Trx,
  chunk: readonly number[],
  counted: ReadonlyArray<{ event_id: number; keys: string }>,
  events: ReadonlyMap<number, CountedEvent>,
): Promise<void> {
  const stored = new Map(counted.map((row) => [row.event_id, row.keys]));
  const total = new Map<string, number>();
  const now: Array<{ event_id: number; keys: string }> = [];
  for (const id of chunk) {
    const event = events.get(id);
    const keys =
      event === undefined ? contributionKeys([], NO_LINKS) : contributionKeys([event.occurrence], event.links);
    const storedKeys = stored.get(id);
    const text = JSON.stringify(keys);
    // Counted under these very keys already (a new title): nothing moves, and its row stays as it is.
    if (event !== undefined && storedKeys === text) continue;
    const before = storedKeys === undefined ? [] : parseKeys(storedKeys);
    for (const [key, change] of countDelta(before, keys)) total.set(key, (total.get(key) ?? 0) + change);
    // Every event that exists keeps a row, even with no keys (a hidden event): it is counted, as nothing. A deleted
    // event's row goes.
    if (event !== undefined) now.push({ event_id: id, keys: text });
  }
  const rows = [...withMonthKeys(total)].map(([key, count]) => {
    const { dimension, status, startDay, endDay, published } = splitKey(key);
    return { dimension, status, start_day: startDay, end_day: endDay, published_utc: published, count };
  });
  // A write's few rows through its prepared statement; an import's many through the store's row writer (on PostgreSQL
  // one statement whatever their number, the rows one parameter: 620 statements of 200 rows each for 20,000 events).
  if (rows.length > COUNT_ROWS_PER_STATEMENT) await storeOf(trx).insertRows(trx, 'occurrence_counts', rows);
  else if (rows.length > 0) await countsAdded.affected(trx, rows);
  const gone = counted.map((row) => row.event_id).filter((id) => !events.has(id));
  if (gone.length > 0) await trx.deleteFrom('counted_events').where('event_id', 'in', gone).execute();
  for (const part of chunks(now, 200)) await countedEventsWritten.affected(trx, part);
}

const COUNT_ROWS_PER_STATEMENT = 200;

/** A write's few rows (one per dimension it moves), compiled once per number of rows. */
const countsAdded = preparedQuery((db, rows: readonly Insertable<OccurrenceCountsTable>[]) =>
  db.insertInto('occurrence_counts').values(rows),
);

/** A write's few events compiled once per number of rows (prepared-query.ts); an import's built per statement. */
const countedEventsWritten = preparedQuery((db, rows: readonly { event_id: number; keys: string }[]) =>
  db
    .insertInto('counted_events')
    .values(rows)
    .onConflict((conflict) => conflict.column('event_id').doUpdateSet((eb) => ({ keys: eb.ref('excluded.keys') }))),
);

/** What a total asks of the counts: one dimension, effective statuses (D17) at `nowUtc`, and whole local days. */
export interface CountedQuery {
  dimension: string;
  statuses: readonly string[];
  nowUtc: string;
  /** Occurrences starting on or after this day. */
  fromDay?: string;
  /** Occurrences ending on or before this day. */
  toDay?: string;
  /** The venue or organizer the dimension is of: it must be readable by the caller, or the list holds nothing. */
  linked?: { type: 'venue' | 'organizer'; id: number };
  /**
   * Instead of `dimension`, the venues within this distance (`geoloc_lat`, `geoloc_lng`, `geoloc_radius`): an event
   * has one venue at most, so the list's total is the sum of theirs. The caller finds them ({@link CountedScope}).
   */
  near?: { lat: number; lng: number; radiusKm: number };
}

/** What a counted total needs from the list's own queries, which know the caller. */
export interface CountedScope {
  /** The venue or organizer of {@link CountedQuery.linked}, if the caller may read it (an `exists` condition). */
  readable?: SelectQueryBuilder<Database, 'posts', { id: number }>;
  /** The ids of the venues of {@link CountedQuery.near} that the caller may read. */
  venueIds?: readonly number[];
}

/**
 * The number of listed occurrences `query` covers, summed over the ledger: work grows with the days of the window,
 * not with the events. A scheduled row counts as published once its publication time has come (D17).
 */
export async function countedTotal(db: Db, query: CountedQuery, scope: CountedScope = {}): Promise<number> {
  if (query.statuses.length === 0) return 0;
  const { readable, venueIds } = scope;
  if (query.near !== undefined && venueIds === undefined) throw new Error('a total near a place needs its venues');
  if (venueIds === undefined) return sumOfCounts(db, query, [query.dimension], readable);
  // A thousand venues' dimensions a statement, within either database's limit on bound values.
  let total = 0;
  for (const part of chunks(venueIds, 1000)) total += await sumOfCounts(db, query, part.map(venueDimension));
  return total;
}

/**
 * The ledger's sum for `query` over `dimensions` (one or more): the rows of each range of its window
 * (domain/counted-ranges.ts), days by day and whole months by month, each range a sum of its own that the index finds
 * as one stretch, added up in one statement (a round trip on PostgreSQL). Compiled once per shape (sumStatementFor):
 * a list's total builds no query.
 */
async function sumOfCounts(
  db: Db,
  query: CountedQuery,
  dimensions: readonly string[],
  readable?: CountedScope['readable'],
): Promise<number> {
  const ranges = countedRanges(query.fromDay, query.toDay);
  const values = sumValues(query, ranges);
  // The dimensions of each grain the ranges have, none of the other (a prepared query's arguments are all used).
  const days = ranges.some((range) => range.grain === 'day') ? dimensions : [];
  const months = ranges.some((range) => range.grain === 'month') ? dimensions.map(monthDimension) : [];
  const statuses = [...new Set(query.statuses)].sort();
  const prepared = readable === undefined ? sumStatementFor(statuses, ranges) : undefined;
  const row =
    prepared !== undefined
      ? await prepared.first(db, days, months, values)
      : await sumStatement(db, statuses, ranges, days, months, values, readable).executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * The values of a sum's statement, by name: each range's bounds (`from0`, `to0`, …), the clock when a status depends
 * on it, the window's last day when it has one. Those it has not are absent, not undefined, so that which of them
 * are present is part of the statement's shape (store/prepared-query.ts).
 */
type SumValues = Record<string, string>;

function sumValues(query: CountedQuery, ranges: readonly CountedRange[]): SumValues {
  const values: SumValues = {};
  ranges.forEach((range, index) => {
    if (range.from !== undefined) values[`from${index}`] = range.from;
    if (range.to !== undefined) values[`to${index}`] = range.to;
  });
  if (query.statuses.includes('publish') || query.statuses.includes('future')) values.now = query.nowUtc;
  if (query.toDay !== undefined) values.toDay = query.toDay;
  return values;
}

type SumRow = { total: number | string | null };

/** Per set of statuses and grains of the ranges (the rest of the shape is the values' names and the dimensions'). */
const sumStatements = new Map<
  string,
  PreparedQuery<[days: readonly string[], months: readonly string[], values: SumValues], SumRow>
>();

/** Sets of statuses that a sum's statements are kept for; another is built per call. */
const MAX_SUM_STATEMENTS = 64;

/**
 * The prepared statement of a sum with these statuses (distinct, sorted) and ranges' grains; undefined when as many
 * are kept already (the statuses are the caller's choice among a few).
 */
function sumStatementFor(statuses: readonly string[], ranges: readonly CountedRange[]) {
  const key = `${statuses.join()}|${ranges.map((range) => range.grain).join()}`;
  let statement = sumStatements.get(key);
  if (statement === undefined) {
    if (sumStatements.size >= MAX_SUM_STATEMENTS) return undefined;
    statement = preparedQuery((db, days: readonly string[], months: readonly string[], values: SumValues) =>
      sumStatement(db, statuses, ranges, days, months, values),
    );
    sumStatements.set(key, statement);
  }
  return statement;
}

/**
 * The sum's statement. `ranges` gives the grains; the bounds are taken from `values` (by name), which may be a
 * prepared query's placeholders: nothing here looks at a value, only at which ones are present.
 */
function sumStatement(
  db: Db,
  statuses: readonly string[],
  ranges: readonly CountedRange[],
  days: readonly string[],
  months: readonly string[],
  values: SumValues,
  readable?: CountedScope['readable'],
) {
  const [first, ...others] = ranges.map((range, index) =>
    rangeSum(db, statuses, range.grain === 'month' ? months : days, {
      from: values[`from${index}`],
      to: values[`to${index}`],
      now: values.now,
      toDay: values.toDay,
    }),
  );
  let sums = db.selectFrom(others.reduce((union, sum) => union.unionAll(sum), first).as('sums'));
  // In the same statement (a round trip on PostgreSQL): whether the caller may read the venue or organizer.
  if (readable !== undefined) sums = sums.where((eb) => eb.exists(readable));
  return sums.select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('sums.total'), sql<number>`0`).as('total'));
}

/** The sum of the ledger rows of one range over `dimensions` (of the range's grain). */
function rangeSum(
  db: Db,
  statuses: readonly string[],
  dimensions: readonly string[],
  bounds: { from?: string; to?: string; now?: string; toDay?: string },
) {
  const plain = statuses.filter((status) => status !== 'publish' && status !== 'future');
  // The stored statuses first, as a list the index can seek (dimension, each status, then the start range); a
  // disjunction alone would have the database read every row of the dimension. Then which of them count.
  const stored = [...new Set(statuses.flatMap((status) => (status === 'publish' ? ['publish', 'future'] : [status])))];
  let select = db
    .selectFrom('occurrence_counts')
    .select((eb) => eb.fn.sum<number | string>('count').as('total'))
    // Venues near a place as values, not a subquery: PostgreSQL, misjudging how few ledger rows the statuses leave,
    // would otherwise scan the ledger and work out the venues near the place again for each of its rows (3.2 s).
    .where('dimension', 'in', dimensions)
    .where('status', 'in', stored)
    .where((eb) => {
      const conditions = plain.length > 0 ? [eb('status', 'in', plain)] : [];
      const scheduled = statuses.includes('publish') || statuses.includes('future');
      const now = bounds.now;
      if (scheduled && now === undefined) throw new Error('a sum of published or scheduled rows needs the clock');
      if (statuses.includes('publish') && now !== undefined) {
        conditions.push(eb('status', '=', 'publish'));
        conditions.push(eb.and([eb('status', '=', 'future'), eb('published_utc', '<=', now)]));
      }
      if (statuses.includes('future') && now !== undefined)
        conditions.push(eb.and([eb('status', '=', 'future'), eb('published_utc', '>', now)]));
      return eb.or(conditions);
    });
  if (bounds.from !== undefined) select = select.where('start_day', '>=', bounds.from);
  // An occurrence never ends before it starts (D3): the range's end bounds the start, and the index stretch stops there.
  if (bounds.to !== undefined) select = select.where('start_day', '<=', bounds.to);
  if (bounds.toDay !== undefined) select = select.where('end_day', '<=', bounds.toDay);
  return select;
}

const complete = new WeakSet<Store>();

/** Whether every event is counted (the start-up job has counted those of a database from before the counts). */
export async function countsComplete(store: Store): Promise<boolean> {
  if (complete.has(store)) return true;
  const done = (await readSetting(store.db, COMPLETE_SETTING)) === 'complete';
  if (done) complete.add(store);
  return done;
}

/** Event ids {@link uncountedEventIds} checks at a time. */
export const UNCOUNTED_CHECK_SPAN = 2000;

const largestEventId = preparedQuery((db) => db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')));

/** The largest event id there is, 0 when there are none: where a walk over every event's id ends. */
export async function lastEventId(db: Db): Promise<number> {
  return Number((await largestEventId.first(db))?.id ?? 0);
}

/**
 * The ids in (`afterId`, `throughId`] of events not counted yet: one statement reading that range of the events' key
 * (a walk over a million events in one statement held a SQLite service for 0.9 s at each start).
 */
export async function uncountedEventIds(db: Db, afterId: number, throughId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('events')
    .leftJoin('counted_events', 'counted_events.event_id', 'events.id')
    .select('events.id')
    .where('counted_events.event_id', 'is', null)
    .where('events.id', '>', afterId)
    .where('events.id', '<=', throughId)
    .orderBy('events.id')
    .execute();
  return rows.map((row) => row.id);
}

export async function markCountsComplete(trx: Trx): Promise<void> {
  await writeSetting(trx, COMPLETE_SETTING, 'complete');
}

/** The lock that lets one compaction at a time read the ledger (see {@link compactCountsOfRows}). */
const COMPACTION_LOCK = 'occurrence-counts:compaction';

/** Ledger ids whose keys one compaction step merges: a statement and a transaction each. */
export const COMPACTION_SPAN = 2000;

/**
 * How far the ledger is compacted, `<done> <seen>` (ledger ids): every key with a row up to `done` was merged when
 * that row was committed; `seen` is the largest id the last compaction read. Absent: nothing was ever compacted.
 */
const COMPACTED_SETTING = 'occurrence_counts:compacted';

export interface CompactionMark {
  /** The setting as read (undefined: never written), which the next mark replaces only if it still holds it. */
  setting: string | undefined;
  /** Ledger ids after this one may have keys to merge. */
  afterId: number;
  /** Ledger ids up to this one are merged for good once the compaction that reads it ends. */
  seen: number;
}

const largestLedgerId = preparedQuery((db) =>
  db.selectFrom('occurrence_counts').select((eb) => eb.fn.max('id').as('id')),
);

/** The largest ledger id there is, 0 when the ledger is empty (ids are never used again). */
export async function lastLedgerId(db: Db): Promise<number> {
  return Number((await largestLedgerId.first(db))?.id ?? 0);
}

/** Where the next compaction starts (see {@link COMPACTED_SETTING}). */
export async function readCompactionMark(db: Db): Promise<CompactionMark> {
  const setting = await readSetting(db, COMPACTED_SETTING);
  const match = setting === undefined ? null : /^(\d+) (\d+)$/.exec(setting);
  return { setting, afterId: match ? Number(match[1]) : 0, seen: match ? Number(match[2]) : 0 };
}

/**
 * The mark of a compaction that read every row from `mark.afterId` through `throughId`. The next one starts after the
 * largest id the one before read, not after `throughId`: on PostgreSQL a row gets its id when inserted and may commit
 * after a compaction passed it, so each row is read by two compactions, and a writer would have to hold its
 * transaction open from one to the next for its rows to stay unmerged (harmless then: totals sum every row). The first
 * compaction has no such mark and starts the next after itself.
 */
export function compactionMarkAfter(mark: CompactionMark, throughId: number): string {
  const done = mark.setting === undefined ? throughId : Math.max(mark.afterId, mark.seen);
  return `${done} ${throughId}`;
}

/** Records {@link compactionMarkAfter}, only if no other process's compaction wrote one since `mark` was read. */
export async function writeCompactionMark(trx: Trx, mark: CompactionMark, throughId: number): Promise<void> {
  await replaceSetting(trx, COMPACTED_SETTING, mark.setting, compactionMarkAfter(mark, throughId));
}

type LedgerRow = Pick<
  Selectable<OccurrenceCountsTable>,
  'id' | 'dimension' | 'status' | 'start_day' | 'end_day' | 'published_utc' | 'count'
>;

const KEY = ['dimension', 'status', 'start_day', 'end_day', 'published_utc'] as const;

/** The ledger rows whose key has a row with an id in (`afterId`, `throughId`]: a range of the ledger's own key. */
const keyWithRowBetween =
  (afterId: number, throughId: number) => (eb: ExpressionBuilder<Database, 'occurrence_counts'>) =>
    eb(
      eb.refTuple(...KEY),
      'in',
      eb
        .selectFrom('occurrence_counts')
        .select([...KEY])
        .where('id', '>', afterId)
        .where('id', '<=', throughId)
        .$asTuple(...KEY),
    );

/**
 * Every row of each key that has a row with an id in (`afterId`, `throughId`] and more than one row, grouped by key.
 * One statement reads that range of the ledger's key and, through the key's index, every row of the keys found there,
 * so its work follows the range and the rows appended to its keys, not the ledger (the whole ledger grouped in one
 * statement held a SQLite service for 0.15 s every minute at 100,000 events, 0.6–1.8 s a statement after a recount at
 * a million). A burst of writes to the same keys is merged by the first step that finds them, whole.
 */
async function keysToMerge(db: Db, afterId: number, throughId: number): Promise<LedgerRow[][]> {
  const rows = await db
    .selectFrom('occurrence_counts')
    .select(['id', 'dimension', 'status', 'start_day', 'end_day', 'published_utc', 'count'])
    .where(keyWithRowBetween(afterId, throughId))
    .execute();
  const byKey = new Map<string, LedgerRow[]>();
  for (const row of rows) {
    const key = countKey(row.dimension, row.status, row.start_day, row.end_day, row.published_utc);
    const same = byKey.get(key);
    if (same) same.push(row);
    else byKey.set(key, [row]);
  }
  return [...byKey.values()].filter((same) => same.length > 1);
}

/**
 * Whether any key with a row in (`afterId`, `throughId`] has several rows: read outside a transaction, so that a
 * compaction finding nothing to merge commits nothing (a commit moves the data version every cache follows).
 */
export async function countsToMergeBetween(db: Db, afterId: number, throughId: number): Promise<boolean> {
  // Counted by the database, over the key's index: no row comes back (a burst of appends to a few busy keys would
  // otherwise bring back every row of them twice, here and in the compaction's own read).
  const duplicated = await db
    .selectFrom('occurrence_counts')
    .select('dimension')
    .where(keyWithRowBetween(afterId, throughId))
    .groupBy([...KEY])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .limit(1)
    .executeTakeFirst();
  return duplicated !== undefined;
}

/**
 * Merges every key that has a ledger row with an id in (`afterId`, `throughId`] into one row (its sum; none when that is
 * zero); answers how many rows it removed. Every process of the service compacts: on PostgreSQL two compactions that
 * read the same rows before either replaced them would both insert their sums (the second one's delete finds the
 * rows gone, and its insert doubles every total it touches), so each takes the compaction's lock before it reads, and
 * reads what the one before it committed. Writers that append to the ledger meanwhile are not held up: a compaction
 * replaces only the rows it read.
 */
export async function compactCountsOfRows(trx: Trx, afterId: number, throughId: number): Promise<number> {
  await storeOf(trx).lock(trx, COMPACTION_LOCK);
  const replaced: number[] = [];
  const kept: Array<Omit<LedgerRow, 'id'>> = [];
  for (const same of await keysToMerge(trx, afterId, throughId)) {
    const { id: _id, ...sum } = { ...same[0], count: 0 };
    for (const row of same) {
      replaced.push(row.id);
      sum.count += Number(row.count);
    }
    if (sum.count !== 0) kept.push(sum);
  }
  // Only the rows read are replaced: a row another writer appends meanwhile stays as it is.
  for (const part of chunks(replaced)) await trx.deleteFrom('occurrence_counts').where('id', 'in', part).execute();
  for (const part of chunks(kept, 200)) await trx.insertInto('occurrence_counts').values(part).execute();
  return replaced.length - kept.length;
}
