import { localToUtc, timezoneAbbrForLocal } from '../../domain/dates/stored-format.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify } from '../../domain/slugs.ts';
import { costColumns, insertEventRows, insertOrganizerLinks, scheduleColumns } from '../events/store.ts';
import { insertMetaRows } from '../linked/store.ts';
import { createPosts, type LifecyclePostType } from '../posts/lifecycle.ts';
import { insertNewEventTerms, insertTerms } from '../terms/store.ts';
import { chunks } from '../../store/chunks.ts';
import { eachInFlight } from '../../store/in-flight.ts';
import type { Store, Trx } from '../../store/store.ts';
import { insertOccurrencesBulk } from '../occurrences/store.ts';
import { organizerKind } from '../organizers/kind.ts';
import { venueKind } from '../venues/kind.ts';

/**
 * The batch write path for imports and benchmark seeding: one transaction per batch of rows, written through the
 * bulk methods of each table's repository (posts/lifecycle.ts for the posts and their change log, events/store.ts,
 * terms/store.ts, linked/store.ts, occurrences/store.ts), which use the store's row writer: a reused prepared
 * statement on SQLite, one JSON-typed statement per table on PostgreSQL. Items are written as already validated;
 * slugs are still made unique.
 */

const ROWS_PER_TRANSACTION = 2000;

export interface BulkPostInput {
  title: string;
  content?: string;
  excerpt?: string;
  slug?: string;
  status?: string;
  authorId: number;
  /** Publication date in UTC and site-local time. */
  published: { utc: string; local: string };
}

export interface BulkEventInput extends BulkPostInput {
  timezone: string;
  /** Local wall-clock start and end in `timezone`, `YYYY-MM-DD HH:MM:SS`. */
  start: string;
  end: string;
  allDay?: boolean;
  cost?: string[];
  website?: string | null;
  featured?: boolean;
  venueId?: number | null;
  organizerIds?: number[];
  categoryIds?: number[];
  tagIds?: number[];
}

export interface BulkVenueInput extends BulkPostInput {
  address?: string;
  city?: string;
  country?: string;
  state?: string;
  zip?: string;
  geo?: { lat: number; lng: number };
}

export interface BulkOrganizerInput extends BulkPostInput {
  phone?: string;
  email?: string;
  website?: string;
}

const statusOf = (input: BulkPostInput) => input.status ?? 'publish';

/**
 * Inserts posts (with unique slugs, logged as created: posts/lifecycle.ts createPosts) and returns their ids in input
 * order.
 */
function insertPosts(
  trx: Trx,
  type: LifecyclePostType,
  inputs: readonly BulkPostInput[],
  modified: { utc: string; local: string },
): Promise<number[]> {
  return createPosts(
    trx,
    type,
    inputs.map((input) => ({
      author_id: input.authorId,
      status: statusOf(input),
      slugBase: input.slug ?? (slugify(input.title) || type),
      title: sanitizeTitle(input.title),
      content: input.content ? sanitizeHtml(input.content) : '',
      excerpt: input.excerpt ? sanitizeHtml(input.excerpt) : '',
      date_local: input.published.local,
      date_utc: input.published.utc,
      modified_local: modified.local,
      modified_utc: modified.utc,
    })),
  );
}

/**
 * Refuses a batch that links to a venue, organizer or term that does not exist, before anything of it is written: a
 * first load builds foreign keys only at its end, where a bad link would fail the whole load instead of naming itself.
 */
async function checkLinks(trx: Trx, batch: readonly BulkEventInput[]): Promise<void> {
  const posts = (type: 'venue' | 'organizer') => (ids: number[]) =>
    trx.selectFrom('posts').select('id').where('type', '=', type).where('id', 'in', ids).execute();
  const links = [
    {
      kind: 'venue',
      ids: batch.flatMap((input) => (input.venueId == null ? [] : [input.venueId])),
      find: posts('venue'),
    },
    { kind: 'organizer', ids: batch.flatMap((input) => input.organizerIds ?? []), find: posts('organizer') },
    {
      kind: 'term',
      ids: batch.flatMap((input) => [...(input.categoryIds ?? []), ...(input.tagIds ?? [])]),
      find: (ids: number[]) => trx.selectFrom('terms').select('id').where('id', 'in', ids).execute(),
    },
  ];
  for (const { kind, ids, find } of links) {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) continue;
    const found = new Set((await find(wanted)).map((row) => row.id));
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new RangeError(`No ${kind} with id ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`);
  }
}

/** Every table a bulk import of venues, organizers and events writes. */
const IMPORTED_TABLES = [
  'posts',
  'venues',
  'organizers',
  'events',
  'occurrences',
  'event_organizers',
  'event_terms',
] as const;

/**
 * A first load into a database that no service is using yet (a new site, a benchmark): `load` runs the bulk inserts
 * with the imported tables' non-unique indexes (and PostgreSQL's foreign keys) built once at the end rather than kept
 * row by row (on SQLite, measured: 1.4× the rate at 10,000 events, 3.5× at a million). Imports into a database in
 * use call the insert functions directly. A process killed during the load leaves those indexes unbuilt: start again
 * from an empty database.
 */
export function firstLoad<T>(store: Store, load: () => Promise<T>): Promise<T> {
  return store.bulkLoad(IMPORTED_TABLES, load);
}

async function inBatches<T>(
  store: Store,
  inputs: readonly T[],
  write: (trx: Trx, batch: T[]) => Promise<number[]>,
  onProgress?: (done: number) => void,
): Promise<number[]> {
  const batches = chunks(inputs, ROWS_PER_TRANSACTION);
  const results: number[][] = [];
  let done = 0;
  // A slug lost to a concurrent writer (another batch, or the service) is chosen again by posts/store.ts insertPosts.
  await eachInFlight(
    batches,
    store.batchConcurrency,
    async (batch, index) => {
      results[index] = await store.batchTransaction((trx) => write(trx, batch));
    },
    (batch) => {
      done += batch.length;
      onProgress?.(done);
    },
  );
  await store.flushBatches();
  return results.flat();
}

export function insertVenuesBulk(
  store: Store,
  inputs: readonly BulkVenueInput[],
  modified: { utc: string; local: string },
): Promise<number[]> {
  return inBatches(store, inputs, async (trx, batch) => {
    const ids = await insertPosts(trx, 'venue', batch, modified);
    // The API's own row builder: the same defaults (stateprovince, map flags) whichever path created the venue.
    await insertMetaRows(
      trx,
      'venues',
      batch.map((input, index) => ({
        id: ids[index],
        ...venueKind.metaForCreate({
          address: input.address,
          city: input.city,
          country: input.country,
          state: input.state,
          zip: input.zip,
          ...(input.geo ? { geo_lat: input.geo.lat, geo_lng: input.geo.lng } : {}),
        }),
      })),
    );
    return ids;
  });
}

export function insertOrganizersBulk(
  store: Store,
  inputs: readonly BulkOrganizerInput[],
  modified: { utc: string; local: string },
): Promise<number[]> {
  return inBatches(store, inputs, async (trx, batch) => {
    const ids = await insertPosts(trx, 'organizer', batch, modified);
    await insertMetaRows(
      trx,
      'organizers',
      batch.map((input, index) => ({
        id: ids[index],
        ...organizerKind.metaForCreate({ phone: input.phone, email: input.email, website: input.website }),
      })),
    );
    return ids;
  });
}

export async function insertTermsBulk(
  store: Store,
  taxonomy: 'event_category' | 'event_tag',
  names: readonly string[],
): Promise<number[]> {
  return store.transaction((trx) =>
    insertTerms(
      trx,
      taxonomy,
      names.map((name) => ({ name, slug: slugify(name) || 'term', description: '', parent_id: 0 })),
    ),
  );
}

/** Events with their occurrence, organizers and terms; `onProgress` receives the running count after each batch. */
export function insertEventsBulk(
  store: Store,
  inputs: readonly BulkEventInput[],
  modified: { utc: string; local: string },
  onProgress?: (done: number) => void,
): Promise<number[]> {
  return inBatches(
    store,
    inputs,
    async (trx, batch) => {
      await checkLinks(trx, batch);
      const ids = await insertPosts(trx, 'event', batch, modified);
      const events = batch.map((input, index) => ({
        id: ids[index],
        ...scheduleColumns({
          timezone: input.timezone,
          timezoneAbbr: timezoneAbbrForLocal(input.timezone, input.start),
          allDay: input.allDay ?? false,
          startLocal: input.start,
          endLocal: input.end,
          startUtc: localToUtc(input.start, input.timezone),
          endUtc: localToUtc(input.end, input.timezone),
        }),
        ...costColumns(input.cost ?? []),
        website: input.website ?? null,
        show_map: 0,
        show_map_link: 0,
        hide_from_listings: 0,
        sticky: 0,
        featured: input.featured ? 1 : 0,
        venue_id: input.venueId ?? null,
      }));
      await insertEventRows(trx, events);
      await insertOccurrencesBulk(
        store,
        trx,
        events.map((event, index) => ({
          eventId: event.id,
          span: {
            startLocal: event.start_local,
            endLocal: event.end_local,
            startUtc: event.start_utc,
            endUtc: event.end_utc,
          },
          listing: {
            status: statusOf(batch[index]),
            publishedUtc: batch[index].published.utc,
            authorId: batch[index].authorId,
            hidden: false,
          },
        })),
      );
      await insertOrganizerLinks(
        trx,
        batch.flatMap((input, index) =>
          (input.organizerIds ?? []).map((organizerId, position) => ({
            event_id: ids[index],
            organizer_id: organizerId,
            position,
          })),
        ),
      );
      await insertNewEventTerms(
        trx,
        batch.map((input, index) => ({
          eventId: ids[index],
          published: statusOf(input) === 'publish',
          termIds: [...new Set([...(input.categoryIds ?? []), ...(input.tagIds ?? [])])],
        })),
      );
      return ids;
    },
    onProgress,
  );
}
