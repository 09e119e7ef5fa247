import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { TabledZone } from '../../../src/domain/dates/tabled-zone.ts';
import { wallClock, wallClockInstant, type WallClockFields } from '../../../src/domain/dates/wall-clock.ts';

/**
 * The reading wallClock had before it checked the fields itself: Luxon's `fromObject` in UTC decides which fields name
 * a time, then the same gap and overlap rule.
 */
function throughLuxon(fields: WallClockFields, zone: Zone): DateTime {
  if (fields.hour > 23) return DateTime.invalid('hour out of range');
  const checked = DateTime.fromObject(fields, { zone: FixedOffsetZone.utcInstance });
  if (!checked.isValid) return checked;
  return DateTime.fromMillis(wallClockInstant(checked.toMillis(), zone), { zone });
}

const ZONES: Zone[] = [
  FixedOffsetZone.utcInstance,
  new TabledZone(IANAZone.create('America/New_York')),
  new TabledZone(IANAZone.create('Australia/Lord_Howe')),
  IANAZone.create('Europe/Rome'),
  FixedOffsetZone.instance(330),
];

describe('wallClock', () => {
  it('accepts and reads exactly the fields Luxon reads, valid or not, in zones with and without transitions', () => {
    let seed = 29;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = (values: readonly number[]) => values[Math.floor(next() * values.length)];
    const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
    let valid = 0;
    let invalid = 0;
    for (let index = 0; index < 20_000; index++) {
      // Mostly plain values, each field now and then one at or past its bounds.
      const or = (plain: number, edges: readonly number[]) => (next() < 0.9 ? plain : pick(edges));
      const fields: WallClockFields = {
        // Years Date reads as 1900s when given alone, leap years, the ends of the range, and beyond it.
        year: or(pick([between(1900, 2100), between(1, 99), 2024, 2100, 2000]), [9999, 0, -5, 300_000]),
        month: or(between(1, 12), [0, 13, 2]),
        day: or(between(1, 28), [29, 30, 31, 0, 32]),
        hour: or(between(0, 23), [2, 1, 24, -1]),
        minute: or(between(0, 59), [30, 60, -1, 0.5]),
        second: or(between(0, 59), [0, 60, 59]),
      };
      const zone = ZONES[index % ZONES.length];
      const actual = wallClock(fields, zone);
      const expected = throughLuxon(fields, zone);
      const label = `${JSON.stringify(fields)} in ${zone.name}`;
      assert.equal(actual.isValid, expected.isValid, label);
      if (!expected.isValid) {
        invalid++;
        continue;
      }
      valid++;
      assert.equal(actual.toMillis(), expected.toMillis(), label);
      assert.equal(actual.zone, zone, label);
    }
    // Both kinds were drawn often enough to mean something.
    assert.ok(valid > 5_000 && invalid > 2_000, `${valid} valid, ${invalid} invalid`);
  });

  it('reads a time in a spring-forward gap forward by the gap, and a repeated time as its first occurrence', () => {
    const newYork = new TabledZone(IANAZone.create('America/New_York'));
    const gap = wallClock({ year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 0 }, newYork);
    assert.equal(gap.toISO(), '2026-03-08T03:30:00.000-04:00');
    const repeated = wallClock({ year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 }, newYork);
    assert.equal(repeated.toISO(), '2026-11-01T01:30:00.000-04:00');
  });
});
