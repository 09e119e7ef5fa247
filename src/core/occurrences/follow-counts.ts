// Keeps the occurrence counts exact: every transaction of the store that records changes of events counts those
// events again before it commits (counts.ts). An event whose only change is something it embeds is not counted again.
import type { Store } from '../../store/store.ts';
import { onChangesRecorded } from '../change-log/log.ts';
import { countEvents } from './counts.ts';

export function keepCountsCurrent(store: Store): () => void {
  return onChangesRecorded(store, (trx, changes) =>
    countEvents(
      trx,
      changes.filter((change) => change.type === 'event' && !change.embedded).map((change) => change.id),
    ),
  );
}
