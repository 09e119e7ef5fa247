// Keeps the stored documents (D34) exact: every transaction of the store that records changes renders, before it
// commits, the documents of the items it changed (render.ts). An event whose only change is something it embeds
// (a venue's edit, a term's rename) keeps its document: what it embeds is stored or read apart from it.
import { DateTime } from 'luxon';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import { onChangesRecorded, type Change } from '../change-log/log.ts';
import { organizerKind } from '../organizers/kind.ts';
import { venueKind } from '../venues/kind.ts';
import { renderEventDocuments, renderLinkedDocuments } from './render.ts';
import { leaveLinkedAloneUnlessWritten } from './store.ts';

const idsOf = (changes: readonly Change[], type: Change['type']) =>
  changes.filter((change) => change.type === type && !change.embedded).map((change) => change.id);

/** Follows every write of `store` for as long as it is open (or until the returned function is called). */
export function keepDocumentsCurrent(store: Store, config: Config): () => void {
  return onChangesRecorded(store, async (trx, changes) => {
    leaveLinkedAloneUnlessWritten(trx);
    const context = { config, now: DateTime.utc() };
    await renderLinkedDocuments(trx, context, venueKind, idsOf(changes, 'venue'));
    await renderLinkedDocuments(trx, context, organizerKind, idsOf(changes, 'organizer'));
    await renderEventDocuments(trx, context, idsOf(changes, 'event'));
  });
}
