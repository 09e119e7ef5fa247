// The date window of event lists (§4.2): the default window and the inclusive and strict bounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  computeDefaultListWindow,
  defaultListWindow,
  inclusiveBound,
  strictBound,
} from '../../../src/domain/dates/list-window.ts';
import { NOW, NY, utc } from './support.ts';
import type { DateBoundKind } from '../../../src/domain/dates/list-window.ts';

describe('defaultListWindow', () => {
  const clock = utc('2026-11-22T04:20:22.500');

  it('matches the reference example on a UTC site', () => {
    assert.deepEqual(defaultListWindow(clock, 'UTC'), { start: '2026-11-21 00:00:00', end: '2028-11-22 23:59:59' });
  });

  it('starts today on a site far enough east of UTC', () => {
    // Yesterday 23:59 UTC is 09:59 today in Brisbane (UTC+10).
    assert.deepEqual(defaultListWindow(clock, 'Australia/Brisbane'), {
      start: '2026-11-22 00:00:00',
      end: '2028-11-22 23:59:59',
    });
  });

  it('starts yesterday on sites west of UTC', () => {
    assert.equal(defaultListWindow(clock, NY).start, '2026-11-21 00:00:00');
    assert.equal(defaultListWindow(clock, 'Pacific/Honolulu').start, '2026-11-21 00:00:00');
  });

  it('takes the end from the UTC date, whatever the site zone and the zone of now', () => {
    // 2026-11-22 04:20 UTC is still the 21st in New York; the end uses the UTC date.
    assert.equal(defaultListWindow(clock.setZone(NY), NY).end, '2028-11-22 23:59:59');
    assert.deepEqual(defaultListWindow(clock.setZone('Asia/Tokyo'), 'UTC'), defaultListWindow(clock, 'UTC'));
  });

  it('answers from its kept windows exactly what it computes, over random instants, zones and orders', () => {
    const zones = ['UTC', NY, 'Australia/Brisbane', 'Pacific/Honolulu', 'Asia/Kathmandu', 'Pacific/Kiritimati'];
    let seed = 20261126;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Instants a few hours apart around a handful of days (day edges, leap days, DST changes), so that kept windows are
    // asked for again, and more distinct (day, zone) pairs than it keeps.
    const days = ['2028-02-28', '2028-02-29', '2026-03-08', '2026-11-01', '2026-12-31', '2027-01-01'];
    for (let index = 0; index < 2000; index++) {
      const day = days[Math.floor(next() * days.length)];
      const instant = utc(`${day}T00:00:00`).plus({ milliseconds: Math.floor(next() * 86_400_000) });
      const zone = zones[Math.floor(next() * zones.length)];
      const now = next() < 0.5 ? instant : instant.setZone(zones[Math.floor(next() * zones.length)]);
      assert.deepEqual(defaultListWindow(now, zone), computeDefaultListWindow(now, zone), `${now.toISO()} ${zone}`);
    }
  });

  it('hands out a window of its own each time, so a caller changing it changes nothing kept', () => {
    const first = defaultListWindow(clock, 'UTC');
    first.start = 'changed';
    assert.equal(defaultListWindow(clock, 'UTC').start, '2026-11-21 00:00:00');
  });

  it('works at the very edges of the UTC day', () => {
    assert.deepEqual(defaultListWindow(utc('2026-01-01T00:00:00'), 'UTC'), {
      start: '2025-12-31 00:00:00',
      end: '2028-01-01 23:59:59',
    });
    assert.deepEqual(defaultListWindow(utc('2026-12-31T23:59:59.999'), 'UTC'), {
      start: '2026-12-30 00:00:00',
      end: '2028-12-31 23:59:59',
    });
  });

  it('overflows from a leap day into March, as PHP does', () => {
    assert.equal(defaultListWindow(utc('2028-02-29T12:00:00'), 'UTC').end, '2030-03-01 23:59:59');
    assert.equal(defaultListWindow(utc('2028-03-01T12:00:00'), 'UTC').start, '2028-02-29 00:00:00');
  });

  it('throws on an invalid site zone', () => {
    assert.throws(() => defaultListWindow(clock, 'Nowhere/Land'), RangeError);
  });
});

describe('inclusiveBound', () => {
  const kinds: DateBoundKind[] = ['end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after'];

  it('snaps start_date to the start of its day', () => {
    assert.equal(inclusiveBound('2026-12-01 11:00:00', 'start_date', 'UTC', NOW), '2026-12-01 00:00:00');
    assert.equal(inclusiveBound('2026-12-01', 'start_date', 'UTC', NOW), '2026-12-01 00:00:00');
  });

  it('snaps every other kind to the end of its day', () => {
    for (const kind of kinds) {
      assert.equal(inclusiveBound('2026-12-01 11:00:00', kind, 'UTC', NOW), '2026-12-01 23:59:59', kind);
      assert.equal(inclusiveBound('2026-12-01', kind, 'UTC', NOW), '2026-12-01 23:59:59', kind);
    }
  });

  it('accepts relative forms and timestamps, read in the site zone', () => {
    assert.equal(inclusiveBound('tomorrow 9am', 'start_date', 'UTC', NOW), '2026-03-05 00:00:00');
    assert.equal(inclusiveBound('+1 week', 'end_date', 'UTC', NOW), '2026-03-11 23:59:59');
    assert.equal(inclusiveBound(1700000000, 'start_date', 'UTC', NOW), '2023-11-14 00:00:00');
    // 2023-11-14 22:13:20 UTC is already the 15th in Brisbane.
    assert.equal(inclusiveBound('1700000000', 'start_date', 'Australia/Brisbane', NOW), '2023-11-15 00:00:00');
    // 15:45 UTC is already the 5th in Auckland.
    assert.equal(inclusiveBound('today', 'ends_after', 'Pacific/Auckland', NOW), '2026-03-05 23:59:59');
  });

  it('takes the date in the site zone of a value with an offset', () => {
    assert.equal(
      inclusiveBound('2026-12-01T23:00:00Z', 'start_date', 'Australia/Brisbane', NOW),
      '2026-12-02 00:00:00',
    );
    assert.equal(inclusiveBound('2026-12-01T23:00:00Z', 'end_date', 'UTC', NOW), '2026-12-01 23:59:59');
  });

  it('answers null for input that is not a date', () => {
    for (const input of ['', 'not-a-date', '2024-02-30', null, [], true, -5]) {
      assert.equal(inclusiveBound(input, 'start_date', 'UTC', NOW), null, JSON.stringify(input));
    }
  });
});

describe('strictBound', () => {
  it('keeps the exact time, read in the site zone', () => {
    assert.equal(strictBound('2026-12-01 11:00:00', 'UTC', NOW), '2026-12-01 11:00:00');
    assert.equal(strictBound('2026-12-01 11:00:00', NY, NOW), '2026-12-01 11:00:00');
    assert.equal(strictBound('2026-12-01', NY, NOW), '2026-12-01 00:00:00');
  });

  it('converts instants to the site zone', () => {
    assert.equal(strictBound('2026-12-01T11:00:00Z', NY, NOW), '2026-12-01 06:00:00');
    assert.equal(strictBound('2026-12-01T11:00:00+02:00', 'UTC', NOW), '2026-12-01 09:00:00');
    assert.equal(strictBound(1700000000, 'Australia/Brisbane', NOW), '2023-11-15 08:13:20');
  });

  it('reads relative forms against now in the site zone, without milliseconds', () => {
    assert.equal(strictBound('now', NY, NOW), '2026-03-04 10:45:30');
    assert.equal(strictBound('tomorrow 9am', NY, NOW), '2026-03-05 09:00:00');
  });

  it('answers null for input that is not a date', () => {
    for (const input of ['', 'before my birthday', '2024-13-01', undefined, {}, 1.5]) {
      assert.equal(strictBound(input, 'UTC', NOW), null, String(input));
    }
  });
});
