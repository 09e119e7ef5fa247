// The commit of several writes as the process's caches are told of it (src/store/own-commits.ts): SQLite commits the
// writes that arrive together in one transaction, and a cache may outlive that commit only for what every one of
// them left alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownCommitOf, type WriteReport } from '../../src/store/own-commits.ts';
import type { DataPart } from '../../src/store/transaction-hooks.ts';

const PARTS: DataPart[] = ['terms', 'credentials', 'linked documents'];
const step = { before: '7:3', after: '7:4' };
const write = (leftAlone: DataPart[], deltas: Array<[number, number]> = [], at = step): WriteReport => ({
  step: at,
  leftAlone: new Set(leftAlone),
  termCountDeltas: new Map(deltas),
});

/** A generator of reproducible numbers (mulberry32), so that a failure can be run again. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the own commit of the writes one commit holds', () => {
  it('is the write itself when the commit holds one', () => {
    assert.deepEqual(ownCommitOf([write(['terms'], [[4, 1]])]), {
      ...step,
      leftAlone: new Set(['terms']),
      termCountDeltas: new Map([[4, 1]]),
    });
  });

  it('leaves alone only what every write left alone, and sums the counts they moved', () => {
    const commit = ownCommitOf([
      write(
        ['terms', 'credentials'],
        [
          [4, 1],
          [5, 1],
        ],
      ),
      write(
        ['credentials', 'terms', 'linked documents'],
        [
          [4, 1],
          [6, -1],
        ],
      ),
    ]);
    assert.deepEqual(commit, {
      ...step,
      leftAlone: new Set(['terms', 'credentials']),
      termCountDeltas: new Map([
        [4, 2],
        [5, 1],
        [6, -1],
      ]),
    });
  });

  it('is nothing once one write left nothing alone, or the writes name other steps, or there are none', () => {
    assert.equal(ownCommitOf([write(['terms']), write(['credentials'])]), undefined, 'no part in common');
    assert.equal(ownCommitOf([write(['terms']), { leftAlone: new Set(), termCountDeltas: new Map() }]), undefined);
    assert.equal(ownCommitOf([write(['terms']), write(['terms'], [], { before: '7:3', after: '7:5' })]), undefined);
    assert.equal(ownCommitOf([]), undefined);
  });

  it('agrees with each write taken alone, over random commits', () => {
    const next = random(20261128);
    for (let round = 0; round < 500; round++) {
      const writes = Array.from({ length: 1 + Math.floor(next() * 6) }, () => {
        const leftAlone = PARTS.filter(() => next() < 0.7);
        const deltas = Array.from({ length: Math.floor(next() * 3) }, (): [number, number] => [
          1 + Math.floor(next() * 4),
          Math.floor(next() * 5) - 2,
        ]);
        // A write whose leftAlone is empty reads no step (store.ts asks for one only when something is left alone).
        return leftAlone.length === 0
          ? { leftAlone: new Set<DataPart>(), termCountDeltas: new Map(deltas) }
          : write(leftAlone, deltas);
      });
      const commit = ownCommitOf(writes);
      // Each part is left alone by the commit exactly when every write left it alone.
      const common = PARTS.filter((part) => writes.every((one) => one.leftAlone.has(part)));
      if (common.length === 0) {
        assert.equal(commit, undefined, `round ${round}`);
        continue;
      }
      assert.deepEqual([...commit!.leftAlone].sort(), common.sort(), `round ${round}`);
      assert.deepEqual([commit!.before, commit!.after], [step.before, step.after]);
      for (const termId of [1, 2, 3, 4]) {
        const sum = writes.reduce((total, one) => total + (one.termCountDeltas.get(termId) ?? 0), 0);
        assert.equal(commit!.termCountDeltas.get(termId) ?? 0, sum, `round ${round}, term ${termId}`);
      }
    }
  });
});
