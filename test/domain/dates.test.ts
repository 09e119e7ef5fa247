import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  dateDetails,
  defaultListWindow,
  formatWp,
  inclusiveBound,
  isValidTimezone,
  localToUtc,
  parseDateInput,
  parseWp,
  resolveZone,
  snapAllDay,
  strictBound,
  timezoneAbbr,
  utcToLocal,
} from '../../src/domain/dates.ts';
import type { DateBoundKind } from '../../src/domain/dates.ts';

const NY = 'America/New_York';
/** Wednesday 2026-03-04, 15:45:30.250 UTC (10:45:30 EST in New York). */
const NOW: DateTime = DateTime.fromISO('2026-03-04T15:45:30.250Z');

const utc = (iso: string): DateTime => DateTime.fromISO(iso, { zone: 'utc' });

/** parseDateInput's answer in WP format (null stays null). */
function parsed(input: unknown, zone = 'UTC', now: DateTime = NOW): string | null {
  const result = parseDateInput(input, zone, now);
  return result === null ? null : formatWp(result);
}

/** parseDateInput's answer as an ISO string with offset, to check the offset too. */
function parsedIso(input: unknown, zone: string, now: DateTime = NOW): string | null {
  const result = parseDateInput(input, zone, now);
  return result === null ? null : result.toISO({ suppressMilliseconds: true });
}

function offsetOf(timezone: string, at: DateTime = NOW): number | null {
  const zone = resolveZone(timezone);
  return zone === null ? null : zone.offset(at.toMillis());
}

describe('parseDateInput', () => {
  describe('absolute values', () => {
    it('accepts the WP format and its shorter forms', () => {
      assert.equal(parsed('2027-03-10 09:00:00'), '2027-03-10 09:00:00');
      assert.equal(parsed('2027-03-10 09:05'), '2027-03-10 09:05:00');
      assert.equal(parsed('2027-03-10'), '2027-03-10 00:00:00');
    });

    it('accepts ISO 8601 with T, seconds, fractions and offsets, in any case', () => {
      assert.equal(parsed('2027-03-10T09:00'), '2027-03-10 09:00:00');
      assert.equal(parsed('2027-03-10T09:00:15'), '2027-03-10 09:00:15');
      assert.equal(parsed('2027-03-10T09:00:15.987'), '2027-03-10 09:00:15');
      assert.equal(parsed('2027-03-10T09:00:15.987Z'), '2027-03-10 09:00:15');
      assert.equal(parsed('2027-03-10t09:00:15z'), '2027-03-10 09:00:15');
      assert.equal(parsed('2027-03-10T09:00:00+02:00'), '2027-03-10 07:00:00');
      assert.equal(parsed('2027-03-10T09:00:00-0330'), '2027-03-10 12:30:00');
      assert.equal(parsed('2027-03-10T09:00:00+02'), '2027-03-10 07:00:00');
      assert.equal(parsed('2027-03-10 09:00:00 +02:00'), '2027-03-10 07:00:00');
    });

    it('trims surrounding whitespace', () => {
      assert.equal(parsed('  2027-03-10 09:00:00\n'), '2027-03-10 09:00:00');
    });

    it('reads values without an offset as wall-clock time in the zone', () => {
      assert.equal(parsedIso('2027-03-10 09:00:00', NY), '2027-03-10T09:00:00-05:00');
      assert.equal(parsedIso('2027-07-10 09:00:00', NY), '2027-07-10T09:00:00-04:00');
      assert.equal(parsedIso('2027-03-10', 'UTC+5.5'), '2027-03-10T00:00:00+05:30');
    });

    it('converts values with an offset to the zone', () => {
      assert.equal(parsedIso('2027-03-10T09:00:00Z', NY), '2027-03-10T04:00:00-05:00');
      assert.equal(parsedIso('2027-07-10T09:00:00+02:00', NY), '2027-07-10T03:00:00-04:00');
      assert.equal(parsedIso('2027-03-10T23:30:00Z', 'UTC+5'), '2027-03-11T04:30:00+05:00');
    });

    it('reads an abbreviation zone as its fixed offset, even out of season', () => {
      assert.equal(parsedIso('2027-07-10 09:00:00', 'EST'), '2027-07-10T09:00:00-05:00');
    });

    it('accepts leap days and rejects impossible dates and times', () => {
      assert.equal(parsed('2024-02-29'), '2024-02-29 00:00:00');
      assert.equal(parsed('2024-02-30'), null);
      assert.equal(parsed('2023-02-29'), null);
      assert.equal(parsed('2024-13-01'), null);
      assert.equal(parsed('2024-00-10'), null);
      assert.equal(parsed('2024-04-31'), null);
      assert.equal(parsed('2024-01-01 24:00:00'), null);
      assert.equal(parsed('2024-01-01T24:00:00Z'), null);
      assert.equal(parsed('2024-01-01 24:00'), null);
      assert.equal(parsed('2024-01-01 12:60'), null);
      assert.equal(parsed('2024-01-01 12:00:60'), null);
      assert.equal(parsed('2024-01-01T10:00:00+25:00'), null);
      assert.equal(parsed('2024-01-01T10:00:00+05:60'), null);
    });

    it('rejects near misses of the formats', () => {
      for (const input of ['2024-1-01', '24-01-01', '2024/01/01', '2024-01-01T', '2024-01-01 9:00', '2024-01-01Z']) {
        assert.equal(parsed(input), null, input);
      }
    });


    it('refuses results outside the years 0001-9999 in the zone', () => {
      assert.equal(parsed('0001-01-01'), '0001-01-01 00:00:00');
      assert.equal(parsed('9999-12-31 23:59:59'), '9999-12-31 23:59:59');
      assert.equal(parsed('0000-12-31'), null);
      assert.equal(parsed('9999-12-31T23:59:59-05:00'), null);
      assert.equal(parsedIso('9999-12-31T23:59:59-05:00', NY), '9999-12-31T23:59:59-05:00');
      assert.equal(parsed('-99999 years'), null);
      assert.equal(parsed('+9999999999999999999999 years'), null);
    });
  });

  describe('Unix timestamps', () => {
    it('accepts a JSON number of seconds as an instant', () => {
      assert.equal(parsed(1700000000), '2023-11-14 22:13:20');
      assert.equal(parsedIso(1700000000, NY), '2023-11-14T17:13:20-05:00');
      assert.equal(parsed(0), '1970-01-01 00:00:00');
    });

    it('accepts an all-digit string, however short', () => {
      assert.equal(parsed('1700000000'), '2023-11-14 22:13:20');
      assert.equal(parsedIso(' 1700000000 ', 'UTC+1'), '2023-11-14T23:13:20+01:00');
      assert.equal(parsed('2024'), '1970-01-01 00:33:44');
    });

    it('rejects negative, fractional, non-finite and out-of-range numbers', () => {
      for (const input of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e20]) {
        assert.equal(parsed(input), null, String(input));
      }
      for (const input of ['-1', '1.5', '1e9', '99999999999999999999']) {
        assert.equal(parsed(input), null, input);
      }
    });
  });

  describe('relative forms (now = Wednesday 2026-03-04 15:45:30.250 UTC)', () => {
    it('reads the day words', () => {
      assert.equal(parsed('now'), '2026-03-04 15:45:30');
      assert.equal(parsed('today'), '2026-03-04 00:00:00');
      assert.equal(parsed('tomorrow'), '2026-03-05 00:00:00');
      assert.equal(parsed('yesterday'), '2026-03-03 00:00:00');
      assert.equal(parsed('noon'), '2026-03-04 12:00:00');
      assert.equal(parsed('midnight'), '2026-03-04 00:00:00');
    });

    it('drops the milliseconds of now', () => {
      assert.equal(parseDateInput('now', 'UTC', NOW)?.millisecond, 0);
      assert.equal(parseDateInput('2027-03-10T09:00:15.987Z', 'UTC', NOW)?.millisecond, 0);
    });

    it('reads the day words in the zone', () => {
      assert.equal(parsedIso('now', NY), '2026-03-04T10:45:30-05:00');
      assert.equal(parsedIso('today', NY), '2026-03-04T00:00:00-05:00');
      // 15:45 UTC is already the 5th in Auckland.
      assert.equal(parsedIso('today', 'Pacific/Auckland'), '2026-03-05T00:00:00+13:00');
    });

    it('adds signed and unsigned offsets of every unit, keeping the time of day', () => {
      assert.equal(parsed('+1 day'), '2026-03-05 15:45:30');
      assert.equal(parsed('-1 days'), '2026-03-03 15:45:30');
      assert.equal(parsed('-2 hours'), '2026-03-04 13:45:30');
      assert.equal(parsed('+1 hour'), '2026-03-04 16:45:30');
      assert.equal(parsed('+3 minutes'), '2026-03-04 15:48:30');
      assert.equal(parsed('-1 minute'), '2026-03-04 15:44:30');
      assert.equal(parsed('+30 seconds'), '2026-03-04 15:46:00');
      assert.equal(parsed('5 weeks'), '2026-04-08 15:45:30');
      assert.equal(parsed('+1 week'), '2026-03-11 15:45:30');
      assert.equal(parsed('+1 month'), '2026-04-04 15:45:30');
      assert.equal(parsed('-2 months'), '2026-01-04 15:45:30');
      assert.equal(parsed('-1 year'), '2025-03-04 15:45:30');
      assert.equal(parsed('+2 years'), '2028-03-04 15:45:30');
      assert.equal(parsed('+1week'), '2026-03-11 15:45:30');
    });

    it('combines offsets', () => {
      assert.equal(parsed('+1 week 2 days'), '2026-03-13 15:45:30');
      assert.equal(parsed('+1 week -2 days'), '2026-03-09 15:45:30');
      assert.equal(parsed('+1 week+2 days'), '2026-03-13 15:45:30');
      assert.equal(parsed('+1 day 2 hours 30 minutes'), '2026-03-05 18:15:30');
    });

    it('reads ago and next/last units', () => {
      assert.equal(parsed('2 days ago'), '2026-03-02 15:45:30');
      assert.equal(parsed('1 week 2 days ago'), '2026-02-23 15:45:30');
      assert.equal(parsed('next week'), '2026-03-11 15:45:30');
      assert.equal(parsed('last month'), '2026-02-04 15:45:30');
      assert.equal(parsed('next year'), '2027-03-04 15:45:30');
    });

    it('clamps month and year offsets to the end of the month', () => {
      assert.equal(parsed('+1 month', 'UTC', utc('2026-01-31T12:00:00')), '2026-02-28 12:00:00');
      assert.equal(parsed('+1 year', 'UTC', utc('2024-02-29T12:00:00')), '2025-02-28 12:00:00');
      assert.equal(parsed('+4 years', 'UTC', utc('2024-02-29T12:00:00')), '2028-02-29 12:00:00');
    });

    it('reads next/last/this weekday as PHP does: 00:00, strictly after/before today', () => {
      assert.equal(parsed('next monday'), '2026-03-09 00:00:00');
      assert.equal(parsed('next wednesday'), '2026-03-11 00:00:00');
      assert.equal(parsed('next tuesday'), '2026-03-10 00:00:00');
      assert.equal(parsed('next thursday'), '2026-03-05 00:00:00');
      assert.equal(parsed('last wednesday'), '2026-02-25 00:00:00');
      assert.equal(parsed('last monday'), '2026-03-02 00:00:00');
      assert.equal(parsed('last thursday'), '2026-02-26 00:00:00');
      assert.equal(parsed('next sunday'), '2026-03-08 00:00:00');
      assert.equal(parsed('next fri'), '2026-03-06 00:00:00');
    });

    it('reads this <weekday> and a bare weekday as today or the next one', () => {
      assert.equal(parsed('this wednesday'), '2026-03-04 00:00:00');
      assert.equal(parsed('wednesday'), '2026-03-04 00:00:00');
      assert.equal(parsed('friday'), '2026-03-06 00:00:00');
      assert.equal(parsed('tue'), '2026-03-10 00:00:00');
    });

    it('reads a trailing time of day', () => {
      assert.equal(parsed('tomorrow 9am'), '2026-03-05 09:00:00');
      assert.equal(parsed('next wednesday 4pm'), '2026-03-11 16:00:00');
      assert.equal(parsed('today 17:30'), '2026-03-04 17:30:00');
      assert.equal(parsed('tomorrow 9:15am'), '2026-03-05 09:15:00');
      assert.equal(parsed('yesterday 23:59'), '2026-03-03 23:59:00');
      assert.equal(parsed('yesterday 23:59:58'), '2026-03-03 23:59:58');
      assert.equal(parsed('tomorrow noon'), '2026-03-05 12:00:00');
      assert.equal(parsed('tomorrow midnight'), '2026-03-05 00:00:00');
      assert.equal(parsed('tomorrow at 9am'), '2026-03-05 09:00:00');
      assert.equal(parsed('tomorrow 9 p.m.'), '2026-03-05 21:00:00');
      assert.equal(parsed('now 9am'), '2026-03-04 09:00:00');
      assert.equal(parsed('last friday 08:00'), '2026-02-27 08:00:00');
    });

    it('reads a time alone as today at that time', () => {
      assert.equal(parsed('9am'), '2026-03-04 09:00:00');
      assert.equal(parsed('16:00'), '2026-03-04 16:00:00');
      assert.equal(parsed('0:05'), '2026-03-04 00:05:00');
      assert.equal(parsed('12am'), '2026-03-04 00:00:00');
      assert.equal(parsed('12pm'), '2026-03-04 12:00:00');
      assert.equal(parsed('12:30am'), '2026-03-04 00:30:00');
      assert.equal(parsed('11:59:59pm'), '2026-03-04 23:59:59');
    });

    it('sets the time before applying offsets, as PHP does', () => {
      assert.equal(parsed('+1 day 9am'), '2026-03-05 09:00:00');
      assert.equal(parsed('9am +2 hours'), '2026-03-04 11:00:00');
      assert.equal(parsed('tomorrow +2 hours'), '2026-03-05 02:00:00');
      assert.equal(parsed('9am tomorrow'), '2026-03-05 09:00:00');
    });

    it('is case-insensitive', () => {
      assert.equal(parsed('  TOMORROW 9AM '), '2026-03-05 09:00:00');
      assert.equal(parsed('Next Wednesday 4PM'), '2026-03-11 16:00:00');
      assert.equal(parsed('NOW'), '2026-03-04 15:45:30');
    });

    it('reads times in the zone', () => {
      assert.equal(parsedIso('tomorrow 9am', NY), '2026-03-05T09:00:00-05:00');
      assert.equal(parsedIso('next monday 4pm', 'UTC-3:30'), '2026-03-09T16:00:00-03:30');
    });
  });

  describe('across DST in America/New_York', () => {
    /** Saturday 2026-03-07 10:00 EST; clocks spring forward on Sunday 2026-03-08 at 02:00. */
    const beforeSpring = utc('2026-03-07T15:00:00');
    /** Saturday 2026-10-31 10:00 EDT; clocks fall back on Sunday 2026-11-01 at 02:00. */
    const beforeFall = utc('2026-10-31T14:00:00');

    it('keeps the wall-clock time for calendar offsets, not for hour offsets', () => {
      assert.equal(parsedIso('+1 day', NY, beforeSpring), '2026-03-08T10:00:00-04:00');
      assert.equal(parsedIso('+24 hours', NY, beforeSpring), '2026-03-08T11:00:00-04:00');
      assert.equal(parsedIso('+1 day', NY, beforeFall), '2026-11-01T10:00:00-05:00');
      assert.equal(parsedIso('+24 hours', NY, beforeFall), '2026-11-01T09:00:00-05:00');
    });

    it('moves a time in the spring-forward gap forward by the gap', () => {
      assert.equal(parsedIso('tomorrow 2:30am', NY, beforeSpring), '2026-03-08T03:30:00-04:00');
      assert.equal(parsedIso('2026-03-08 02:30:00', NY), '2026-03-08T03:30:00-04:00');
    });

    it('takes the first occurrence of a repeated fall-back time', () => {
      assert.equal(parsedIso('tomorrow 1:30am', NY, beforeFall), '2026-11-01T01:30:00-04:00');
      assert.equal(parsedIso('2026-11-01 01:30:00', NY), '2026-11-01T01:30:00-04:00');
      // An instant is kept as given, whichever occurrence it is.
      assert.equal(parsedIso('2026-11-01T06:30:00Z', NY), '2026-11-01T01:30:00-05:00');
    });

    it('starts the day at midnight on both transition days', () => {
      assert.equal(parsedIso('tomorrow', NY, beforeSpring), '2026-03-08T00:00:00-05:00');
      assert.equal(parsedIso('tomorrow', NY, beforeFall), '2026-11-01T00:00:00-04:00');
    });
  });

  describe('invalid input', () => {
    it('rejects strings that are not dates', () => {
      const inputs = [
        '', '   ', 'not-a-date', 'before my birthday', 'tomorrowish', 'next', 'next foo', 'this week', 'this month',
        'ago', '2 ago', '+5 parsecs', '+ weeks', 'tomorrow tomorrow', 'today tomorrow', 'next monday friday',
        '9am 10am', 'noon 9am', '13pm', '0am', '24:00', '12:60', '9:5am', 'at', 'tomorrow at', 'now-ish',
        '2027-03-10 tomorrow', 'tomorrow 2027-03-10', 'monday9am', '1 week2 days', 'null', 'true',
      ];
      for (const input of inputs) assert.equal(parsed(input), null, JSON.stringify(input));
    });

    it('rejects values that are neither strings nor numbers', () => {
      const inputs: unknown[] = [null, undefined, true, false, [], ['2024-01-01'], [1700000000], {}, { date: '2024-01-01' }, 10n];
      for (const input of inputs) assert.equal(parsed(input), null, String(input));
    });

    it('throws on an invalid zone, which callers validate first', () => {
      assert.throws(() => parseDateInput('2027-03-10', 'Mars/Olympus', NOW), RangeError);
      assert.throws(() => parseDateInput('2027-03-10', '', NOW), RangeError);
    });
  });
});

describe('resolveZone and isValidTimezone', () => {
  it('accepts IANA ids', () => {
    assert.equal(resolveZone(NY)?.name, NY);
    assert.equal(offsetOf(NY, utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf(NY, utc('2026-07-15T12:00:00')), -240);
    assert.equal(offsetOf('Europe/Paris', utc('2026-07-15T12:00:00')), 120);
    assert.equal(offsetOf('Asia/Kolkata'), 330);
    assert.equal(offsetOf('Etc/UTC'), 0);
  });

  it('accepts tz database aliases and legacy ids', () => {
    assert.equal(offsetOf('US/Eastern', utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf('EST5EDT', utc('2026-07-15T12:00:00')), -240);
    assert.equal(offsetOf('Asia/Calcutta'), 330);
    assert.equal(offsetOf('GB', utc('2026-07-15T12:00:00')), 60);
    assert.equal(offsetOf('Etc/GMT+5'), -300);
  });

  it('accepts UTC', () => {
    assert.equal(offsetOf('UTC'), 0);
    assert.equal(offsetOf('utc'), 0);
  });

  it('reads abbreviations as fixed offsets, case-insensitively', () => {
    const summer = utc('2026-07-15T12:00:00');
    const expected: Record<string, number> = {
      EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420,
      GMT: 0, CET: 60, CEST: 120, BST: 60, AEST: 600, NST: -210,
    };
    for (const [abbreviation, offset] of Object.entries(expected)) {
      assert.equal(offsetOf(abbreviation, summer), offset, abbreviation);
      assert.equal(offsetOf(abbreviation.toLowerCase(), summer), offset, abbreviation.toLowerCase());
    }
    assert.equal(offsetOf('EST', utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf('CET', utc('2026-01-15T12:00:00')), 60);
  });

  it('accepts offsets', () => {
    assert.equal(offsetOf('+05:00'), 300);
    assert.equal(offsetOf('-0330'), -210);
    assert.equal(offsetOf('-03:30'), -210);
    assert.equal(offsetOf('+05'), 300);
    assert.equal(offsetOf('+5'), 300);
    assert.equal(offsetOf('+00:00'), 0);
    assert.equal(offsetOf('-00:00'), 0);
    assert.equal(offsetOf('+14:00'), 840);
  });

  it('accepts UTC followed by an offset, in hours, hours:minutes or decimal hours', () => {
    assert.equal(offsetOf('UTC+5'), 300);
    assert.equal(offsetOf('UTC-3:30'), -210);
    assert.equal(offsetOf('UTC+5.5'), 330);
    assert.equal(offsetOf('UTC+5.75'), 345);
    assert.equal(offsetOf('UTC-9.5'), -570);
    assert.equal(offsetOf('UTC+12.75'), 765);
    assert.equal(offsetOf('UTC+0'), 0);
    assert.equal(offsetOf('UTC-0'), 0);
    assert.equal(offsetOf('UTC+05:30'), 330);
    assert.equal(offsetOf('UTC+0530'), 330);
    assert.equal(offsetOf('UTC+14'), 840);
    assert.equal(offsetOf('utc+5'), 300);
  });

  it('refuses anything else', () => {
    const invalid = [
      '', ' ', 'Mars/Olympus', 'America/Nowhere', 'UTC+', 'UTC+x', 'UTC+5x', 'UTC+5.123', 'UTC+19', 'UTC5', 'UTCfoo',
      '+25:00', '+19', '+05:60', '+5:5', '5', '05:00', ' UTC', 'EST ', 'XYZ', 'IST', 'ist', 'ECT', 'SST',
      'SystemV/EST5',
    ];
    for (const timezone of invalid) {
      assert.equal(resolveZone(timezone), null, JSON.stringify(timezone));
      assert.equal(isValidTimezone(timezone), false, JSON.stringify(timezone));
    }
  });

  it('isValidTimezone agrees with resolveZone', () => {
    for (const timezone of [NY, 'UTC', 'EST', '+05:00', 'UTC+5.5']) assert.equal(isValidTimezone(timezone), true, timezone);
  });
});

describe('timezoneAbbr', () => {
  const winter = utc('2026-01-15T12:00:00');
  const summer = utc('2026-07-15T12:00:00');

  it('gives EST or EDT for America/New_York depending on the date', () => {
    assert.equal(timezoneAbbr(NY, winter), 'EST');
    assert.equal(timezoneAbbr(NY, summer), 'EDT');
  });

  it('switches at the exact instant of the transition', () => {
    assert.equal(timezoneAbbr(NY, utc('2026-03-08T06:59:59')), 'EST');
    assert.equal(timezoneAbbr(NY, utc('2026-03-08T07:00:00')), 'EDT');
    assert.equal(timezoneAbbr(NY, utc('2026-11-01T05:59:59')), 'EDT');
    assert.equal(timezoneAbbr(NY, utc('2026-11-01T06:00:00')), 'EST');
  });

  it('gives UTC for UTC', () => {
    assert.equal(timezoneAbbr('UTC', summer), 'UTC');
    assert.equal(timezoneAbbr('Etc/UTC', summer), 'UTC');
  });

  it('gives the UTC±x forms back as they are', () => {
    assert.equal(timezoneAbbr('UTC+5', summer), 'UTC+5');
    assert.equal(timezoneAbbr('UTC-3:30', summer), 'UTC-3:30');
    assert.equal(timezoneAbbr('UTC+5.5', summer), 'UTC+5.5');
    assert.equal(timezoneAbbr('UTC+0', summer), 'UTC+0');
  });

  it('gives abbreviations back in capitals, whatever the season', () => {
    assert.equal(timezoneAbbr('EST', summer), 'EST');
    assert.equal(timezoneAbbr('cest', winter), 'CEST');
    assert.equal(timezoneAbbr('gmt', winter), 'GMT');
  });

  it('gives offsets as ±HH:MM', () => {
    assert.equal(timezoneAbbr('+05:00', summer), '+05:00');
    assert.equal(timezoneAbbr('-0330', summer), '-03:30');
    assert.equal(timezoneAbbr('+5', summer), '+05:00');
  });

  it('gives the usual letters for European zones', () => {
    assert.equal(timezoneAbbr('Europe/Paris', winter), 'CET');
    assert.equal(timezoneAbbr('Europe/Paris', summer), 'CEST');
    assert.equal(timezoneAbbr('Europe/London', winter), 'GMT');
    assert.equal(timezoneAbbr('Europe/London', summer), 'BST');
    assert.equal(timezoneAbbr('America/Los_Angeles', summer), 'PDT');
  });

  it('falls back to GMT±x where there are no letters', () => {
    assert.equal(timezoneAbbr('Asia/Tokyo', summer), 'GMT+9');
    assert.equal(timezoneAbbr('Asia/Kolkata', summer), 'GMT+5:30');
  });

  it('gives "" for an invalid zone', () => {
    assert.equal(timezoneAbbr('Mars/Olympus', summer), '');
    assert.equal(timezoneAbbr('', summer), '');
  });
});

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
        const repeated = local >= '2026-11-01 01:00:00' && local < '2026-11-01 02:00:00' && utcWp >= '2026-11-01 06:00:00';
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
    assert.equal(inclusiveBound('2026-12-01T23:00:00Z', 'start_date', 'Australia/Brisbane', NOW), '2026-12-02 00:00:00');
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

describe('timezoneAbbrForLocal', () => {
  it('matches timezoneAbbr for every zone form', async () => {
    const { timezoneAbbrForLocal, timezoneAbbr, parseWp } = await import('../../src/domain/dates.ts');
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
  it('writes a stored wall-clock value with the offset in force in its zone', async () => {
    const { isoWithOffset } = await import('../../src/domain/dates.ts');
    assert.equal(isoWithOffset('2027-03-10 09:00:00', 'UTC'), '2027-03-10T09:00:00+00:00');
    assert.equal(isoWithOffset('2027-01-10 09:00:00', 'America/New_York'), '2027-01-10T09:00:00-05:00');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'America/New_York'), '2027-07-10T09:00:00-04:00');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'Asia/Kolkata'), '2027-07-10T09:00:00+05:30');
    assert.equal(isoWithOffset('2027-07-10 09:00:00', 'UTC+5'), '2027-07-10T09:00:00+05:00');
  });
});
