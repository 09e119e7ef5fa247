// D31: the request deadline (store/deadline.ts) on its own: each request expires at its own deadline, and only it,
// whatever the deadlines of the requests around it (a shorter one begun later, one that ended before its own).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkDeadline, runWithDeadline } from '../../src/store/deadline.ts';

/** Settles with the outcome of `promise` as a value: 'resolved', or the error's code. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code ?? 'rejected',
  );

/** A promise that never settles, and one to settle by hand. */
const never = () => new Promise<never>(() => {});
function latch() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('request deadline', () => {
  it('answers rest_timeout for work still running at its deadline, and the work finds it expired', async () => {
    const seen: string[] = [];
    const result = outcome(
      runWithDeadline(20, async () => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        try {
          checkDeadline();
          seen.push('not expired');
        } catch (error) {
          seen.push((error as { code: string }).code);
        }
      }),
    );
    assert.equal(await result, 'rest_timeout');
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.deepEqual(seen, ['rest_timeout']);
  });

  it('expires a shorter deadline begun after a longer one, and leaves the longer one running', async () => {
    const long = latch();
    const longer = outcome(runWithDeadline(5_000, () => long.opened));
    assert.equal(await outcome(runWithDeadline(20, never)), 'rest_timeout');
    long.open();
    assert.equal(await longer, 'resolved', 'the longer deadline had not passed');
  });

  it('still expires a request whose deadline comes after that of one that ended', async () => {
    assert.equal(await outcome(runWithDeadline(10, async () => 'done')), 'resolved');
    assert.equal(await outcome(runWithDeadline(40, never)), 'rest_timeout');
  });

  it('expires many requests each at its own deadline, those that ended before it not at all', async () => {
    const results = await Promise.all(
      [30, 10, 50, 20, 40].map((ms, index) =>
        outcome(runWithDeadline(ms, index % 2 === 0 ? never : async () => 'done')),
      ),
    );
    assert.deepEqual(results, ['rest_timeout', 'resolved', 'rest_timeout', 'resolved', 'rest_timeout']);
  });
});
