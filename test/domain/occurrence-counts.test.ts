import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { contributionKeys, countDelta, countKey, monthKey, withMonthKeys } from '../../src/domain/occurrence-counts.ts';

describe('occurrence count keys', () => {
  it('counts each listed occurrence for all events and each of its terms, by status, days and a schedule', () => {
    const keys = contributionKeys(
      [
        {
          status: 'publish',
          publishedUtc: '2029-12-01 10:00:00',
          startLocal: '2030-01-05 22:00:00',
          endLocal: '2030-01-06 01:00:00',
          hidden: false,
        },
        {
          status: 'publish',
          publishedUtc: '2029-12-01 10:00:00',
          startLocal: '2030-01-07 10:00:00',
          endLocal: '2030-01-07 11:00:00',
          hidden: true,
        },
        {
          status: 'future',
          publishedUtc: '2030-01-02 18:00:00',
          startLocal: '2030-01-09 10:00:00',
          endLocal: '2030-01-09 11:00:00',
          hidden: false,
        },
      ],
      { termIds: [4, 4, 9], venueId: null, organizerIds: [] },
    );
    assert.deepEqual(
      keys,
      [
        countKey('', 'publish', '2030-01-05', '2030-01-06'),
        countKey('t4', 'publish', '2030-01-05', '2030-01-06'),
        countKey('t9', 'publish', '2030-01-05', '2030-01-06'),
        countKey('', 'future', '2030-01-09', '2030-01-09', '2030-01-02 18:00:00'),
        countKey('t4', 'future', '2030-01-09', '2030-01-09', '2030-01-02 18:00:00'),
        countKey('t9', 'future', '2030-01-09', '2030-01-09', '2030-01-02 18:00:00'),
      ].sort(),
    );
  });

  it('counts an event at its venue and with each of its organizers too, once each', () => {
    const keys = contributionKeys(
      [
        {
          status: 'publish',
          publishedUtc: '2029-12-01 10:00:00',
          startLocal: '2030-01-05 22:00:00',
          endLocal: '2030-01-05 23:00:00',
          hidden: false,
        },
      ],
      { termIds: [4], venueId: 12, organizerIds: [20, 21, 20] },
    );
    assert.deepEqual(
      keys,
      ['', 't4', 'v12', 'o20', 'o21']
        .map((dimension) => countKey(dimension, 'publish', '2030-01-05', '2030-01-05'))
        .sort(),
    );
  });

  it('moves from one set of keys to another by the delta alone (random multisets)', () => {
    const random = seededRandom(7);
    const keyPool = ['a', 'b', 'c', 'd'];
    const sample = () => Array.from({ length: Math.floor(random() * 6) }, () => keyPool[Math.floor(random() * 4)]);
    for (let round = 0; round < 500; round++) {
      const before = sample();
      const after = sample();
      const counts = new Map<string, number>();
      for (const key of before) counts.set(key, (counts.get(key) ?? 0) + 1);
      for (const [key, change] of countDelta(before, after)) {
        assert.notEqual(change, 0);
        counts.set(key, (counts.get(key) ?? 0) + change);
      }
      for (const key of keyPool)
        assert.equal(
          counts.get(key) ?? 0,
          after.filter((other) => other === key).length,
          JSON.stringify({ before, after }),
        );
    }
  });
  it('count each change under its month too: the start month, and the end month or, in a later month, the end day', () => {
    assert.equal(monthKey(countKey('t4', 'publish', '2030-01-05', '2030-01-06')), 'm:t4|publish|2030-01|2030-01|');
    assert.equal(monthKey(countKey('', 'publish', '2030-01-31', '2030-02-01')), 'm:|publish|2030-01|2030-02-01|');
    assert.equal(
      monthKey(countKey('v7', 'future', '2030-03-02', '2030-03-02', '2030-01-02 18:00:00')),
      'm:v7|future|2030-03|2030-03|2030-01-02 18:00:00',
    );
    const delta = new Map([
      [countKey('', 'publish', '2030-01-05', '2030-01-05'), 1],
      [countKey('', 'publish', '2030-01-09', '2030-01-09'), -1],
      [countKey('', 'publish', '2030-01-10', '2030-02-02'), 2],
    ]);
    assert.deepEqual(
      withMonthKeys(delta),
      new Map([
        ...delta,
        // +1 and -1 in one month: no month row moves.
        ['m:|publish|2030-01|2030-02-02|', 2],
      ]),
    );
  });
});
