/**
 * splitRecurrence (D25 scope=following): the two series' lines, checked by expanding them. Whatever the move, the
 * series before the split has exactly the occurrences before it, and the series from the split has the rest, each
 * moved as the start moved in wall-clock time (so none is lost or added).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expandRecurrence,
  parseRecurrence,
  splitRecurrence,
  type OccurrenceTimes,
  type SeriesSplit,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';

const HORIZON = '2040-01-01 00:00:00';

function occurrences(series: SeriesStart, lines: string[]): OccurrenceTimes[] {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  assert.ok(parsed.recurrence !== null);
  const expansion = expandRecurrence(parsed.recurrence, series, { horizonUtc: HORIZON, maxOccurrences: 5000 });
  assert.ok(expansion.ok && expansion.complete, JSON.stringify(expansion));
  return expansion.occurrences;
}

interface Case {
  series: SeriesStart;
  lines: string[];
  /** Which occurrence (0-based) the split is at. */
  at: number;
  newStart: SeriesSplit['newStart'];
}

/** Splits and expands both parts; returns the lines and the local starts of each part. */
function split({ series, lines, at, newStart }: Case) {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok && parsed.recurrence !== null);
  const original = occurrences(series, lines);
  const result = splitRecurrence({
    recurrence: parsed.recurrence,
    series,
    occurrenceStartUtc: original[at].startUtc,
    newStart,
  });
  assert.ok(result.ok, JSON.stringify(result));
  const duration =
    Date.parse(`${series.endLocal.replace(' ', 'T')}Z`) - Date.parse(`${series.startLocal.replace(' ', 'T')}Z`);
  const newEnd = new Date(Date.parse(`${newStart.startLocal.replace(' ', 'T')}Z`) + duration)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
  const following: SeriesStart = {
    ...newStart,
    endLocal: newStart.allDay ? `${newEnd.slice(0, 10)} 23:59:59` : newEnd,
  };
  return {
    original: original.map((o) => o.startLocal),
    before: result.before,
    following: result.following,
    beforeStarts: occurrences(series, result.before).map((o) => o.startLocal),
    followingStarts: occurrences(following, result.following).map((o) => o.startLocal),
  };
}

const berlin = (start: string, end: string): SeriesStart => ({
  timezone: 'Europe/Berlin',
  allDay: false,
  startLocal: start,
  endLocal: end,
});

describe('splitRecurrence', () => {
  it('COUNT, start moved an hour later: the series from the split keeps the COUNT left', () => {
    const result = split({
      series: berlin('2027-03-01 18:00:00', '2027-03-01 20:00:00'),
      lines: ['RRULE:FREQ=WEEKLY;COUNT=6'],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-22 19:00:00' },
    });
    assert.deepEqual(result.before, ['RRULE:FREQ=WEEKLY;UNTIL=20270322T165959Z']);
    assert.deepEqual(result.following, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.deepEqual(result.beforeStarts, result.original.slice(0, 3));
    assert.deepEqual(result.followingStarts, ['2027-03-22 19:00:00', '2027-03-29 19:00:00', '2027-04-05 19:00:00']);
  });

  it('COUNT, start moved months earlier: still the COUNT left, not an UNTIL that lets it run on', () => {
    const result = split({
      series: {
        timezone: 'America/New_York',
        allDay: false,
        startLocal: '2028-09-01 08:00:00',
        endLocal: '2028-09-01 09:00:00',
      },
      lines: ['RRULE:FREQ=DAILY;COUNT=6'],
      at: 2,
      newStart: { timezone: 'America/New_York', allDay: false, startLocal: '2026-12-01 08:00:00' },
    });
    assert.deepEqual(result.following, ['RRULE:FREQ=DAILY;COUNT=4']);
    assert.deepEqual(result.beforeStarts, ['2028-09-01 08:00:00', '2028-09-02 08:00:00']);
    assert.deepEqual(result.followingStarts, [
      '2026-12-01 08:00:00',
      '2026-12-02 08:00:00',
      '2026-12-03 08:00:00',
      '2026-12-04 08:00:00',
    ]);
  });

  it('COUNT counts DTSTART as the first occurrence even when the rule does not produce it (RFC 5545)', () => {
    // A Wednesday start with BYDAY=MO: Wednesday, then four Mondays. Split at the 3rd (the second Monday).
    const result = split({
      series: berlin('2027-03-03 10:00:00', '2027-03-03 11:00:00'),
      lines: ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=5'],
      at: 2,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-15 10:00:00' },
    });
    assert.deepEqual(result.following, ['RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3']);
    assert.equal(result.beforeStarts.length + result.followingStarts.length, 5);
  });

  it('UTC UNTIL, start moved across a DST change: UNTIL moves by the same wall-clock time, keeping the last one', () => {
    const result = split({
      series: berlin('2027-03-01 18:00:00', '2027-03-01 19:00:00'),
      lines: ['RRULE:FREQ=WEEKLY;UNTIL=20270412T160000Z'],
      at: 2,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-29 18:00:00' },
    });
    assert.equal(result.original.length, 7);
    // 14 days of wall-clock time (13 days 23 hours of UTC): April 12 18:00 CEST becomes April 26 18:00 CEST.
    assert.deepEqual(result.following, ['RRULE:FREQ=WEEKLY;UNTIL=20270426T160000Z']);
    assert.deepEqual(result.beforeStarts, ['2027-03-01 18:00:00', '2027-03-08 18:00:00']);
    assert.deepEqual(result.followingStarts, [
      '2027-03-29 18:00:00',
      '2027-04-05 18:00:00',
      '2027-04-12 18:00:00',
      '2027-04-19 18:00:00',
      '2027-04-26 18:00:00',
    ]);
  });

  it('UTC UNTIL, start moved back across a DST change and an hour earlier', () => {
    const result = split({
      series: {
        timezone: 'America/New_York',
        allDay: false,
        startLocal: '2027-10-04 09:00:00',
        endLocal: '2027-10-04 10:00:00',
      },
      lines: ['RRULE:FREQ=WEEKLY;UNTIL=20271129T140000Z'],
      at: 6,
      newStart: { timezone: 'America/New_York', allDay: false, startLocal: '2027-10-25 08:00:00' },
    });
    // Nov 15 09:00 EST moved three weeks and an hour earlier: Oct 25 08:00 EDT; the last (Nov 29 09:00 EST) to Nov 8 08:00 EST.
    assert.deepEqual(result.following, ['RRULE:FREQ=WEEKLY;UNTIL=20271108T130000Z']);
    assert.deepEqual(result.followingStarts, ['2027-10-25 08:00:00', '2027-11-01 08:00:00', '2027-11-08 08:00:00']);
    assert.equal(result.beforeStarts.length, 6);
  });

  it('floating and date UNTIL keep their form when they can; a date moved by part of a day becomes a floating time', () => {
    const floating = split({
      series: berlin('2027-05-03 18:00:00', '2027-05-03 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;UNTIL=20270510T180000'],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-08 18:30:00' },
    });
    assert.deepEqual(floating.following, ['RRULE:FREQ=DAILY;UNTIL=20270512T183000']);
    assert.equal(floating.followingStarts.length, 5);

    const wholeDays = split({
      series: berlin('2027-05-03 18:00:00', '2027-05-03 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;UNTIL=20270510'],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-08 18:00:00' },
    });
    assert.deepEqual(wholeDays.following, ['RRULE:FREQ=DAILY;UNTIL=20270512']);
    assert.equal(wholeDays.followingStarts.length, 5);

    const partOfADay = split({
      series: berlin('2027-05-03 18:00:00', '2027-05-03 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;UNTIL=20270510'],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-07 00:30:00' },
    });
    // 18:00 → 00:30 the next day: the date's last second, May 10 23:59:59, becomes May 11 06:29:59, so the last
    // occurrence (May 10 18:00, now May 11 00:30) stays in.
    assert.deepEqual(partOfADay.following, ['RRULE:FREQ=DAILY;UNTIL=20270511T062959']);
    assert.deepEqual(partOfADay.followingStarts, [
      '2027-05-07 00:30:00',
      '2027-05-08 00:30:00',
      '2027-05-09 00:30:00',
      '2027-05-10 00:30:00',
      '2027-05-11 00:30:00',
    ]);
  });

  it('open-ended rules stay open-ended; the series before the split ends just before it', () => {
    const parsed = parseRecurrence(
      ['RRULE:FREQ=WEEKLY;BYDAY=MO,TH'],
      berlin('2027-03-01 09:00:00', '2027-03-01 10:00:00'),
    );
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const result = splitRecurrence({
      recurrence: parsed.recurrence,
      series: berlin('2027-03-01 09:00:00', '2027-03-01 10:00:00'),
      occurrenceStartUtc: '2027-03-11 08:00:00',
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-03-12 07:00:00' },
    });
    assert.deepEqual(result, {
      ok: true,
      before: ['RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20270311T075959Z'],
      following: ['RRULE:FREQ=WEEKLY;BYDAY=MO,TH'],
    });
  });

  it('all-day: COUNT left, a date UNTIL moved by whole days, the series before ends the day before', () => {
    const santiago = (start: string): SeriesStart => ({
      timezone: 'America/Santiago',
      allDay: true,
      startLocal: `${start} 00:00:00`,
      endLocal: `${start} 23:59:59`,
    });
    const counted = split({
      series: santiago('2027-03-06'),
      lines: ['RRULE:FREQ=WEEKLY;COUNT=5'],
      at: 2,
      newStart: { timezone: 'America/Santiago', allDay: true, startLocal: '2027-03-22 00:00:00' },
    });
    assert.deepEqual(counted.before, ['RRULE:FREQ=WEEKLY;UNTIL=20270319']);
    assert.deepEqual(counted.following, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.deepEqual(counted.followingStarts, ['2027-03-22 00:00:00', '2027-03-29 00:00:00', '2027-04-05 00:00:00']);

    // Across Santiago's change of 2027-04-04 (midnight moves back an hour): still whole days.
    const until = split({
      series: santiago('2027-03-27'),
      lines: ['RRULE:FREQ=WEEKLY;UNTIL=20270424'],
      at: 1,
      newStart: { timezone: 'America/Santiago', allDay: true, startLocal: '2027-04-05 00:00:00' },
    });
    assert.deepEqual(until.following, ['RRULE:FREQ=WEEKLY;UNTIL=20270426']);
    assert.deepEqual(until.beforeStarts, ['2027-03-27 00:00:00']);
    assert.deepEqual(until.followingStarts, [
      '2027-04-05 00:00:00',
      '2027-04-12 00:00:00',
      '2027-04-19 00:00:00',
      '2027-04-26 00:00:00',
    ]);
  });

  it('a timed series made all-day at the split takes dates', () => {
    const result = split({
      series: berlin('2027-05-03 18:00:00', '2027-05-03 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;UNTIL=20270510T160000Z', 'EXDATE:20270509T160000Z'],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: true, startLocal: '2027-05-08 00:00:00' },
    });
    assert.deepEqual(result.following, ['RRULE:FREQ=DAILY;UNTIL=20270512', 'EXDATE;VALUE=DATE:20270511']);
    assert.deepEqual(result.followingStarts, [
      '2027-05-08 00:00:00',
      '2027-05-09 00:00:00',
      '2027-05-10 00:00:00',
      '2027-05-12 00:00:00',
    ]);
  });

  it('another zone: UNTIL keeps the same wall-clock time there', () => {
    const result = split({
      series: berlin('2027-05-03 18:00:00', '2027-05-03 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;UNTIL=20270510T160000Z'],
      at: 3,
      newStart: { timezone: 'America/New_York', allDay: false, startLocal: '2027-05-06 18:00:00' },
    });
    assert.deepEqual(result.following, ['RRULE:FREQ=DAILY;UNTIL=20270510T220000Z']);
    assert.equal(result.followingStarts.length, 5);
  });

  it('EXDATEs after the split move with the start, those before it are left out; unmoved, they are kept as written', () => {
    const lines = [
      'RRULE:FREQ=DAILY;COUNT=10',
      'EXDATE:20270502T160000Z',
      'EXDATE;TZID=Europe/Berlin:20270507T180000',
      'EXDATE;VALUE=DATE:20270509',
    ];
    const moved = split({
      series: berlin('2027-05-01 18:00:00', '2027-05-01 19:00:00'),
      lines,
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-05 19:00:00' },
    });
    assert.deepEqual(moved.following, [
      'RRULE:FREQ=DAILY;COUNT=6',
      'EXDATE:20270507T170000Z',
      'EXDATE;VALUE=DATE:20270509',
    ]);
    assert.deepEqual(moved.beforeStarts, ['2027-05-01 18:00:00', '2027-05-03 18:00:00', '2027-05-04 18:00:00']);
    assert.deepEqual(moved.followingStarts, [
      '2027-05-05 19:00:00',
      '2027-05-06 19:00:00',
      '2027-05-08 19:00:00',
      '2027-05-10 19:00:00',
    ]);

    const earlier = split({
      series: berlin('2027-05-01 18:00:00', '2027-05-01 19:00:00'),
      lines: ['RRULE:FREQ=DAILY;COUNT=10', 'EXDATE:20270502T160000Z'],
      at: 4,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-01 18:00:00' },
    });
    // May 6 moved five days earlier: the EXDATE of May 2, before the split, would remove the new series' May 2.
    assert.deepEqual(earlier.following, ['RRULE:FREQ=DAILY;COUNT=5']);
    assert.deepEqual(earlier.followingStarts, [
      '2027-05-01 18:00:00',
      '2027-05-02 18:00:00',
      '2027-05-03 18:00:00',
      '2027-05-04 18:00:00',
      '2027-05-05 18:00:00',
    ]);

    const unmoved = split({
      series: berlin('2027-05-01 18:00:00', '2027-05-01 19:00:00'),
      lines,
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-05 18:00:00' },
    });
    assert.deepEqual(unmoved.following, ['RRULE:FREQ=DAILY;COUNT=6', ...lines.slice(1)]);
  });

  it('a rule that ended before the split stays as it is and is not carried on', () => {
    const result = split({
      series: berlin('2027-05-03 09:00:00', '2027-05-03 10:00:00'),
      lines: [
        'RRULE:FREQ=WEEKLY;COUNT=2',
        'RRULE:FREQ=DAILY;UNTIL=20270504T235959Z',
        'RRULE:FREQ=MONTHLY;BYMONTHDAY=20;COUNT=3',
      ],
      at: 3,
      newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-05-20 09:00:00' },
    });
    assert.deepEqual(result.original, [
      '2027-05-03 09:00:00',
      '2027-05-04 09:00:00',
      '2027-05-10 09:00:00',
      '2027-05-20 09:00:00',
      '2027-06-20 09:00:00',
    ]);
    assert.deepEqual(result.before, [
      'RRULE:FREQ=WEEKLY;COUNT=2',
      'RRULE:FREQ=DAILY;UNTIL=20270504T235959Z',
      'RRULE:FREQ=MONTHLY;BYMONTHDAY=20;UNTIL=20270520T065959Z',
    ]);
    assert.deepEqual(result.following, ['RRULE:FREQ=MONTHLY;BYMONTHDAY=20;COUNT=2']);
    assert.deepEqual(result.followingStarts, ['2027-05-20 09:00:00', '2027-06-20 09:00:00']);
  });

  it('counting the occurrences before the split is bounded: past the allowance it is an error, not a long walk', () => {
    const series = berlin('2027-01-01 09:00:00', '2027-01-01 10:00:00');
    const parsed = parseRecurrence(['RRULE:FREQ=DAILY;COUNT=500'], series);
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const result = splitRecurrence(
      {
        recurrence: parsed.recurrence,
        series,
        occurrenceStartUtc: '2027-12-01 08:00:00',
        newStart: { timezone: 'Europe/Berlin', allDay: false, startLocal: '2027-12-01 09:00:00' },
      },
      { budget: 100 },
    );
    assert.ok(!result.ok && /too rarely/.test(result.message), JSON.stringify(result));
  });
});
