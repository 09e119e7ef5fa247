import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentKeys } from '../../src/http/recent-keys.ts';

describe('RecentKeys', () => {
  it('tells a key seen in this window or the one before from one not seen', () => {
    const recent = new RecentKeys(1000);
    assert.equal(recent.seenAgain('/a', 0), false);
    assert.equal(recent.seenAgain('/a', 999), true, 'the same window');
    assert.equal(recent.seenAgain('/b', 999), false);
    assert.equal(recent.seenAgain('/b', 1500), true, 'the window after the one it was seen in');
    // /a was recorded only in the generation begun at 0; at 2600 the generations are those begun at 1500 and 2600.
    assert.equal(recent.seenAgain('/a', 2600), false, 'more than two windows later');
    assert.equal(recent.seenAgain('/a', 2601), true);
  });

  it('forgets everything when the clock goes back', () => {
    const recent = new RecentKeys(1000);
    recent.seenAgain('/a', 5000);
    assert.equal(recent.seenAgain('/a', 4000), false);
  });

  it('rarely takes a new key for a seen one (a collision of bits)', () => {
    const recent = new RecentKeys(1000, 1 << 16);
    for (let index = 0; index < 2_000; index++) recent.seenAgain(`/events/${index}`, 0);
    let collisions = 0;
    for (let index = 2_000; index < 4_000; index++) if (recent.seenAgain(`/events/${index}`, 0)) collisions++;
    // 2,000 to 4,000 bits set of 65,536: a new key finds its bit set 3–6 % of the time.
    assert.ok(collisions < 200, `${collisions} of 2,000`);
    for (let index = 0; index < 4_000; index++) assert.equal(recent.seenAgain(`/events/${index}`, 1), true);
  });

  it('takes only a power of two for its size', () => {
    assert.throws(() => new RecentKeys(1000, 1000), RangeError);
  });
});
