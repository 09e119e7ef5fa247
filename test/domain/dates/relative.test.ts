// The relative date forms of D8 (`tomorrow 9am`, `+2 weeks`, `next monday`…), read through parseDateInput.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDateInput } from '../../../src/domain/dates/input-grammar.ts';
import { NOW, NY, parsed, parsedIso, utc } from './support.ts';

describe('parseDateInput', () => {
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
});
