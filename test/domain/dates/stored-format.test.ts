// The stored `YYYY-MM-DD HH:MM:SS` format: writing, reading, zone conversions, date details, all-day snapping.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime } from 'luxon';
import {
  dateDetails,
  formatWp,
  isoWithOffset,
  localToUtc,
  parseWp,
  snapAllDay,
  timezoneAbbrForLocal,
  utcToLocal,
} from '../../../src/domain/dates/stored-format.ts';
import { timezoneAbbr } from '../../../src/domain/dates/zones.ts';
import { NY, utc } from './support.ts';

describe('formatWp', () => {
  it('formats the wall-clock time of the DateTime, zero-padded, without milliseconds', () => {
    assert.equal(formatWp(utc('2027-03-05T07:08:09.999')), '2027-03-05 07:08:09');
    assert.equal(formatWp(utc('2027-03-05T07:08:09').setZone(NY)), '2027-03-05 02:08:09');
  });

  it('throws on an invalid DateTime', () => {
    assert.throws(() => formatWp(DateTime.invalid('test')), RangeError);
  });
});

describe('parseWp', () => {
  it('reads the stored format as wall-clock time in the zone', () => {
    assert.equal(parseWp('2027-03-10 09:00:00', NY).toISO(), '2027-03-10T09:00:00.000-05:00');
    assert.equal(parseWp('2027-07-10 09:00:00', NY).toISO(), '2027-07-10T09:00:00.000-04:00');
    assert.equal(parseWp('2024-02-29 23:59:59', 'UTC+5.5').toISO(), '2024-02-29T23:59:59.000+05:30');
  });

  it('applies the gap and overlap rules', () => {
    assert.equal(parseWp('2026-03-08 02:30:00', NY).toISO(), '2026-03-08T03:30:00.000-04:00');
    assert.equal(parseWp('2026-11-01 01:30:00', NY).toISO(), '2026-11-01T01:30:00.000-04:00');
  });

  it('throws on any other format, impossible dates and invalid zones', () => {
    for (const input of ['2027-03-10', '2027-03-10T09:00:00', '2027-03-10 09:00', ' 2027-03-10 09:00:00', 'tomorrow']) {
      assert.throws(() => parseWp(input, 'UTC'), RangeError, input);
    }
    assert.throws(() => parseWp('2023-02-29 00:00:00', 'UTC'), RangeError);
    assert.throws(() => parseWp('2023-01-01 24:00:00', 'UTC'), RangeError);
    assert.throws(() => parseWp('2023-01-01 00:00:00', 'Mars/Olympus'), RangeError);
  });
});

describe('dateDetails', () => {
  it('splits a WP value into zero-padded strings, in the contract key order', () => {
    const details = dateDetails('2027-03-05 07:08:09');
    assert.deepEqual(details, { year: '2027', month: '03', day: '05', hour: '07', minutes: '08', seconds: '09' });
    assert.deepEqual(Object.keys(details), ['year', 'month', 'day', 'hour', 'minutes', 'seconds']);
  });

  it('throws on a malformed value', () => {
    assert.throws(() => dateDetails('2027-03-05'), RangeError);
    assert.throws(() => dateDetails('2027-3-5 7:08:09'), RangeError);
  });
});

describe('localToUtc and utcToLocal', () => {
  it('convert with the offset in force at that date', () => {
    assert.equal(localToUtc('2027-01-10 09:00:00', NY), '2027-01-10 14:00:00');
    assert.equal(localToUtc('2027-07-10 09:00:00', NY), '2027-07-10 13:00:00');
    assert.equal(utcToLocal('2027-01-10 14:00:00', NY), '2027-01-10 09:00:00');
    assert.equal(utcToLocal('2027-07-10 13:00:00', NY), '2027-07-10 09:00:00');
  });

  it('handle UTC, fixed offsets and abbreviations, across dates and leap days', () => {
    assert.equal(localToUtc('2027-03-10 09:00:00', 'UTC'), '2027-03-10 09:00:00');
    assert.equal(localToUtc('2024-03-01 02:00:00', 'UTC+5.5'), '2024-02-29 20:30:00');
    assert.equal(utcToLocal('2024-02-29 20:30:00', 'UTC+5.5'), '2024-03-01 02:00:00');
    assert.equal(localToUtc('2024-02-29 22:00:00', 'UTC-5'), '2024-03-01 03:00:00');
    assert.equal(localToUtc('2027-07-10 09:00:00', 'EST'), '2027-07-10 14:00:00');
    assert.equal(localToUtc('2027-07-10 09:00:00', '-03:30'), '2027-07-10 12:30:00');
  });

  it('move a local time in the spring-forward gap forward by an hour', () => {
    // 02:30 does not exist on 2026-03-08 in New York; it is read as 03:30 EDT.
    assert.equal(localToUtc('2026-03-08 02:30:00', NY), '2026-03-08 07:30:00');
    assert.equal(localToUtc('2026-03-08 01:59:59', NY), '2026-03-08 06:59:59');
    assert.equal(localToUtc('2026-03-08 03:00:00', NY), '2026-03-08 07:00:00');
  });

  it('read a repeated fall-back time as its first (EDT) occurrence', () => {
    assert.equal(localToUtc('2026-11-01 01:30:00', NY), '2026-11-01 05:30:00');
    assert.equal(utcToLocal('2026-11-01 05:30:00', NY), '2026-11-01 01:30:00');
    assert.equal(utcToLocal('2026-11-01 06:30:00', NY), '2026-11-01 01:30:00');
    assert.equal(localToUtc('2026-11-01 02:00:00', NY), '2026-11-01 07:00:00');
  });

  it('round-trip every UTC minute around both transitions, except the repeated hour', () => {
    for (const start of ['2026-03-08T05:00:00', '2026-11-01T04:00:00']) {
      for (let minute = 0; minute < 240; minute += 15) {
        const utcWp = formatWp(utc(start).plus({ minutes: minute }));
        const local = utcToLocal(utcWp, NY);
        const repeated =
          local >= '2026-11-01 01:00:00' && local < '2026-11-01 02:00:00' && utcWp >= '2026-11-01 06:00:00';
        if (!repeated) assert.equal(localToUtc(local, NY), utcWp, utcWp);
      }
    }
  });

  it('throw on malformed values and invalid zones', () => {
    assert.throws(() => localToUtc('2027-03-10', NY), RangeError);
    assert.throws(() => utcToLocal('2027-03-10 09:00:00', 'Nowhere/Land'), RangeError);
  });
});

describe('snapAllDay', () => {
  it('snaps the start to 00:00:00 and the end to 23:59:59 of their own days', () => {
    assert.deepEqual(snapAllDay('2027-03-10 09:30:00', '2027-03-10 17:00:00'), {
      start: '2027-03-10 00:00:00',
      end: '2027-03-10 23:59:59',
    });
    assert.deepEqual(snapAllDay('2027-03-10 23:59:59', '2027-03-12 00:00:00'), {
      start: '2027-03-10 00:00:00',
      end: '2027-03-12 23:59:59',
    });
  });

  it('throws on malformed values', () => {
    assert.throws(() => snapAllDay('2027-03-10', '2027-03-10 17:00:00'), RangeError);
    assert.throws(() => snapAllDay('2027-03-10 09:30:00', 'tomorrow'), RangeError);
  });
});

describe('timezoneAbbrForLocal', () => {
  it('matches timezoneAbbr for every zone form', () => {
    for (const [zone, local, expected] of [
      ['America/New_York', '2027-01-10 09:00:00', 'EST'],
      ['America/New_York', '2027-07-10 09:00:00', 'EDT'],
      ['Europe/Paris', '2027-07-10 09:00:00', 'CEST'],
      ['UTC', '2027-07-10 09:00:00', 'UTC'],
      ['UTC+5', '2027-07-10 09:00:00', 'UTC+5'],
      ['EST', '2027-07-10 09:00:00', 'EST'],
      ['+05:30', '2027-07-10 09:00:00', '+05:30'],
      ['Not/AZone', '2027-07-10 09:00:00', ''],
    ]) {
      assert.equal(timezoneAbbrForLocal(zone, local), expected, zone);
      if (expected !== '') assert.equal(timezoneAbbr(zone, parseWp(local, zone)), expected, zone);
    }
  });
});

describe('isoWithOffset', () => {
  it('writes a stored wall-clock value with the offset in force in its zone', () => {
    assert.equal(isoWithOffset('2027-03-10 09:00:00', 'UTC'), '2027-03-10T09:00:00+00:00');
    assert.equal(isoWithOffset('2027-01-10 09:00:00', 'America/New_York'), '2027-01-10T09:00:00-05:00');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'America/New_York'), '2027-07-10T09:00:00-04:00');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'Asia/Kolkata'), '2027-07-10T09:00:00+05:30');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'UTC+5'), '2027-07-10T09:00:00+05:00');
  });
});
