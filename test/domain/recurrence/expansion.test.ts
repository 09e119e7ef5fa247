/**
 * Our expansion against an independent one: test/fixtures/recurrence/expected.json, written by generate.py from
 * python-dateutil and zoneinfo (see that script for how to re-run it and for the two places where dateutil alone
 * disagrees with RFC 5545). Also: the work bound (counted in steps), the horizon, the occurrence limit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_EXPANSION_BUDGET, DEFAULT_LOOKAHEAD_BUDGET } from '../../../src/domain/recurrence/budget.ts';
import {
  expandRecurrence,
  parseRecurrence,
  utcStartsOf,
  type Expansion,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';
import { recurrenceCases } from '../../fixtures/recurrence/cases.ts';

const fixture = { cases: recurrenceCases };

/** A timed series start (not all day) in `timezone`, its first occurrence from `startLocal` to `endLocal`. */
const timed = (timezone: string, startLocal: string, endLocal: string): SeriesStart => ({
  timezone,
  allDay: false,
  startLocal,
  endLocal,
});

function expand(
  series: SeriesStart,
  lines: unknown,
  horizonUtc = '2030-01-01 00:00:00',
  maxOccurrences = 1000,
): Expansion {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok, `parse: ${JSON.stringify(parsed)}`);
  assert.ok(parsed.recurrence !== null);
  return expandRecurrence(parsed.recurrence, series, { horizonUtc, maxOccurrences });
}

describe('expansion equals the python-dateutil fixture', () => {
  it('has enough cases', () => {
    assert.ok(fixture.cases.length >= 40);
  });
  for (const c of fixture.cases) {
    it(`${c.name} (${c.timezone}${c.all_day ? ', all day' : ''})${c.note ? `: ${c.note}` : ''}`, () => {
      const series: SeriesStart = { timezone: c.timezone, allDay: c.all_day, startLocal: c.start, endLocal: c.end };
      const expansion = expand(series, c.recurrence, c.horizon);
      assert.ok(expansion.ok, JSON.stringify(expansion));
      assert.deepEqual(utcStartsOf(expansion), c.expected_utc_starts);
      assert.deepEqual(
        expansion.occurrences.map((o) => o.startLocal),
        c.expected_local_starts,
      );
      assert.deepEqual(
        expansion.occurrences.map((o) => o.endUtc),
        c.expected_utc_ends,
      );
      assert.deepEqual(
        expansion.occurrences.map((o) => o.endLocal),
        c.expected_local_ends,
      );
      if (c.complete && !expansion.complete) {
        // The one allowed difference (generate.py explains it): a rule without UNTIL that stopped matching for good
        // (before its COUNT, if any). dateutil walks to the year 9999 to say "complete"; we stop looking after a
        // bounded search and say "it may go on".
        assert.equal(c.recurrence.length, 1, c.name);
        assert.doesNotMatch(c.recurrence[0], /UNTIL=/, c.name);
        const count = /COUNT=(\d+)/.exec(c.recurrence[0])?.[1];
        if (count !== undefined) assert.ok(expansion.occurrences.length < Number(count), c.name);
        assert.ok(
          expansion.occurrences.every((o) => o.startUtc <= c.horizon),
          c.name,
        );
      } else {
        assert.equal(expansion.complete, c.complete);
      }
    });
  }

  it('records where dateutil alone differs, and those differences are only the documented ones', () => {
    const differing = fixture.cases.filter((c) => c.dateutil_differs);
    for (const c of differing) {
      const rule = c.recurrence.find((line) => line.startsWith('RRULE:')) ?? '';
      const weeklySetPos = /FREQ=WEEKLY/.test(rule) && /BYSETPOS/.test(rule);
      const byDay = (/BYDAY=([^;]*)/.exec(rule)?.[1] ?? '').split(',');
      const mixedByDay = byDay.some((day) => /^[A-Z]{2}$/.test(day)) && byDay.some((day) => /^[+-]?\d/.test(day));
      const weekNo = /BYWEEKNO/.test(rule);
      assert.ok(weeklySetPos || mixedByDay || weekNo, `${c.name}: ${rule}`);
    }
    assert.ok(
      differing.some((c) => /BYWEEKNO=52/.test(c.recurrence[0])),
      'the BYWEEKNO=52 year-start case is in the fixture',
    );
  });
});

describe('where dateutil alone disagrees with RFC 5545 (documented in generate.py)', () => {
  it('WEEKLY with BYSETPOS: positions in the whole week, not from DTSTART on', () => {
    const c = fixture.cases.find((entry) => entry.name === 'weekly-bysetpos-midweek');
    assert.ok(c?.dateutil_raw_utc);
    assert.notDeepEqual(c.dateutil_raw_utc.slice(0, 3), c.expected_utc_starts.slice(0, 3));
    // MO,WE,FR;BYSETPOS=2 is the Wednesday of every week, DTSTART's week included.
    assert.deepEqual(c.expected_local_starts, [
      '2026-03-04 09:00:00',
      '2026-03-11 09:00:00',
      '2026-03-18 09:00:00',
      '2026-03-25 09:00:00',
    ]);
  });

  it('BYDAY mixing weekdays and ordinals is a union (dateutil gives nothing)', () => {
    const c = fixture.cases.find((entry) => entry.name === 'monthly-byday-mixed');
    assert.deepEqual(c?.dateutil_raw_utc, []);
    assert.ok(c.expected_local_starts.includes('2026-02-06 12:00:00')); // the first Friday of February
    assert.ok(c.expected_local_starts.includes('2026-02-09 12:00:00')); // a Monday
  });
});

const berlin = timed('Europe/Berlin', '2026-03-02 09:00:00', '2026-03-02 10:00:00');

describe('expandRecurrence', () => {
  it('more occurrences than allowed up to the horizon is too_many; exactly the limit is fine', () => {
    const tooMany = expand(berlin, ['RRULE:FREQ=DAILY'], '2029-01-01 00:00:00');
    assert.equal(tooMany.ok, false);
    if (!tooMany.ok) {
      assert.equal(tooMany.reason, 'too_many');
      assert.match(tooMany.message, /more than 1000 occurrences up to 2029-01-01 00:00:00 UTC/);
    }
    assert.deepEqual(utcStartsOf(tooMany), []);
    const exactly = expand(berlin, ['RRULE:FREQ=DAILY;COUNT=1000'], '2029-01-01 00:00:00');
    assert.ok(exactly.ok && exactly.occurrences.length === 1000 && exactly.complete);
    // EXDATEs bring a series back under the limit.
    const excluded = expand(berlin, ['RRULE:FREQ=DAILY;COUNT=1001', 'EXDATE:20260303T080000Z'], '2029-01-01 00:00:00');
    assert.ok(excluded.ok && excluded.occurrences.length === 1000);
    const small = expand(berlin, ['RRULE:FREQ=DAILY'], '2026-03-10 00:00:00', 5);
    assert.equal(small.ok, false);
  });

  it('stops at the horizon (inclusive) and tells whether the series goes on', () => {
    const open = expand(berlin, ['RRULE:FREQ=WEEKLY'], '2026-03-16 08:00:00');
    assert.ok(open.ok);
    assert.deepEqual(utcStartsOf(open), ['2026-03-02 08:00:00', '2026-03-09 08:00:00', '2026-03-16 08:00:00']);
    assert.equal(open.complete, false);
    const ended = expand(berlin, ['RRULE:FREQ=WEEKLY;COUNT=3'], '2026-03-16 08:00:00');
    assert.ok(ended.ok && ended.complete && ended.occurrences.length === 3);
    const rdateLater = expand(berlin, ['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE:20270101T090000'], '2026-03-16 08:00:00');
    assert.ok(rdateLater.ok && !rdateLater.complete && rdateLater.occurrences.length === 3);
    const exdatedLast = expand(berlin, ['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE:20260323T080000Z'], '2026-03-16 08:00:00');
    assert.ok(exdatedLast.ok && exdatedLast.complete);
  });

  it('a date-only EXDATE removes every start on that local date of a timed series', () => {
    const result = expand(berlin, ['RRULE:FREQ=DAILY;BYHOUR=9,15;COUNT=6', 'EXDATE;VALUE=DATE:20260303']);
    assert.ok(result.ok);
    assert.deepEqual(
      result.occurrences.map((o) => o.startLocal),
      ['2026-03-02 09:00:00', '2026-03-02 15:00:00', '2026-03-04 09:00:00', '2026-03-04 15:00:00'],
    );
  });

  it('EXDATE of DTSTART removes it; the series then starts with the next occurrence', () => {
    const result = expand(berlin, ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE;TZID=America/New_York:20260302T030000']);
    assert.deepEqual(utcStartsOf(result), ['2026-03-03 08:00:00', '2026-03-04 08:00:00']);
  });

  it('RDATE and EXDATE by UTC, TZID and floating values all meet at the same instant', () => {
    const result = expand(berlin, [
      'RRULE:FREQ=DAILY;COUNT=4',
      'EXDATE:20260303T080000Z',
      'EXDATE;TZID=Asia/Tokyo:20260304T170000',
      'EXDATE:20260305T090000',
      'RDATE;TZID=UTC:20260302T080000',
      'RDATE:20260302T090000',
    ]);
    assert.deepEqual(utcStartsOf(result), ['2026-03-02 08:00:00']);
  });

  it('keeps the wall-clock duration, converted separately, across a DST change', () => {
    const overnight = timed('Europe/Berlin', '2026-03-27 22:00:00', '2026-03-28 06:00:00');
    const result = expand(overnight, ['RRULE:FREQ=DAILY;COUNT=3']);
    assert.ok(result.ok);
    assert.deepEqual(result.occurrences[1], {
      startLocal: '2026-03-28 22:00:00',
      endLocal: '2026-03-29 06:00:00',
      startUtc: '2026-03-28 21:00:00',
      endUtc: '2026-03-29 04:00:00',
    });
  });

  it("fixed-offset zones in the service's forms", () => {
    const est = timed('EST', '2026-03-07 09:00:00', '2026-03-07 10:00:00');
    assert.deepEqual(utcStartsOf(expand(est, ['RRULE:FREQ=DAILY;COUNT=3'])), [
      '2026-03-07 14:00:00',
      '2026-03-08 14:00:00',
      '2026-03-09 14:00:00',
    ]);
    const india = timed('UTC+5.5', '2026-03-07 09:00:00', '2026-03-07 10:00:00');
    assert.deepEqual(utcStartsOf(expand(india, ['RRULE:FREQ=WEEKLY;COUNT=2'])), [
      '2026-03-07 03:30:00',
      '2026-03-14 03:30:00',
    ]);
  });

  it('a start late in year 9999 ends the rule quietly', () => {
    const late = timed('UTC', '9999-12-30 09:00:00', '9999-12-30 10:00:00');
    const result = expand(late, ['RRULE:FREQ=DAILY'], '9999-12-31 23:59:59');
    assert.ok(result.ok);
    assert.deepEqual(utcStartsOf(result), ['9999-12-30 09:00:00', '9999-12-31 09:00:00']);
    assert.equal(result.complete, true);
  });
});

describe('bounded work', () => {
  // The work of one expansion is counted in steps (each day tested against the rule's filters, each candidate start
  // looked at), not timed: every loop of the walk must pay for its steps from the allowances, so the steps taken stay
  // within them whatever the rule and the start. The allowances' cost in time is the benchmark's business.
  const ALLOWED_STEPS = DEFAULT_EXPANSION_BUDGET + DEFAULT_LOOKAHEAD_BUDGET;
  const rare = [
    'RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30',
    'RRULE:FREQ=YEARLY;BYMONTHDAY=31;BYMONTH=2',
    'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'RRULE:FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,6,9,11',
    'RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1',
    'RRULE:FREQ=YEARLY;BYWEEKNO=53;BYMONTH=6',
    'RRULE:FREQ=WEEKLY;BYDAY=MO;BYMONTH=2;BYSETPOS=5',
    'RRULE:FREQ=MONTHLY;BYDAY=5MO;BYMONTH=2;BYMONTHDAY=1',
    'RRULE:FREQ=HOURLY;BYHOUR=1;BYMINUTE=0,30;BYMONTHDAY=31;BYMONTH=2;BYSETPOS=-1',
    `RRULE:FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)};BYSETPOS=-1`,
  ];
  const starts = ['0001-01-01 06:00:00', '1900-06-15 06:00:00', '2026-01-01 06:00:00'];

  /** Expands `lines` from `startLocal`, answering the expansion and the steps it took. */
  function counted(
    lines: string[],
    startLocal: string,
    timezone = 'America/Santiago',
  ): { result: Expansion; steps: number } {
    const series = timed(timezone, startLocal, startLocal);
    const parsed = parseRecurrence(lines, series);
    assert.ok(parsed.ok && parsed.recurrence, JSON.stringify(parsed));
    const work = { examined: 0 };
    const result = expandRecurrence(
      parsed.recurrence,
      series,
      { horizonUtc: '2028-01-01 00:00:00', maxOccurrences: 1000 },
      { work },
    );
    return { result, steps: work.examined };
  }

  for (const line of rare) {
    it(`${line.slice(0, 70)}: within the allowances from any start`, () => {
      for (const startLocal of starts) {
        const { result, steps } = counted([line], startLocal);
        assert.ok(steps > 0, 'the walk counts its steps');
        assert.ok(steps <= ALLOWED_STEPS, `${steps} steps from ${startLocal}`);
        if (result.ok) assert.equal(result.occurrences[0].startLocal, startLocal);
        else assert.match(result.message, /matches too rarely|more than 1000/);
      }
    });
  }

  it('100 rare rules together share one allowance', () => {
    const { result, steps } = counted(
      Array.from({ length: 100 }, (_, i) => rare[i % 7]),
      '1000-01-01 06:00:00',
      'Australia/Sydney',
    );
    assert.ok(steps <= ALLOWED_STEPS, `${steps} steps`);
    assert.equal(result.ok, false);
  });

  it('does not walk the candidates before DTSTART one by one (every second of a year, starting on its last one)', () => {
    const everySecond = `BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)}`;
    const dense = counted(
      [`RRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${everySecond};COUNT=3`],
      '2026-12-31 23:59:58',
    );
    assert.ok(dense.steps <= ALLOWED_STEPS, `${dense.steps} steps`);
    assert.deepEqual(dense.result.ok && dense.result.occurrences.map((o) => o.startLocal), [
      '2026-12-31 23:59:58',
      '2026-12-31 23:59:59',
      '2027-01-01 00:00:00',
    ]);
    const open = counted([`RRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${everySecond}`], '2026-12-31 23:59:58');
    assert.ok(open.steps <= ALLOWED_STEPS, `${open.steps} steps`);
    assert.ok(!open.result.ok && /more than 1000/.test(open.result.message));
  });

  it('100 rules of every second of the day, each with BYSETPOS, stay within the allowances', () => {
    const line = `RRULE:FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)};BYSETPOS=-1;COUNT=2`;
    const { result, steps } = counted(Array(100).fill(line), '2026-12-31 23:59:59');
    assert.ok(steps <= ALLOWED_STEPS, `${steps} steps`);
    assert.deepEqual(result.ok && result.occurrences.map((o) => o.startLocal), [
      '2026-12-31 23:59:59',
      '2027-01-01 23:59:59',
    ]);
  });

  it('a rare rule past the horizon leaves the series open (complete: false) instead of searching on', () => {
    const series = timed('Europe/Berlin', '2026-01-01 06:00:00', '2026-01-01 07:00:00');
    const result = expand(series, ['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'], '2028-01-01 00:00:00');
    assert.ok(result.ok && result.occurrences.length === 1 && !result.complete);
  });

  it('a tight allowance makes a long walk an error, not a wrong answer', () => {
    const series = timed('Europe/Berlin', '2026-01-01 06:00:00', '2026-01-01 07:00:00');
    const parsed = parseRecurrence(['RRULE:FREQ=DAILY;INTERVAL=7;COUNT=10'], series);
    assert.ok(parsed.ok && parsed.recurrence);
    const result = expandRecurrence(
      parsed.recurrence,
      series,
      { horizonUtc: '2028-01-01 00:00:00', maxOccurrences: 1000 },
      { budget: 5 },
    );
    assert.ok(!result.ok && /matches too rarely/.test(result.message));
  });
});

function range(n: number): string {
  return Array.from({ length: n }, (_, i) => i).join(',');
}
