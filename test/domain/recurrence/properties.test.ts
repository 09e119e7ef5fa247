/**
 * Properties of expansion over many random daily and weekly series (a seeded generator: the same cases on every run;
 * set RECURRENCE_SEED to try others), in zones with DST changes of one hour, half an hour (Lord Howe), at midnight
 * (Santiago), and none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localToUtc, utcToLocal } from '../../../src/domain/dates/stored-format.ts';
import {
  civilFromDays,
  daysFromCivil,
  formatFloating,
  parseFloating,
  weekdayOfDays,
} from '../../../src/domain/recurrence/civil.ts';
import {
  expandRecurrence,
  parseRecurrence,
  utcStartsOf,
  type OccurrenceTimes,
  type SeriesStart,
} from '../../../src/domain/recurrence/index.ts';
import { WEEKDAY_CODES } from '../../../src/domain/recurrence/types.ts';
import { PROPERTY_ZONES, random } from './random.ts';

const SEED = Number(process.env.RECURRENCE_SEED ?? 20_260_323);
const ZONES = PROPERTY_ZONES;
const FAR = '2200-01-01 00:00:00';

interface Generated {
  series: SeriesStart;
  rule: string;
  count: number;
  weekdays: number[] | null;
}

function generate(next: () => number, allDay: boolean): Generated {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const timezone = pick(ZONES);
  const day = daysFromCivil(1995, 1, 1) + Math.floor(next() * 365 * 45);
  // Half of the starts at a time near DST changes (00:xx to 03:xx), to land in gaps and repeated hours.
  const hour = next() < 0.5 ? Math.floor(next() * 4) : Math.floor(next() * 24);
  const minute = pick([0, 15, 30, 45]);
  const startFloating = day * 86_400 + (allDay ? 0 : hour * 3600 + minute * 60);
  const durationSeconds = allDay ? Math.floor(next() * 3) * 86_400 + 86_399 : Math.floor(next() * 20) * 900;
  const startLocal = utcToLocal(localToUtc(formatFloating(startFloating), timezone), timezone); // as event writes normalise it
  const endLocal = formatFloating(parseFloating(startLocal)! + durationSeconds);
  const freq = pick(['DAILY', 'WEEKLY'] as const);
  const interval = 1 + Math.floor(next() * 4);
  const count = 1 + Math.floor(next() * 60);
  let weekdays: number[] | null = null;
  let rule = `RRULE:FREQ=${freq};INTERVAL=${interval};COUNT=${count}`;
  if (freq === 'WEEKLY' && next() < 0.6) {
    weekdays = WEEKDAY_CODES.map((_, i) => i).filter(() => next() < 0.4);
    if (weekdays.length === 0) weekdays = [Math.floor(next() * 7)];
    rule += `;BYDAY=${weekdays.map((w) => WEEKDAY_CODES[w]).join(',')};WKST=${pick(WEEKDAY_CODES)}`;
  }
  return { series: { timezone, allDay, startLocal, endLocal }, rule, count, weekdays };
}

function expandLines(series: SeriesStart, lines: string[], horizonUtc = FAR) {
  const parsed = parseRecurrence(lines, series);
  assert.ok(parsed.ok && parsed.recurrence, JSON.stringify(parsed));
  const result = expandRecurrence(parsed.recurrence, series, { horizonUtc, maxOccurrences: 1000 });
  assert.ok(result.ok, JSON.stringify(result));
  return result;
}

/** Whether the zone's UTC offset differs a day before and a day after `utcWp` (a DST change nearby). */
function nearChange(utcWp: string, timezone: string): boolean {
  const at = parseFloating(utcWp)!;
  const offset = (seconds: number) => parseFloating(utcToLocal(formatFloating(seconds), timezone))! - seconds;
  return offset(at - 86_400) !== offset(at + 86_400);
}

/** How many occurrences moved out of a gap, and how many were away from changes (the tests exercise both). */
const seen = { moved: 0, plain: 0 };

function checkSeries(g: Generated, occurrences: OccurrenceTimes[]): void {
  const { series } = g;
  const context = JSON.stringify(g);
  assert.equal(occurrences.length, g.count, `COUNT=${g.count} gives ${g.count}: ${context}`);
  assert.equal(occurrences[0].startLocal, series.startLocal, context);
  assert.equal(
    occurrences[0].endLocal,
    utcToLocal(localToUtc(series.endLocal, series.timezone), series.timezone),
    context,
  );
  const startTime = series.allDay ? '00:00:00' : series.startLocal.slice(11);
  const duration = parseFloating(series.endLocal)! - parseFloating(series.startLocal)!;
  for (const [index, occurrence] of occurrences.entries()) {
    if (index > 0) assert.ok(occurrences[index - 1].startUtc < occurrence.startUtc, `sorted and unique: ${context}`);
    // Local and UTC agree.
    assert.equal(localToUtc(occurrence.startLocal, series.timezone), occurrence.startUtc, context);
    assert.equal(utcToLocal(occurrence.startUtc, series.timezone), occurrence.startLocal, context);
    assert.ok(occurrence.endUtc >= occurrence.startUtc, context);
    const nominal = `${occurrence.startLocal.slice(0, 10)} ${startTime}`;
    if (occurrence.startLocal.slice(11) !== startTime) {
      // Only a wall-clock time inside a spring-forward gap moves (forward, on the day of a change).
      seen.moved += 1;
      assert.ok(
        nearChange(occurrence.startUtc, series.timezone),
        `moved off a change day: ${occurrence.startLocal} ${context}`,
      );
      assert.ok(occurrence.startLocal > nominal, context);
      assert.equal(occurrence.startLocal, utcToLocal(localToUtc(nominal, series.timezone), series.timezone), context);
    } else if (!nearChange(occurrence.startUtc, series.timezone) && !nearChange(occurrence.endUtc, series.timezone)) {
      // Away from changes, the end is the start plus the series' wall-clock duration.
      seen.plain += 1;
      assert.equal(parseFloating(occurrence.endLocal)! - parseFloating(occurrence.startLocal)!, duration, context);
    }
    if (index > 0 && g.weekdays !== null) {
      const weekday = weekdayOfDays(Math.floor(parseFloating(occurrence.startLocal)! / 86_400));
      assert.ok(g.weekdays.includes(weekday), `BYDAY weekday: ${occurrence.startLocal} ${context}`);
    }
    if (series.allDay)
      assert.ok(occurrence.endLocal.endsWith('23:59:59') || nearChange(occurrence.endUtc, series.timezone), context);
  }
}

describe(`expansion properties (seed ${SEED})`, () => {
  it('400 timed daily/weekly series: COUNT, order, wall-clock time kept, gaps move forward, UNTIL and the horizon agree', () => {
    const next = random(SEED);
    for (let round = 0; round < 400; round++) {
      const g = generate(next, false);
      const result = expandLines(g.series, [g.rule]);
      checkSeries(g, result.occurrences);
      assert.equal(result.complete, true);
      const starts = utcStartsOf(result);

      // UNTIL at the k-th start (as UTC) gives the first k; so does an open rule with the horizon there.
      const k = 1 + Math.floor(next() * starts.length);
      const untilZ = `${starts[k - 1].replace(/[- :]/g, '').replace(/^(\d{8})/, '$1T')}Z`;
      const withUntil = g.rule.replace(/COUNT=\d+/, `UNTIL=${untilZ}`);
      assert.deepEqual(utcStartsOf(expandLines(g.series, [withUntil])), starts.slice(0, k), withUntil);
      const open = expandLines(g.series, [g.rule.replace(/;COUNT=\d+/, '')], starts[k - 1]);
      assert.deepEqual(utcStartsOf(open), starts.slice(0, k));
      assert.equal(open.complete, false);

      // An EXDATE on one start removes that one only.
      const removed = Math.floor(next() * starts.length);
      const exdate = `EXDATE:${starts[removed].replace(/[- :]/g, '').replace(/^(\d{8})/, '$1T')}Z`;
      assert.deepEqual(
        utcStartsOf(expandLines(g.series, [g.rule, exdate])),
        starts.filter((_, i) => i !== removed),
      );
    }
    if (process.env.RECURRENCE_SEED === undefined) assert.ok(seen.moved > 0 && seen.plain > 0, JSON.stringify(seen));
  });

  it('200 all-day series: whole days, one start per date', () => {
    const next = random(SEED + 1);
    for (let round = 0; round < 200; round++) {
      const g = generate(next, true);
      const result = expandLines(g.series, [g.rule]);
      checkSeries(g, result.occurrences);
      const dates = result.occurrences.map((o) => o.startLocal.slice(0, 10));
      assert.equal(new Set(dates).size, dates.length);
    }
  });

  it('civil date arithmetic round-trips and agrees with Date', () => {
    const next = random(SEED + 2);
    for (let round = 0; round < 2000; round++) {
      const days = Math.floor((next() - 0.5) * 2 * 3_000_000);
      const civil = civilFromDays(days);
      assert.equal(daysFromCivil(civil.year, civil.month, civil.day), days);
      if (civil.year >= 1) {
        const date = new Date(days * 86_400_000);
        assert.deepEqual(
          [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()],
          [civil.year, civil.month, civil.day],
        );
        assert.equal(weekdayOfDays(days), (date.getUTCDay() + 6) % 7);
      }
    }
  });
});
