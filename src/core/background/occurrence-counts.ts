// Totals without scans (core/occurrences/counts.ts): counts the events of a database from before the counts existed,
// then marks the counts complete, from which point lists add up the ledger instead of counting rows; and compacts the
// ledger every minute, so that a total sums about one row per key. Until the counts are complete, lists count rows.
import type { Store } from '../../store/store.ts';
import {
  COMPACTION_SPAN,
  compactCountsOfRows,
  compactionMarkAfter,
  countsToMergeBetween,
  countEvents,
  lastEventId,
  lastLedgerId,
  markCountsComplete,
  readCompactionMark,
  UNCOUNTED_CHECK_SPAN,
  uncountedEventIds,
  writeCompactionMark,
} from '../occurrences/counts.ts';

const EVENTS_PER_BATCH = 500;
// Every minute. Every ten seconds kept the keys lists sum shorter under a steady stream of creates (the default
// window's sum 62 µs against 320), but had the writes pay for merging their rows within the benchmark's runs of them
// (creates and updates 8–10 % more CPU on SQLite), and it rewrites each busy key six times as often.
const COMPACT_EVERY_MS = 60_000;

/**
 * Counts every event not counted yet, then marks the counts complete; answers how many it counted. Walks the events'
 * ids in ranges of {@link UNCOUNTED_CHECK_SPAN}, a statement each, so that a large database never holds the event loop
 * for long (SQLite's connection is synchronous); events created meanwhile are counted by their own writes.
 */
export async function countUncountedEvents(
  store: Store,
  stopped: () => boolean = () => false,
  span = UNCOUNTED_CHECK_SPAN,
): Promise<number> {
  let counted = 0;
  const last = await lastEventId(store.db);
  for (let after = 0; after < last; after += span) {
    if (stopped()) return counted;
    const uncounted = await uncountedEventIds(store.db, after, Math.min(after + span, last));
    for (let at = 0; at < uncounted.length; at += EVENTS_PER_BATCH) {
      if (stopped()) return counted;
      const batch = uncounted.slice(at, at + EVENTS_PER_BATCH);
      await store.transaction((trx) => countEvents(trx, batch));
      counted += batch.length;
    }
  }
  if (!stopped()) await store.transaction(markCountsComplete);
  return counted;
}

/**
 * Compacts the keys of the ledger rows appended since the last compaction (all of them, the first time), a few
 * thousand ledger ids a transaction; answers how many rows went. A range with nothing to merge takes no transaction,
 * and a compaction that found nothing new writes no mark: with no writes, it commits nothing. `stopped` ends it
 * between steps, leaving the mark where it was.
 */
export async function compactAllCounts(
  store: Store,
  stopped: () => boolean = () => false,
  span = COMPACTION_SPAN,
): Promise<number> {
  const mark = await readCompactionMark(store.db);
  const last = await lastLedgerId(store.db);
  let removed = 0;
  for (let after = mark.afterId; after < last; after += span) {
    if (stopped()) return removed;
    const through = Math.min(after + span, last);
    if (await countsToMergeBetween(store.db, after, through))
      removed += await store.transaction((trx) => compactCountsOfRows(trx, after, through));
  }
  if (compactionMarkAfter(mark, last) !== mark.setting)
    await store.transaction((trx) => writeCompactionMark(trx, mark, last));
  return removed;
}

/** Starts the job in the background; the returned function stops it and waits for what is under way. */
export function keepOccurrenceCounts(
  store: Store,
  options: { onError: (error: unknown) => void },
): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> = countUncountedEvents(store, () => stopped).catch(options.onError);
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? 0 : compactAllCounts(store, () => stopped))).catch(options.onError);
  }, COMPACT_EVERY_MS);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
