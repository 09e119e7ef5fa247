// What the followers of a transaction's event changes read of those events: the stored documents' renderer
// (documents/render.ts) and the occurrence counts (occurrences/follow-counts.ts) both need each changed event's post,
// event row, organizers and terms as the transaction leaves them. Read once for both, after the events' locks, instead
// of once by each: two statements fewer in every event write (two round trips on PostgreSQL).
import type { Trx } from '../../store/store.ts';
import { readOnceWhileFollowing } from '../change-log/log.ts';
import { lockItems } from '../item-locks.ts';
import { termIdsOfEvents } from '../terms/store.ts';
import { loadEventRecords, loadOrganizerIds, type EventRecord } from './store.ts';

export interface FollowedEvents {
  /** The events that exist (a deleted one is absent), by id. */
  records: Map<number, EventRecord>;
  /** Each event's organizer ids, in their order; an event with none is absent. */
  organizerIds: Map<number, number[]>;
  /** Each event's term ids (categories and tags); an event with none is absent. */
  termIds: Map<number, number[]>;
}

/**
 * Events `ids` as `trx` holds them, each locked first (item-locks.ts): a concurrent writer's follower, which takes the
 * same locks, reads what this transaction commits. Shared by the followers of one transaction's changes.
 */
export function readFollowedEvents(trx: Trx, ids: readonly number[]): Promise<FollowedEvents> {
  return readOnceWhileFollowing(trx, `events:${ids.join()}`, async () => {
    await lockItems(trx, ids);
    const [records, organizerIds, termIds] = await Promise.all([
      loadEventRecords(trx, ids),
      loadOrganizerIds(trx, ids),
      termIdsOfEvents(trx, ids),
    ]);
    return { records, organizerIds, termIds };
  });
}
