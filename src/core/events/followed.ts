// What the followers of a transaction's event changes read of those events: the stored documents' renderer
// (documents/render.ts) and the occurrence counts (occurrences/follow-counts.ts) both need each changed event's post,
// event row, organizers and terms as the transaction leaves them. Read once for both, after the events' locks, instead
// of once by each: two statements fewer in every event write (two round trips on PostgreSQL), and the organizers and
// terms in one statement (one more). An event the transaction created, whose writer said how it left it, is not read
// at all.
import type { Trx } from '../../store/store.ts';
import type { PostRow } from '../posts/store.ts';
import { readOnceWhileFollowing } from '../change-log/log.ts';
import { lockItems } from '../item-locks.ts';
import { loadEventLinks, loadEventRecords, type EventRecord, type EventRow } from './store.ts';

export interface FollowedEvents {
  /** The events that exist (a deleted one is absent), by id. */
  records: Map<number, EventRecord>;
  /** Each event's organizer ids, in their order; an event with none is absent. */
  organizerIds: Map<number, number[]>;
  /** Each event's term ids (categories and tags); an event with none is absent. */
  termIds: Map<number, number[]>;
  /** Those created in the transaction, as their create said it left them (nothing was read of them). */
  created: ReadonlySet<number>;
}

/** A new event as its create left it: its rows as the inserts answered them, its links as they were inserted. */
export interface CreatedEvent {
  post: PostRow;
  event: EventRow;
  organizerIds: readonly number[];
  termIds: readonly number[];
}

/** Per transaction, the events it created whose create said how it left them (see {@link followCreatedEvent}). */
const createdEvents = new WeakMap<Trx, Map<number, CreatedEvent>>();

/**
 * Says how a create left its new event in `trx`: the followers then read nothing of it. Only for a create's last
 * write of the event in its transaction (createEvent's, which is all its transaction does): a later write of the same
 * event in `trx` would not be seen.
 */
export function followCreatedEvent(trx: Trx, created: CreatedEvent): void {
  let known = createdEvents.get(trx);
  if (known === undefined) {
    known = new Map();
    createdEvents.set(trx, known);
  }
  known.set(created.post.id, created);
}

/**
 * Events `ids` as `trx` holds them, each locked first (item-locks.ts): a concurrent writer's follower, which takes the
 * same locks, reads what this transaction commits. Shared by the followers of one transaction's changes. An event
 * created in `trx` whose create said how it left it is neither read nor locked: no other transaction sees an event
 * before its create commits, so none can be writing it meanwhile. Only the others are read (a batch of new events
 * beside a series' occurrences or an updated event reads those alone).
 */
export function readFollowedEvents(trx: Trx, ids: readonly number[]): Promise<FollowedEvents> {
  const known = createdEvents.get(trx);
  const created = known === undefined ? [] : ids.flatMap((id) => known.get(id) ?? []);
  if (ids.length > 0 && created.length === ids.length) return Promise.resolve(asFollowed(created));
  const unknown = known === undefined ? ids : ids.filter((id) => !known.has(id));
  return readOnceWhileFollowing(trx, `events:${ids.join()}`, async () => {
    await lockItems(trx, unknown);
    const [records, { organizerIds, termIds }] = await Promise.all([
      loadEventRecords(trx, unknown),
      loadEventLinks(trx, unknown),
    ]);
    const followed = asFollowed(created);
    for (const [id, record] of records) followed.records.set(id, record);
    for (const [id, organizers] of organizerIds) followed.organizerIds.set(id, organizers);
    for (const [id, terms] of termIds) followed.termIds.set(id, terms);
    return followed;
  });
}

/** What the reads would answer of created events: links in their order (organizers by position, terms by id). */
function asFollowed(created: readonly CreatedEvent[]): FollowedEvents {
  const followed: FollowedEvents = {
    records: new Map(),
    organizerIds: new Map(),
    termIds: new Map(),
    created: new Set(created.map(({ post }) => post.id)),
  };
  for (const { post, event, organizerIds, termIds } of created) {
    followed.records.set(post.id, { post, event });
    if (organizerIds.length > 0) followed.organizerIds.set(post.id, [...organizerIds]);
    if (termIds.length > 0)
      followed.termIds.set(
        post.id,
        [...termIds].sort((a, b) => a - b),
      );
  }
  return followed;
}
