// Retention of the change log (D21): rows older than CHANGES_RETENTION_DAYS are deleted, except the newest row, so
// that the latest seq never goes back. Pruning runs when the service starts and then at most once an interval (an
// hour), after a commit of this process that wrote changes: no timer, nothing on reads, and a database nobody writes
// to keeps what it has (it does not grow). With several processes each prunes on its own schedule; a delete of rows
// another process already deleted is harmless.
import type { Store } from '../../store/store.ts';
import { deleteChangesBefore, formatAt, onChangesCommitted } from './log.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per transaction, so that a large backlog never holds the write lock for long. */
const ROWS_PER_PRUNE = 10_000;

export interface RetentionOptions {
  retentionDays: number;
  /** The clock, for tests. */
  now?: () => Date;
}

/** Deletes the rows older than `retentionDays` (but never the newest row); returns how many. */
export async function pruneChanges(store: Store, options: RetentionOptions): Promise<number> {
  const cutoff = formatAt(new Date((options.now ?? (() => new Date()))().getTime() - options.retentionDays * DAY_MS));
  let deleted = 0;
  for (;;) {
    const count = await store.transaction((trx) => deleteChangesBefore(trx, cutoff, ROWS_PER_PRUNE));
    deleted += count;
    if (count < ROWS_PER_PRUNE) return deleted;
  }
}

export interface PruningOptions extends RetentionOptions {
  /** Least time between two prunings of this process. */
  intervalMs?: number;
  /**
   * Where a failed pruning is reported (it is tried again an interval later). Without it, a failure of the first
   * pruning is thrown and later ones are ignored.
   */
  onError?: (error: unknown) => void;
}

/**
 * Prunes now, then again after a commit through `store` that wrote changes once `intervalMs` (an hour) has passed
 * since the last pruning. Returns a function that stops it.
 */
export async function keepChangesPruned(store: Store, options: PruningOptions): Promise<() => void> {
  const now = options.now ?? (() => new Date());
  const interval = options.intervalMs ?? 60 * 60 * 1000;
  let last = now().getTime();
  let running = false;
  try {
    await pruneChanges(store, options);
  } catch (error) {
    if (!options.onError) throw error;
    options.onError(error);
  }
  return onChangesCommitted(store, () => {
    if (running || now().getTime() - last < interval) return;
    running = true;
    last = now().getTime();
    pruneChanges(store, options)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = false;
      });
  });
}
