// D34: renders, in the background, the stored documents that are missing (a database from before they existed, a
// bulk load) or were rendered under another configuration or renderer (the fingerprint). Run once when a process
// starts; meanwhile readers of those items render them live. The renderer takes each document's lock before reading
// its item (documents/render.ts), so a write racing with the job cannot have its document replaced by an older one.
//
// What it checks: every published post, the first time a process of a fingerprint runs it on a database, and after
// that only the posts changed since (the change log's seqs), which is what can have made a document stale since. The
// database remembers the last complete pass (the setting `documents:rendered`: the fingerprint, and the last change
// seq the pass covered). A start with another fingerprint checks everything again, and so does one whose change log
// was pruned past the remembered seq. A pass over everything walks the posts' ids in short ranges, a statement each,
// so that the event loop (a SQLite connection is synchronous) is never held for long, however many posts there are.
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import type { Config } from '../../config.ts';
import type { Db, Store } from '../../store/store.ts';
import { changesRetainedAfter, latestSeq, readChanges } from '../change-log/read.ts';
import { documentFingerprint } from '../documents/fingerprint.ts';
import { renderEventDocuments, renderLinkedDocuments } from '../documents/render.ts';
import { STALE_CHECK_SPAN, stalePostsAmong, stalePostsInRange, type StalePosts } from '../documents/store.ts';
import { organizerKind } from '../organizers/kind.ts';
import { largestPostId } from '../posts/store.ts';
import { readSetting, replaceSetting, writeSetting } from '../settings/store.ts';
import { venueKind } from '../venues/kind.ts';

/** Items rendered per transaction: short enough not to hold a writer up for long. */
export const DOCUMENTS_PER_BATCH = 100;

/** The setting that remembers the last complete pass: `<fingerprint>@<seq>`, or a pass's token while one runs. */
export const RENDERED_SETTING = 'documents:rendered';

export interface DocumentsRun {
  events: number;
  linked: number;
  /** Whether it checked every published post (no complete pass of this fingerprint to start from), or only the changed. */
  checked: 'all' | 'changed';
}

interface Mark {
  fingerprint: string;
  seq: number;
}

function parseMark(value: string | undefined): Mark | undefined {
  const match = value === undefined ? null : /^(.+)@(\d+)$/.exec(value);
  return match ? { fingerprint: match[1], seq: Number(match[2]) } : undefined;
}

/**
 * Renders every stale document; answers how many it rendered. `stopped` ends it between batches; `span` is how many
 * post ids (or changes) one statement checks.
 */
export async function renderStaleDocuments(
  store: Store,
  config: Config,
  stopped: () => boolean = () => false,
  span = STALE_CHECK_SPAN,
): Promise<DocumentsRun> {
  const fingerprint = documentFingerprint(config);
  const setting = await readSetting(store.db, RENDERED_SETTING);
  const mark = parseMark(setting);
  // Read before anything is checked: a change committed after it is checked by the next pass.
  const through = await latestSeq(store.db);
  const fromMark =
    mark !== undefined && mark.fingerprint === fingerprint && (await changesRetainedAfter(store.db, mark.seq));
  const run: DocumentsRun = { events: 0, linked: 0, checked: fromMark ? 'changed' : 'all' };
  const render = async (stale: StalePosts) => {
    // Venues and organizers first: an event's document is served only once those it embeds are there too.
    for (let at = 0; at < stale.linked.length && !stopped(); at += DOCUMENTS_PER_BATCH) {
      const batch = stale.linked.slice(at, at + DOCUMENTS_PER_BATCH);
      await store.transaction(async (trx) => {
        const context = { config, now: DateTime.utc() };
        const ofType = (type: string) => batch.filter((item) => item.type === type).map((item) => item.id);
        await renderLinkedDocuments(trx, context, venueKind, ofType('venue'));
        await renderLinkedDocuments(trx, context, organizerKind, ofType('organizer'));
      });
      run.linked += batch.length;
    }
    for (let at = 0; at < stale.events.length && !stopped(); at += DOCUMENTS_PER_BATCH) {
      const batch = stale.events.slice(at, at + DOCUMENTS_PER_BATCH);
      await store.transaction((trx) => renderEventDocuments(trx, { config, now: DateTime.utc() }, batch));
      run.events += batch.length;
    }
  };

  let expected = setting;
  if (fromMark) {
    if (mark.seq === through) return run;
    await eachChangedPost(store.db, { afterSeq: mark.seq, throughSeq: through, span }, stopped, async (ids) => {
      await render(await stalePostsAmong(store.db, fingerprint, ids));
    });
  } else {
    // A token of this pass first: a pass of another fingerprint rewrites documents without logging a change, so a
    // mark must never survive one (its own would then fail to replace this token, as this one fails to replace it).
    const token = `rendering ${fingerprint} ${randomUUID()}`;
    await store.transaction((trx) => writeSetting(trx, RENDERED_SETTING, token));
    expected = token;
    const last = await largestPostId(store.db);
    for (let after = 0; after < last && !stopped(); after += span) {
      await render(await stalePostsInRange(store.db, fingerprint, after, Math.min(after + span, last)));
    }
  }
  if (!stopped()) {
    const done = `${fingerprint}@${through}`;
    await store.transaction((trx) => replaceSetting(trx, RENDERED_SETTING, expected, done));
  }
  return run;
}

/** Calls `each` with the ids of the posts changed in seqs (`afterSeq`, `throughSeq`], from `span` changes at a time. */
async function eachChangedPost(
  db: Db,
  { afterSeq, throughSeq, span }: { afterSeq: number; throughSeq: number; span: number },
  stopped: () => boolean,
  each: (ids: number[]) => Promise<void>,
): Promise<void> {
  for (let after = afterSeq; after < throughSeq && !stopped(); ) {
    const changes = await readChanges(db, { afterSeq: after, limit: span });
    if (changes.length === 0) return;
    const ids = new Set<number>();
    for (const change of changes) {
      if (change.seq > throughSeq) break;
      if (change.type === 'event' || change.type === 'venue' || change.type === 'organizer') ids.add(change.id);
    }
    await each([...ids]);
    after = changes[changes.length - 1].seq;
  }
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
