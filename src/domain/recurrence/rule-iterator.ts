/**
 * The occurrences of one RRULE in wall-clock time (floating seconds, see civil.ts), in ascending order, with no time
 * zone involved: the caller converts each to UTC with the service's zone code, which keeps the series' wall-clock
 * time across DST changes (the npm rrule package, given a TZID, does not: its issues #295, #390, #611; and it cannot
 * bound the work of a rule that never matches, FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30 takes it seconds).
 *
 * The model is python-dateutil's (and RFC 5545's): each period of the frequency (a year, month, week, day or hour,
 * every INTERVAL of them from DTSTART's) holds the days that pass every BYxxx filter, times the BYHOUR × BYMINUTE ×
 * BYSECOND times of day; BYSETPOS picks positions in that sorted set; values before DTSTART are skipped; COUNT and
 * UNTIL end the rule. Without BYWEEKNO, BYYEARDAY, BYMONTHDAY and BYDAY, a rule takes DTSTART's day (and month, for
 * YEARLY; weekday, for WEEKLY). Where a rule does not produce DTSTART, DTSTART still counts as its first occurrence
 * towards COUNT (RFC 5545 §3.3.10: "The DTSTART property value always counts as the first occurrence"), so COUNT=n
 * gives n occurrences in all.
 */
import type { Budget } from './budget.ts';
import {
  civilFromDays,
  civilFromFloating,
  daysFromCivil,
  daysInMonth,
  daysInYear,
  MAX_YEAR,
  SECONDS_PER_DAY,
  weekdayOfDays,
  type CivilDate,
} from './civil.ts';
import type { RuleSpec, WeekdayNum } from './types.ts';
import { weekNumberOf } from './weeks.ts';

/** Whether a wall-clock time is past the rule's UNTIL (the caller resolves UNTIL against the series' zone). */
export type UntilTest = (seconds: number) => boolean;

interface Filters {
  months: Set<number> | null;
  weekNos: { positive: Set<number>; negative: Set<number> } | null;
  plainWeekdays: Set<number> | null;
  ordinals: WeekdayNum[] | null;
  ordinalScope: 'month' | 'year';
  monthDays: { positive: Set<number>; negative: Set<number> } | null;
  yearDays: { positive: Set<number>; negative: Set<number> } | null;
  wkst: number;
}

export function* ruleStarts(
  rule: RuleSpec,
  dtstart: number,
  pastUntil: UntilTest | null,
  budget: Budget,
): Generator<number, void, void> {
  const start = civilFromFloating(dtstart);
  const startDay = Math.floor(dtstart / SECONDS_PER_DAY);
  const filters = buildFilters(rule, start, startDay);
  const setPos = rule.bySetPos;
  let remaining = rule.count ?? Infinity;
  let first = true;

  /** Emits one period's candidates: `days` ascending × `times` (seconds) ascending. False: the rule has ended. */
  function* emit(days: number[], times: TimesOfDay, unit: number): Generator<number, boolean, void> {
    for (const t of selectPositions(days, times, unit, setPos, dtstart)) {
      budget.examine();
      if (t < dtstart) continue;
      if (pastUntil?.(t)) return false;
      if (first) {
        first = false;
        if (t !== dtstart) remaining -= 1; // DTSTART, added by the caller, is the first occurrence
      }
      if (remaining <= 0) return false;
      yield t;
      remaining -= 1;
      if (remaining <= 0) return false;
    }
    return true;
  }

  /**
   * Whether every start from wall-clock time `periodStart` on is past UNTIL, so the walk can stop even when nothing
   * matches (a day's margin covers any DST gap between wall-clock order and instant order).
   */
  const periodPastUntil = (periodStart: number) => pastUntil?.(periodStart - SECONDS_PER_DAY);

  if (rule.freq === 'HOURLY') {
    const withinHour = new TimesOfDay([rule.byMinute ?? [start.minute], rule.bySecond ?? [start.second]], [60, 1]);
    const hours = rule.byHour === null ? null : new Set(rule.byHour);
    let hour = Math.floor(dtstart / 3600);
    while (true) {
      const day = Math.floor(hour / 24);
      const civil = civilFromDays(day);
      if (civil.year > MAX_YEAR || periodPastUntil(hour * 3600)) return;
      budget.spend(1, hour * 3600);
      if (filters.months !== null && !filters.months.has(civil.month)) {
        hour = alignedAtOrAfter(hour, nextAllowedMonthStart(civil, filters.months) * 24, rule.interval);
        continue;
      }
      if (!dayMatches(day, civil, filters, budget)) {
        hour = alignedAtOrAfter(hour, (day + 1) * 24, rule.interval);
        continue;
      }
      if (hours === null || hours.has(hour - day * 24)) {
        if (!(yield* emit([hour], withinHour, 3600))) return;
      }
      hour += rule.interval;
    }
  }

  const times = new TimesOfDay(
    [rule.byHour ?? [start.hour], rule.byMinute ?? [start.minute], rule.bySecond ?? [start.second]],
    [3600, 60, 1],
  );
  switch (rule.freq) {
    case 'YEARLY': {
      for (let year = start.year; year <= MAX_YEAR; year += rule.interval) {
        if (periodPastUntil(daysFromCivil(year, 1, 1) * SECONDS_PER_DAY)) return;
        const days: number[] = [];
        for (let month = 1; month <= 12; month++) {
          budget.spend(1, daysFromCivil(year, month, 1) * SECONDS_PER_DAY);
          if (filters.months !== null && !filters.months.has(month)) continue;
          collectMonth(year, month, days, filters, budget);
        }
        if (!(yield* emit(days, times, SECONDS_PER_DAY))) return;
      }
      return;
    }
    case 'MONTHLY': {
      for (let index = start.year * 12 + start.month - 1; ; index += rule.interval) {
        const year = Math.floor(index / 12);
        const month = (index % 12) + 1;
        if (year > MAX_YEAR || periodPastUntil(daysFromCivil(year, month, 1) * SECONDS_PER_DAY)) return;
        budget.spend(1, daysFromCivil(year, month, 1) * SECONDS_PER_DAY);
        if (filters.months !== null && !filters.months.has(month)) continue;
        const days: number[] = [];
        collectMonth(year, month, days, filters, budget);
        if (!(yield* emit(days, times, SECONDS_PER_DAY))) return;
      }
    }
    case 'WEEKLY': {
      for (
        let weekStart = startDay - ((weekdayOfDays(startDay) - rule.wkst + 7) % 7);
        ;
        weekStart += 7 * rule.interval
      ) {
        if (periodPastUntil(weekStart * SECONDS_PER_DAY)) return;
        const days: number[] = [];
        for (let day = weekStart; day < weekStart + 7; day++) {
          const civil = civilFromDays(day);
          if (civil.year > MAX_YEAR) break;
          budget.spend(1, day * SECONDS_PER_DAY);
          if (dayMatches(day, civil, filters, budget)) days.push(day);
        }
        if (civilFromDays(weekStart).year > MAX_YEAR) return;
        if (!(yield* emit(days, times, SECONDS_PER_DAY))) return;
      }
    }
    case 'DAILY': {
      let day = startDay;
      while (true) {
        const civil = civilFromDays(day);
        if (civil.year > MAX_YEAR || periodPastUntil(day * SECONDS_PER_DAY)) return;
        budget.spend(1, day * SECONDS_PER_DAY);
        if (filters.months !== null && !filters.months.has(civil.month)) {
          day = alignedAtOrAfter(day, nextAllowedMonthStart(civil, filters.months), rule.interval);
          continue;
        }
        if (dayMatches(day, civil, filters, budget)) {
          if (!(yield* emit([day], times, SECONDS_PER_DAY))) return;
        }
        day += rule.interval;
      }
    }
  }
}

function buildFilters(rule: RuleSpec, start: CivilDate, startDay: number): Filters {
  let byMonth = rule.byMonth;
  let byMonthDay = rule.byMonthDay;
  let byDay = rule.byDay;
  if (rule.byWeekNo === null && rule.byYearDay === null && byMonthDay === null && byDay === null) {
    if (rule.freq === 'YEARLY') {
      byMonthDay = [start.day];
      byMonth ??= [start.month];
    } else if (rule.freq === 'MONTHLY') {
      byMonthDay = [start.day];
    } else if (rule.freq === 'WEEKLY') {
      byDay = [{ weekday: weekdayOfDays(startDay), n: 0 }];
    }
  }
  const plain = byDay?.filter((day) => day.n === 0).map((day) => day.weekday) ?? [];
  const ordinals = byDay?.filter((day) => day.n !== 0) ?? [];
  return {
    months: byMonth === null ? null : new Set(byMonth),
    weekNos: signedSets(rule.byWeekNo),
    // BYDAY=MO,1FR: the Mondays and the first Friday (a union, as RFC 5545 lists them).
    plainWeekdays: byDay === null ? null : new Set(plain),
    ordinals: ordinals.length > 0 ? ordinals : null,
    ordinalScope: rule.freq === 'MONTHLY' || rule.byMonth !== null ? 'month' : 'year',
    monthDays: signedSets(byMonthDay),
    yearDays: signedSets(rule.byYearDay),
    wkst: rule.wkst,
  };
}

function signedSets(values: number[] | null): { positive: Set<number>; negative: Set<number> } | null {
  if (values === null) return null;
  return { positive: new Set(values.filter((v) => v > 0)), negative: new Set(values.filter((v) => v < 0)) };
}

/** Whether a day passes every BYxxx day filter (a step of the walk). */
function dayMatches(days: number, civil: CivilDate, filters: Filters, budget: Budget): boolean {
  budget.examine();
  if (filters.months !== null && !filters.months.has(civil.month)) return false;
  if (filters.monthDays !== null) {
    const fromEnd = civil.day - daysInMonth(civil.year, civil.month) - 1;
    if (!filters.monthDays.positive.has(civil.day) && !filters.monthDays.negative.has(fromEnd)) return false;
  }
  const yearDay =
    filters.yearDays !== null || filters.ordinalScope === 'year' ? days - daysFromCivil(civil.year, 1, 1) + 1 : 0;
  if (filters.yearDays !== null) {
    const fromEnd = yearDay - daysInYear(civil.year) - 1;
    if (!filters.yearDays.positive.has(yearDay) && !filters.yearDays.negative.has(fromEnd)) return false;
  }
  if (filters.plainWeekdays !== null) {
    const weekday = weekdayOfDays(days);
    if (!filters.plainWeekdays.has(weekday) && !matchesOrdinal(weekday, civil, yearDay, filters)) return false;
  }
  if (filters.weekNos !== null) {
    const { week, weeksInYear } = weekNumberOf(days, filters.wkst);
    if (!filters.weekNos.positive.has(week) && !filters.weekNos.negative.has(week - weeksInYear - 1)) return false;
  }
  return true;
}

/** 1FR: the first Friday of the month (MONTHLY, or YEARLY with BYMONTH) or of the year; -1FR the last. */
function matchesOrdinal(weekday: number, civil: CivilDate, yearDay: number, filters: Filters): boolean {
  if (filters.ordinals === null) return false;
  const [position, length] =
    filters.ordinalScope === 'month'
      ? [civil.day, daysInMonth(civil.year, civil.month)]
      : [yearDay, daysInYear(civil.year)];
  const fromStart = Math.floor((position - 1) / 7) + 1;
  const fromEnd = -(Math.floor((length - position) / 7) + 1);
  return filters.ordinals.some(
    (ordinal) => ordinal.weekday === weekday && (ordinal.n === fromStart || ordinal.n === fromEnd),
  );
}

/**
 * Appends the days of a month that pass the filters. Days before DTSTART count too: BYSETPOS positions are taken in
 * the whole period (RFC 5545), and the caller drops the starts before DTSTART afterwards.
 */
function collectMonth(year: number, month: number, into: number[], filters: Filters, budget: Budget): void {
  const first = daysFromCivil(year, month, 1);
  const length = daysInMonth(year, month);
  for (let day = 1; day <= length; day++) {
    const days = first + day - 1;
    budget.spend(1, days * SECONDS_PER_DAY);
    if (dayMatches(days, { year, month, day }, filters, budget)) into.push(days);
  }
}

/**
 * The sums of one value of each list, weighted (hours × 3600 + minutes × 60 + seconds), in ascending order, read by
 * index: BYHOUR × BYMINUTE × BYSECOND can be 86,400 times of day, and a recurrence 100 such rules, so they are never
 * built. Each weight is larger than all lower places together (seconds and minutes are at most 59), so the order of
 * the sums is that of their indexes read as mixed-radix numbers.
 */
class TimesOfDay {
  readonly length: number;
  readonly #places: number[][];
  readonly #weights: number[];

  constructor(lists: number[][], weights: number[]) {
    this.#places = lists.map((list) => [...new Set(list)].sort((a, b) => a - b));
    this.#weights = weights;
    this.length = this.#places.reduce((count, place) => count * place.length, 1);
  }

  at(index: number): number {
    let time = 0;
    let rest = index;
    for (let place = this.#places.length - 1; place >= 0; place--) {
      const values = this.#places[place];
      time += values[rest % values.length] * this.#weights[place];
      rest = Math.floor(rest / values.length);
    }
    return time;
  }

  /** The index of the first time of day at or after `time` (`length` when there is none). */
  firstAtOrAfter(time: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle) < time) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * The candidates `days[i] * unit + times[j]` in order, or only the BYSETPOS positions among them (1 = first, -1 =
 * last), found by index without building the whole set. Without BYSETPOS the candidates before `from` (DTSTART; only
 * the first period has any) are passed over by search, not one by one: a rule of every second starting late in its
 * year would otherwise look at millions of them.
 */
function* selectPositions(
  days: number[],
  times: TimesOfDay,
  unit: number,
  setPos: number[] | null,
  from: number,
): Generator<number, void, void> {
  if (setPos === null) {
    for (const day of days) {
      const base = day * unit;
      for (let index = base >= from ? 0 : times.firstAtOrAfter(from - base); index < times.length; index++)
        yield base + times.at(index);
    }
    return;
  }
  const total = days.length * times.length;
  const chosen = new Set<number>();
  for (const position of setPos) {
    const index = position > 0 ? position - 1 : total + position;
    if (index >= 0 && index < total)
      chosen.add(days[Math.floor(index / times.length)] * unit + times.at(index % times.length));
  }
  yield* [...chosen].sort((a, b) => a - b);
}

/** The first of `current + k × step` (k ≥ 0) at or after `target`. */
function alignedAtOrAfter(current: number, target: number, step: number): number {
  return target <= current ? current : current + Math.ceil((target - current) / step) * step;
}

/** The first day (days since 1970-01-01) of the next month after `civil`'s that is in `months`. */
function nextAllowedMonthStart(civil: CivilDate, months: Set<number>): number {
  let year = civil.year;
  let month = civil.month;
  do {
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  } while (!months.has(month));
  return daysFromCivil(year, month, 1);
}
