/**
 * expandRecurrence with completeFiniteRules (how a series is stored): rules that end (COUNT or UNTIL) and RDATE are
 * listed in full, however far past the horizon; open-ended rules still stop there; the occurrence limit counts them
 * all; the walk to a finite rule's end is bounded by counted steps. Checked against the python-dateutil fixture's
 * complete expansions (`all_utc_starts`, see test/fixtures/recurrence/generate.py).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_EXPANSION_BUDGET,
  DEFAULT_FINITE_BUDGET,
  DEFAULT_LOOKAHEAD_BUDGET,
} from '../../../src/domain/recurrence/budget.ts';
import {
  expandRecurrence,
  parseRecurrence,
  utcStartsOf,
  type Expansion,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';
import { recurrenceCases } from '../../fixtures/recurrence/cases.ts';

const fixture = { cases: recurrenceCases };

const ALLOWED_STEPS = DEFAULT_EXPANSION_BUDGET + DEFAULT_LOOKAHEAD_BUDGET + DEFAULT_FINITE_BUDGET;

function expandInFull(
  series: SeriesStart,
  lines: string[],
  horizonUtc: string,
  maxOccurrences = 1000,
): { result: Expansion; steps: number } {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok && parsed.recurrence !== null, JSON.stringify(parsed));
  const work = { examined: 0 };
  const result = expandRecurrence(
    parsed.recurrence,
    series,
    { horizonUtc, maxOccurrences, completeFiniteRules: true },
    { work },
  );
  return { result, steps: work.examined };
}

const berlin: SeriesStart = {
  timezone: 'Europe/Berlin',
  allDay: false,
  startLocal: '2027-01-20 19:00:00',
  endLocal: '2027-01-20 21:00:00',
};
const HORIZON = '2028-11-23 12:00:00';

describe('finite rules expanded in full', () => {
  it('MONTHLY;COUNT=36 lists all 36 past a two-year horizon, complete; a leap-day COUNT=3 its three February 29ths', () => {
    const { result } = expandInFull(berlin, ['RRULE:FREQ=MONTHLY;COUNT=36'], HORIZON);
    assert.ok(result.ok && result.complete);
    assert.equal(result.occurrences.length, 36);
    assert.equal(result.occurrences.at(-1)!.startLocal, '2029-12-20 19:00:00');
    const leap: SeriesStart = {
      timezone: 'America/New_York',
      allDay: false,
      startLocal: '2028-02-29 12:00:00',
      endLocal: '2028-02-29 13:00:00',
    };
    const leapDays = expandInFull(leap, ['RRULE:FREQ=YEARLY;COUNT=3'], '2030-02-28 17:00:00').result;
    assert.deepEqual(leapDays.ok && leapDays.occurrences.map((o) => o.startLocal), [
      '2028-02-29 12:00:00',
      '2032-02-29 12:00:00',
      '2036-02-29 12:00:00',
    ]);
  });

  it('open-ended rules still stop at the horizon, beside a finite one and RDATE listed in full', () => {
    const { result } = expandInFull(
      berlin,
      ['RRULE:FREQ=YEARLY', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=1;UNTIL=20310101T000000Z', 'RDATE:20400101T120000Z'],
      HORIZON,
    );
    assert.ok(result.ok);
    assert.equal(result.complete, false, 'the yearly rule goes on');
    const starts = result.occurrences.map((o) => o.startLocal);
    assert.deepEqual(
      starts.filter((start) => start.endsWith('-01-20 19:00:00')),
      ['2027-01-20 19:00:00', '2028-01-20 19:00:00'],
    );
    assert.equal(
      starts.filter((start) => start.slice(8) === '01 19:00:00').length,
      47,
      'every first of the month, February 2027 to December 2030',
    );
    assert.equal(starts.at(-1), '2040-01-01 13:00:00');
  });

  it('without completeFiniteRules, the horizon still cuts every rule', () => {
    const parsed = parseRecurrence(['RRULE:FREQ=MONTHLY;COUNT=36'], berlin);
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const cut = expandRecurrence(parsed.recurrence, berlin, { horizonUtc: HORIZON, maxOccurrences: 1000 });
    assert.ok(cut.ok && !cut.complete && cut.occurrences.length === 23);
  });

  it('more than the maximum in all is too_many, found after at most that many occurrences', () => {
    const cases = [
      ['RRULE:FREQ=DAILY;COUNT=100000', 3000, /more than 1000 occurrences in all/],
      ['RRULE:FREQ=WEEKLY;UNTIL=29991231', 10_000, /more than 1000 occurrences in all/],
      ['RRULE:FREQ=HOURLY;UNTIL=99991231T000000Z', 3000, /more than 1000 occurrences up to 2028-11-23 12:00:00 UTC/],
      // Every second of every day (SECONDLY and MINUTELY are refused, BYSECOND lists are not) until the year 9999.
      [
        `RRULE:FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)};BYSECOND=${range(60)};UNTIL=99991231T000000Z`,
        3000,
        /more than 1000 occurrences up to/,
      ],
    ] as const;
    for (const [line, steps, message] of cases) {
      const counted = expandInFull(berlin, [line], HORIZON);
      assert.ok(!counted.result.ok, line);
      assert.match(counted.result.message, message);
      assert.ok(counted.steps <= steps, `${line}: ${counted.steps} steps`);
    }
    const exactly = expandInFull(berlin, ['RRULE:FREQ=WEEKLY;COUNT=1000'], HORIZON).result;
    assert.ok(exactly.ok && exactly.complete && exactly.occurrences.length === 1000);
  });

  it('a finite rule that stops matching before its COUNT is walked within the allowances and left open', () => {
    // From a December, every third month is never January, and June has no 31st.
    for (const line of [
      'RRULE:FREQ=MONTHLY;INTERVAL=3;BYMONTH=1,6;BYMONTHDAY=31;COUNT=9',
      'RRULE:FREQ=YEARLY;BYMONTHDAY=-1;BYMONTH=1,4;BYDAY=1WE;COUNT=11',
      'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30;UNTIL=99991231',
      'RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30;COUNT=2',
    ]) {
      const series: SeriesStart = {
        timezone: 'America/Santiago',
        allDay: false,
        startLocal: '2026-12-01 06:00:00',
        endLocal: '2026-12-01 07:00:00',
      };
      const { result, steps } = expandInFull(series, [line], HORIZON);
      assert.ok(steps <= ALLOWED_STEPS, `${line}: ${steps} steps`);
      assert.ok(result.ok, line);
      assert.deepEqual(utcStartsOf(result).length, 1, line);
      assert.equal(result.complete, false, `${line}: it may go on`);
    }
  });

  it('a tight finite allowance stops the walk past the horizon: the series is left open, not refused', () => {
    const parsed = parseRecurrence(['RRULE:FREQ=WEEKLY;COUNT=300'], berlin);
    assert.ok(parsed.ok && parsed.recurrence !== null);
    const result = expandRecurrence(
      parsed.recurrence,
      berlin,
      { horizonUtc: HORIZON, maxOccurrences: 1000, completeFiniteRules: true },
      { finite: 50 },
    );
    assert.ok(result.ok && !result.complete);
    assert.ok(result.occurrences.length > 100 && result.occurrences.length < 300, `${result.occurrences.length}`);
  });
});

describe('finite rules expanded in full equal the python-dateutil fixture', () => {
  const finite = fixture.cases.filter((c) => c.all_utc_starts !== undefined);
  it('has the finite cases', () => {
    assert.ok(finite.length >= 150, `${finite.length}`);
  });
  for (const c of finite) {
    it(`${c.name} (${c.timezone}): ${c.recurrence[0].slice(0, 80)}`, () => {
      const series: SeriesStart = { timezone: c.timezone, allDay: c.all_day, startLocal: c.start, endLocal: c.end };
      const { result, steps } = expandInFull(series, c.recurrence, c.horizon, 5000);
      assert.ok(steps <= ALLOWED_STEPS, `${steps} steps`);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(utcStartsOf(result), c.all_utc_starts);
      assert.deepEqual(
        result.occurrences.map((o) => o.startLocal),
        c.all_local_starts,
      );
    });
  }
});

function range(n: number): string {
  return Array.from({ length: n }, (_, i) => i).join(',');
}
