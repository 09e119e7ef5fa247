// Dates given by clients (D8): the absolute forms, Unix timestamps and what is not a date.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDateInput } from '../../../src/domain/dates/input-grammar.ts';
import { NOW, NY, parsed, parsedIso } from './support.ts';

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

    it("accepts a date with a 12-hour time, as PHP's strtotime reads it", () => {
      assert.equal(parsed('2018-01-01 4pm'), '2018-01-01 16:00:00');
      assert.equal(parsed('2018-01-01 4 PM'), '2018-01-01 16:00:00');
      assert.equal(parsed('2018-01-01 4:30 pm'), '2018-01-01 16:30:00');
      assert.equal(parsed('2018-01-01 4:30:15 p.m.'), '2018-01-01 16:30:15');
      assert.equal(parsed('2018-01-01 09:05am'), '2018-01-01 09:05:00');
      assert.equal(parsed('2018-01-01 12am'), '2018-01-01 00:00:00');
      assert.equal(parsed('2018-01-01 12pm'), '2018-01-01 12:00:00');
      assert.equal(parsed('2018-01-01T4pm'), '2018-01-01 16:00:00');
      assert.equal(parsedIso('2027-07-10 9:15 am', NY), '2027-07-10T09:15:00-04:00');
      for (const bad of [
        '2018-01-01 13pm',
        '2018-01-01 0am',
        '2018-01-01 4:60pm',
        '2018-02-30 4pm',
        '2018-01-01 4pmx',
        '2018-01-01 4 pm pm',
      ]) {
        assert.equal(parsed(bad), null, bad);
      }
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

  describe('invalid input', () => {
    it('rejects strings that are not dates', () => {
      const inputs = [
        '',
        '   ',
        'not-a-date',
        'before my birthday',
        'tomorrowish',
        'next',
        'next foo',
        'this week',
        'this month',
        'ago',
        '2 ago',
        '+5 parsecs',
        '+ weeks',
        'tomorrow tomorrow',
        'today tomorrow',
        'next monday friday',
        '9am 10am',
        'noon 9am',
        '13pm',
        '0am',
        '24:00',
        '12:60',
        '9:5am',
        'at',
        'tomorrow at',
        'now-ish',
        '2027-03-10 tomorrow',
        'tomorrow 2027-03-10',
        'monday9am',
        '1 week2 days',
        'null',
        'true',
      ];
      for (const input of inputs) assert.equal(parsed(input), null, JSON.stringify(input));
    });

    it('rejects values that are neither strings nor numbers', () => {
      const inputs: unknown[] = [
        null,
        undefined,
        true,
        false,
        [],
        ['2024-01-01'],
        [1700000000],
        {},
        { date: '2024-01-01' },
        10n,
      ];
      for (const input of inputs) assert.equal(parsed(input), null, String(input));
    });

    it('throws on an invalid zone, which callers validate first', () => {
      assert.throws(() => parseDateInput('2027-03-10', 'Mars/Olympus', NOW), RangeError);
      assert.throws(() => parseDateInput('2027-03-10', '', NOW), RangeError);
    });
  });
});
