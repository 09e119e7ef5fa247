import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readStartedAfterCall } from '../../src/store/fresh-read.ts';

/** A read whose answers the test hands out one by one, counting what was sent. */
function controlledRead() {
  const pending: Array<{ resolve: (value: number) => void; reject: (error: Error) => void }> = [];
  return {
    pending,
    read: () => new Promise<number>((resolve, reject) => pending.push({ resolve, reject })),
  };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('readStartedAfterCall', () => {
  it('gives callers arriving during a read the next read, sent once for all of them', async () => {
    const source = controlledRead();
    const read = readStartedAfterCall(source.read);
    const first = read();
    const second = read();
    const third = read();
    assert.equal(source.pending.length, 1, 'one read in flight');
    source.pending[0].resolve(1);
    assert.equal(await first, 1);
    await settled();
    assert.equal(source.pending.length, 2, 'the waiting callers share one new read');
    source.pending[1].resolve(2);
    assert.deepEqual(await Promise.all([second, third]), [2, 2]);
  });

  it('sends a new read for a caller arriving after the last one ended', async () => {
    const source = controlledRead();
    const read = readStartedAfterCall(source.read);
    const first = read();
    source.pending[0].resolve(1);
    assert.equal(await first, 1);
    const later = read();
    assert.equal(source.pending.length, 2);
    source.pending[1].resolve(2);
    assert.equal(await later, 2);
  });

  it('passes a failed read to its callers only, and keeps serving', async () => {
    const source = controlledRead();
    const read = readStartedAfterCall(source.read);
    const first = read();
    const waiting = read();
    source.pending[0].reject(new Error('connection lost'));
    await assert.rejects(first, /connection lost/);
    await settled();
    source.pending[1].resolve(5);
    assert.equal(await waiting, 5);
  });
});
