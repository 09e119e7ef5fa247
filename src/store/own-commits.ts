import type { VersionStep } from './dialect.ts';
import type { DataPart } from './transaction-hooks.ts';

/** A commit of this process that left `leftAlone` as it was, from data version `before` to `after` (Store.onOwnCommit). */
export interface OwnCommit extends VersionStep {
  leftAlone: ReadonlySet<DataPart>;
  /** How much it moved each term's stored count (recordTermCountDeltas). */
  termCountDeltas: ReadonlyMap<number, number>;
}

export type OwnCommitListener = (commit: OwnCommit) => void;

/**
 * What one write says of the commit that holds it: the data version step it read before committing (none when it
 * left nothing alone, or no cache listens), what it left alone, and how it moved the terms' counts.
 */
export interface WriteReport {
  step?: VersionStep;
  leftAlone: ReadonlySet<DataPart>;
  termCountDeltas: ReadonlyMap<number, number>;
}

/**
 * The commit of `writes` as the process's caches are told of it. On SQLite the writes that arrive together share one
 * transaction (sqlite/group-commit.ts), so one commit can hold several: it leaves alone only what every one of them
 * left alone, and moves each term's count by the sum of what they moved it. Undefined when it leaves nothing alone,
 * so that no cache outlives it; also when the writes do not name one step (the writes of one transaction read the
 * same data version, so they always do: a mismatch is taken as nothing left alone, the answer that cannot serve stale
 * data).
 */
export function ownCommitOf(writes: readonly WriteReport[]): OwnCommit | undefined {
  const step = writes[0]?.step;
  if (step === undefined) return undefined;
  const leftAlone = new Set(writes[0].leftAlone);
  const termCountDeltas = new Map<number, number>();
  for (const write of writes) {
    if (write.step?.before !== step.before || write.step.after !== step.after) return undefined;
    for (const part of leftAlone) if (!write.leftAlone.has(part)) leftAlone.delete(part);
    for (const [termId, delta] of write.termCountDeltas)
      termCountDeltas.set(termId, (termCountDeltas.get(termId) ?? 0) + delta);
  }
  if (leftAlone.size === 0) return undefined;
  return { before: step.before, after: step.after, leftAlone, termCountDeltas };
}
