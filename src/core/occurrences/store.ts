// The one owner of `occurrences`, the rows event lists read: one per event, and so one per occurrence of a series (each
// is an event of its own, D25). API writes, the batch import and user deletion all write them through here, so the copies they carry
// (status, publication date, author, hidden flag) cannot drift from the events they list.
import type { Insertable } from 'kysely';
import { chunks } from '../../store/chunks.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import type { OccurrencesTable } from '../../store/schema.ts';
import type { Store, Trx } from '../../store/store.ts';

/** When one occurrence takes place: local wall-clock times in the event's zone and their UTC instants. */
export interface OccurrenceSpan {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

/** What lists filter on besides the dates, copied from the event's post and event rows. */
export interface ListingCopy {
  status: string;
  publishedUtc: string;
  authorId: number;
  hidden: boolean;
}

function occurrenceRow(eventId: number, span: OccurrenceSpan, listing: ListingCopy): Insertable<OccurrencesTable> {
  return {
    event_id: eventId,
    start_local: span.startLocal,
    end_local: span.endLocal,
    start_utc: span.startUtc,
    end_utc: span.endUtc,
    status: listing.status,
    published_utc: listing.publishedUtc,
    author_id: listing.authorId,
    hidden: listing.hidden ? 1 : 0,
  };
}

/**
 * The occurrences rows of events, rebuilt from their posts and events rows as they stand in `trx` (every event, each
 * occurrence of a series included, takes place once: its own row holds its dates), in two statements whatever their
 * number; a later write of the post runs {@link refreshListing}.
 */
export async function rebuildOccurrences(trx: Trx, eventIds: readonly number[]): Promise<void> {
  for (const chunk of chunks(eventIds)) {
    await trx.deleteFrom('occurrences').where('event_id', 'in', chunk).execute();
    await insertOccurrences(trx, chunk);
  }
}

/** {@link rebuildOccurrences} of events created in `trx`, which have no occurrences to replace yet. */
export async function insertOccurrences(trx: Trx, eventIds: readonly number[]): Promise<void> {
  for (const chunk of chunks(eventIds)) await occurrencesInserted.affected(trx, chunk);
}

const occurrencesInserted = preparedQuery((db, eventIds: readonly number[]) =>
  db
    .insertInto('occurrences')
    .columns([
      'event_id',
      'start_local',
      'end_local',
      'start_utc',
      'end_utc',
      'status',
      'published_utc',
      'author_id',
      'hidden',
      'series_id',
    ])
    .expression((eb) =>
      eb
        .selectFrom('posts')
        .innerJoin('events', 'events.id', 'posts.id')
        .select([
          'posts.id',
          'events.start_local',
          'events.end_local',
          'events.start_utc',
          'events.end_utc',
          'posts.status',
          'posts.date_utc',
          'posts.author_id',
          'events.hide_from_listings',
          'events.series_id',
        ])
        .where('posts.id', 'in', eventIds),
    ),
);

/** Copies each event's status, publication date, author and hidden flag onto its occurrences. */
export async function refreshListing(trx: Trx, eventIds: readonly number[]): Promise<void> {
  if (eventIds.length === 0) return;
  await listingRefreshed.affected(trx, [...new Set(eventIds)]);
}

const listingRefreshed = preparedQuery((db, eventIds: readonly number[]) =>
  db
    .updateTable('occurrences')
    .set((eb) => ({
      status: eb.selectFrom('posts').select('posts.status').whereRef('posts.id', '=', 'occurrences.event_id'),
      published_utc: eb.selectFrom('posts').select('posts.date_utc').whereRef('posts.id', '=', 'occurrences.event_id'),
      author_id: eb.selectFrom('posts').select('posts.author_id').whereRef('posts.id', '=', 'occurrences.event_id'),
      hidden: eb
        .selectFrom('events')
        .select('events.hide_from_listings')
        .whereRef('events.id', '=', 'occurrences.event_id'),
    }))
    .where('event_id', 'in', eventIds),
);

/** The batch write path: occurrences of new events whose listing copies the import already knows. */
export async function insertOccurrencesBulk(
  store: Store,
  trx: Trx,
  occurrences: ReadonlyArray<{ eventId: number; span: OccurrenceSpan; listing: ListingCopy }>,
): Promise<void> {
  await store.insertRows(
    trx,
    'occurrences',
    occurrences.map(({ eventId, span, listing }) => occurrenceRow(eventId, span, listing)),
  );
}

/** A deleted user's events pass to their heir: the author copies follow (the posts were reassigned in `trx`). */
export async function reassignListingAuthor(trx: Trx, fromUserId: number, toUserId: number): Promise<void> {
  await trx.updateTable('occurrences').set({ author_id: toUserId }).where('author_id', '=', fromUserId).execute();
}
