// D26: an event's iCalendar identity that writes keep: SEQUENCE grows by one each time what a calendar shows as the
// event's "when, what, where, whether" changes (the rule: domain/ical-sequence.ts), and the import's own columns (UID,
// digest).
import type { Updateable } from 'kysely';
import { sequenceChanges, type SequenceFields } from '../../domain/ical-sequence.ts';
import type { EventsTable } from '../../store/schema.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import type { Trx } from '../../store/store.ts';
import { incrementIcalSequence } from './store.ts';

async function currentFields(trx: Trx, id: number): Promise<SequenceFields | undefined> {
  return sequenceFieldsOf.first(trx, id);
}

const sequenceFieldsOf = preparedQuery((db, id: number) =>
  db
    .selectFrom('posts')
    .innerJoin('events', 'events.id', 'posts.id')
    .select([
      'posts.title',
      'posts.status',
      'events.start_local',
      'events.end_local',
      'events.timezone',
      'events.all_day',
      'events.venue_id',
      'events.recurrence',
    ])
    .where('posts.id', '=', id),
);

/**
 * The hook of event writes (events/service.ts): reads what the write left in `trx` and grows SEQUENCE by one when it
 * differs from `before` (the row as claimed). One read, and one update only when something a subscriber sees moved.
 */
export async function followSequence(trx: Trx, id: number, before: SequenceFields): Promise<void> {
  const after = await currentFields(trx, id);
  if (after !== undefined && sequenceChanges(before, after)) await incrementIcalSequence(trx, id);
}

/**
 * The hook of a trash: subscribers must take the CANCELLED over the last version they saw (SEQUENCE + 1); a cancelled
 * occurrence of a series (D25) also gives its series a new EXDATE, so the series' SEQUENCE grows too.
 */
export async function followTrash(trx: Trx, event: { id: number; series_id: number | null }): Promise<void> {
  await incrementIcalSequence(trx, event.id);
  if (event.series_id !== null && event.series_id !== event.id) await incrementIcalSequence(trx, event.series_id);
}

/**
 * The import's columns of an event write: only the .ics import sends `ical_uid`/`ical_hash` (no HTTP schema declares
 * them, so a request can never set them).
 */
export function icalColumns(sent: Record<string, unknown>): Updateable<EventsTable> {
  const columns: Updateable<EventsTable> = {};
  if (typeof sent.ical_uid === 'string') columns.ical_uid = sent.ical_uid;
  if (typeof sent.ical_hash === 'string') columns.ical_hash = sent.ical_hash;
  return columns;
}
