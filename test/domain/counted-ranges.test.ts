// The ranges a window adds up (domain/counted-ranges.ts) over the day and month keys a ledger holds
// (domain/occurrence-counts.ts): for random occurrences and windows, the sum of the ranges' rows is the number of
// occurrences the window holds, counted one by one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { countedRanges, lastDayOf, type CountedRange } from '../../src/domain/counted-ranges.ts';
import { countKey, monthDimension, splitKey, withMonthKeys } from '../../src/domain/occurrence-counts.ts';

const SEED = Number(process.env.RANGES_SEED ?? Math.floor(Math.random() * 2 ** 31));

const daysAfter = (first: string, days: number) =>
  new Date(Date.parse(`${first}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** What the statement of core/occurrences/counts.ts adds up: the rows of each range that end by `toDay`. */
function sumOfRanges(ledger: ReadonlyMap<string, number>, ranges: CountedRange[], toDay?: string): number {
  let total = 0;
  for (const range of ranges)
    for (const [key, count] of ledger) {
      const { dimension, startDay, endDay } = splitKey(key);
      if (dimension !== (range.grain === 'month' ? monthDimension('') : '')) continue;
      if (range.from !== undefined && startDay < range.from) continue;
      if (range.to !== undefined && startDay > range.to) continue;
      if (toDay !== undefined && endDay > toDay) continue;
      total += count;
    }
  return total;
}

describe('counted ranges', () => {
  it('split a window into its partial months by day and its whole months by month', () => {
    assert.deepEqual(countedRanges('2026-11-25', '2028-11-26'), [
      { grain: 'day', from: '2026-11-25', to: '2026-11-30' },
      { grain: 'month', from: '2026-12', to: '2028-10' },
      { grain: 'day', from: '2028-11-01', to: '2028-11-26' },
    ]);
    assert.deepEqual(countedRanges('2030-01-01', '2030-03-31'), [{ grain: 'month', from: '2030-01', to: '2030-03' }]);
    assert.deepEqual(countedRanges('2030-01-10', '2030-01-20'), [
      { grain: 'day', from: '2030-01-10', to: '2030-01-20' },
    ]);
    assert.deepEqual(countedRanges('2030-01-31', '2030-02-01'), [
      { grain: 'day', from: '2030-01-31', to: '2030-01-31' },
      { grain: 'day', from: '2030-02-01', to: '2030-02-01' },
    ]);
    assert.deepEqual(countedRanges(undefined, '2030-02-14'), [
      { grain: 'month', to: '2030-01' },
      { grain: 'day', from: '2030-02-01', to: '2030-02-14' },
    ]);
    assert.deepEqual(countedRanges('2029-12-31'), [
      { grain: 'day', from: '2029-12-31', to: '2029-12-31' },
      { grain: 'month', from: '2030-01' },
    ]);
    assert.deepEqual(countedRanges(), [{ grain: 'month' }]);
  });

  it('know the last day of every month, leap years included', () => {
    assert.equal(lastDayOf('2028-02'), '2028-02-29');
    assert.equal(lastDayOf('2100-02'), '2100-02-28');
    assert.equal(lastDayOf('2030-12'), '2030-12-31');
    assert.equal(lastDayOf('2030-04'), '2030-04-30');
  });

  it(`add up to the occurrences of the window for random ledgers (seed ${SEED}, replay: RANGES_SEED=${SEED})`, () => {
    const random = seededRandom(SEED);
    const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
    const someDay = () => daysAfter('2029-10-01', between(0, 600));
    let windowsWithMonths = 0;
    for (let round = 0; round < 300; round++) {
      const occurrences = Array.from({ length: between(0, 40) }, () => {
        const start = someDay();
        return { start, end: daysAfter(start, random() < 0.6 ? 0 : between(1, 90)), count: between(-2, 3) };
      });
      const days = new Map<string, number>();
      for (const { start, end, count } of occurrences) {
        const key = countKey('', 'publish', start, end);
        days.set(key, (days.get(key) ?? 0) + count);
      }
      const ledger = withMonthKeys(days);
      for (let window = 0; window < 20; window++) {
        const [first, last] = [someDay(), someDay()].sort();
        // Whole months often, open bounds sometimes, and now and then a window that ends before it starts.
        const fromDay = random() < 0.15 ? undefined : random() < 0.3 ? `${first.slice(0, 7)}-01` : first;
        let toDay: string | undefined =
          random() < 0.15 ? undefined : random() < 0.3 ? lastDayOf(last.slice(0, 7)) : last;
        if (random() < 0.05 && fromDay !== undefined) toDay = daysAfter(fromDay, -between(1, 40));
        const expected = occurrences
          .filter(
            ({ start, end }) => (fromDay === undefined || start >= fromDay) && (toDay === undefined || end <= toDay),
          )
          .reduce((sum, { count }) => sum + count, 0);
        const ranges = countedRanges(fromDay, toDay);
        if (ranges.some((range) => range.grain === 'month')) windowsWithMonths++;
        const case_ = JSON.stringify({ fromDay, toDay, ranges });
        assert.equal(sumOfRanges(ledger, ranges, toDay), expected, case_);
      }
    }
    assert.ok(windowsWithMonths > 1000, `${windowsWithMonths} windows were added up by month in part`);
  });
});
