// Reading the change log (D21) for sync, webhooks and feeds. Seqs of committed rows increase in commit order with no
// gap behind a reader (log.ts): a reader that remembers the last seq it saw and asks for larger ones misses nothing,
// except what retention pruned (see changesRetainedAfter).
import type { RawBuilder } from 'kysely';
import { preparedQuery, preparedQueryPer } from '../../store/prepared-query.ts';
import type { Db, Store } from '../../store/store.ts';
import type { CommittedChange } from './log.ts';

export interface ReadChangesOptions {
  /** Only changes with a larger seq (0: from the oldest retained). */
  afterSeq: number;
  /** At most this many, the oldest first. */
  limit: number;
}

/** Committed changes with seq > `afterSeq`, in seq order, at most `limit`. */
export async function readChanges(db: Db, options: ReadChangesOptions): Promise<CommittedChange[]> {
  const rows = await db
    .selectFrom('changes')
    .select(['seq', 'type', 'id', 'action', 'before_status', 'before_author', 'at'])
    .where('seq', '>', options.afterSeq)
    .orderBy('seq')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({
    seq: Number(row.seq),
    type: row.type,
    id: row.id,
    action: row.action,
    before: row.before_status === null ? null : { status: row.before_status, authorId: row.before_author ?? 0 },
    at: row.at,
  }));
}

const largestSeq = preparedQuery((db) => db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')));

/** The largest seq committed so far, 0 when nothing was ever logged (retention always keeps the newest row). */
export async function latestSeq(db: Db): Promise<number> {
  const row = await largestSeq.first(db);
  return Number(row?.seq ?? 0);
}

/**
 * {@link latestSeq} and the data version, in one statement (one snapshot, one round trip): everything committed up to
 * the seq is inside that version.
 */
export async function latestSeqAndDataVersion(store: Store): Promise<{ seq: number; version: string }> {
  const row = await seqAndVersion(store.dataVersionColumn).first(store.db);
  if (row === undefined) throw new Error('the largest seq was read without a row');
  return { seq: Number(row.seq ?? 0), version: String(row.version) };
}

/** The statement of {@link latestSeqAndDataVersion}, per store (its data version's expression): read by every list. */
const seqAndVersion = preparedQueryPer(
  (version: RawBuilder<string>) => (db) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom('changes')
        .select((changes) => changes.fn.max('seq').as('seq'))
        .as('seq'),
      version.as('version'),
    ]),
);

/** The smallest seq still in the log, null when it is empty. */
export async function oldestRetainedSeq(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.min('seq').as('seq'))
    .executeTakeFirst();
  return row?.seq == null ? null : Number(row.seq);
}

/**
 * Whether the log still holds every change after `afterSeq`: false when retention pruned some, and a reader resuming
 * from `afterSeq` must start over from the current state. Ask it *after* reading the changes: pruning only ever
 * removes the oldest rows, so a true answer then covers what was read.
 */
export async function changesRetainedAfter(db: Db, afterSeq: number): Promise<boolean> {
  const oldest = await oldestRetainedSeq(db);
  // Retention keeps the newest row, so an empty log never had one. Seqs may skip numbers (a rolled-back PostgreSQL
  // transaction used some), so a reader just before the oldest retained row is the furthest back known to be safe.
  return oldest === null || afterSeq >= oldest - 1;
}
