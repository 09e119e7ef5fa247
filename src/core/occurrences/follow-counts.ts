// Keeps the occurrence counts exact: every transaction of the store that records changes of events counts those
// events again before it commits (counts.ts). An event whose only change is something it embeds is not counted again.
// The changed events are read once for this follower and the stored documents' renderer (events/followed.ts).
import type { Store } from '../../store/store.ts';
import { onChangesRecorded } from '../change-log/log.ts';
import { readFollowedEvents } from '../events/followed.ts';
import { countEventsAsRead, type CountedEvent } from './counts.ts';

export function keepCountsCurrent(store: Store): () => void {
  return onChangesRecorded(store, async (trx, changes) => {
    const ids = changes.filter((change) => change.type === 'event' && !change.embedded).map((change) => change.id);
    if (ids.length === 0) return;
    const followed = await readFollowedEvents(trx, ids);
    const events = new Map<number, CountedEvent>();
    for (const id of ids) {
      const record = followed.records.get(id);
      if (record === undefined) continue;
      events.set(id, {
        occurrence: {
          status: record.post.status,
          publishedUtc: record.post.date_utc,
          startLocal: record.event.start_local,
          endLocal: record.event.end_local,
          hidden: record.event.hide_from_listings === 1,
        },
        links: {
          termIds: followed.termIds.get(id) ?? [],
          venueId: record.event.venue_id,
          organizerIds: followed.organizerIds.get(id) ?? [],
        },
      });
    }
    await countEventsAsRead(trx, ids, events, followed.created);
  });
}
