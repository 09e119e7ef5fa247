import { preparedQuery } from '../../store/prepared-query.ts';
import type { Db, Trx } from '../../store/store.ts';
import { addToPublishedCounts } from './store.ts';

/**
 * §3.4 `count` without scanning a term's events on every read: `terms.published_count` holds how many events with
 * stored status `publish` carry the term, and every event write adjusts it in its own transaction (from what the
 * event was before the write to what it is after). Scheduled events whose date has come count as published (D17)
 * without any write, so those few are added at read time (`publishedUsage`).
 */

/** Whether each event is stored as published, and the terms it carries. */
type TermUsage = Map<number, { published: boolean; termIds: number[] }>;

const termUsageOf = preparedQuery((db, eventIds: readonly number[]) =>
  db
    .selectFrom('posts')
    .innerJoin('events', 'events.id', 'posts.id')
    .leftJoin('event_terms', 'event_terms.event_id', 'posts.id')
    .select(['posts.id', 'posts.status', 'event_terms.term_id', 'events.series_id'])
    .where('posts.id', 'in', eventIds)
    .where('posts.type', '=', 'event'),
);

export async function eventTermUsage(db: Db, eventIds: readonly number[]): Promise<TermUsage> {
  const usage: TermUsage = new Map();
  if (eventIds.length === 0) return usage;
  const rows = await termUsageOf.rows(db, [...new Set(eventIds)]);
  for (const row of rows) {
    // D25: a series counts once, by its own row; its other occurrences never count.
    const counted = row.series_id === null || row.series_id === row.id;
    const entry = usage.get(row.id) ?? { published: counted && row.status === 'publish', termIds: [] };
    if (row.term_id !== null) entry.termIds.push(row.term_id);
    usage.set(row.id, entry);
  }
  return usage;
}

/** Applies the difference between two snapshots of the same events to the stored counts. */
async function applyTermCountChanges(trx: Trx, before: TermUsage, after: TermUsage): Promise<void> {
  const deltas = new Map<number, number>();
  const add = (usage: TermUsage, sign: number) => {
    for (const { published, termIds } of usage.values()) {
      if (published) for (const termId of termIds) deltas.set(termId, (deltas.get(termId) ?? 0) + sign);
    }
  };
  add(before, -1);
  add(after, 1);
  await addToPublishedCounts(trx, deltas);
}

/** Runs an event write and keeps the counts of the terms it touches true, in the same transaction. */
export async function withTermCounts<T>(trx: Trx, eventIds: readonly number[], write: () => Promise<T>): Promise<T> {
  const before = await eventTermUsage(trx, eventIds);
  const result = await write();
  await applyTermCountChanges(trx, before, await eventTermUsage(trx, eventIds));
  return result;
}
