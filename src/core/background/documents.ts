// D34: renders, in the background, the stored documents that are missing (a database from before they existed, a
// bulk load) or were rendered under another configuration or renderer (the fingerprint). Run once when a process
// starts; meanwhile readers of those items render them live. The renderer takes each document's lock before reading
// its item (documents/render.ts), so a write racing with the job cannot have its document replaced by an older one.
import { DateTime } from 'luxon';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import { documentFingerprint } from '../documents/fingerprint.ts';
import { renderEventDocuments, renderLinkedDocuments } from '../documents/render.ts';
import { staleEventIds, staleLinkedIds } from '../documents/store.ts';
import { organizerKind } from '../organizers/kind.ts';
import { venueKind } from '../venues/kind.ts';

/** Items rendered per transaction: short enough not to hold a writer up for long. */
export const DOCUMENTS_PER_BATCH = 100;

export interface DocumentsRun {
  events: number;
  linked: number;
}

/** Renders every stale document; answers how many it rendered. `stopped` ends it between batches. */
export async function renderStaleDocuments(
  store: Store,
  config: Config,
  stopped: () => boolean = () => false,
): Promise<DocumentsRun> {
  const fingerprint = documentFingerprint(config);
  const run: DocumentsRun = { events: 0, linked: 0 };
  // Venues and organizers first: an event's document is served only once those it embeds are there too.
  for (let after = 0; !stopped(); ) {
    const batch = await staleLinkedIds(store.db, fingerprint, after, DOCUMENTS_PER_BATCH);
    if (batch.length === 0) break;
    await store.transaction(async (trx) => {
      const context = { config, now: DateTime.utc() };
      const ofType = (type: string) => batch.filter((item) => item.type === type).map((item) => item.id);
      await renderLinkedDocuments(trx, context, venueKind, ofType('venue'));
      await renderLinkedDocuments(trx, context, organizerKind, ofType('organizer'));
    });
    run.linked += batch.length;
    after = batch[batch.length - 1].id;
  }
  for (let after = 0; !stopped(); ) {
    const batch = await staleEventIds(store.db, fingerprint, after, DOCUMENTS_PER_BATCH);
    if (batch.length === 0) break;
    await store.transaction(async (trx) => {
      await renderEventDocuments(trx, { config, now: DateTime.utc() }, batch);
    });
    run.events += batch.length;
    after = batch[batch.length - 1];
  }
  return run;
}

/** Starts the job in the background; the returned function stops it (between batches) and waits for it. */
export function keepDocumentsRendered(
  store: Store,
  config: Config,
  options: { onError: (error: unknown) => void; onDone?: (run: DocumentsRun) => void },
): () => Promise<void> {
  let stopped = false;
  const running = renderStaleDocuments(store, config, () => stopped).then(options.onDone, options.onError);
  return async () => {
    stopped = true;
    await running;
  };
}
