/** Week numbers as RFC 5545 BYWEEKNO counts them: week 1 is the first week (starting on WKST) with at least four days in the year. */
import { civilFromDays, daysFromCivil, weekdayOfDays } from './civil.ts';

export interface WeekNumber {
  /** The year the week belongs to (it may differ from the calendar year of the day near January 1). */
  weekYear: number;
  week: number;
  /** How many weeks `weekYear` has (52 or 53). */
  weeksInYear: number;
}

const firstWeekStarts = new Map<number, number>();

/** The start (days since 1970-01-01) of week 1 of `year` with weeks starting on `wkst` (0 = MO). */
export function firstWeekStart(year: number, wkst: number): number {
  const key = year * 7 + wkst;
  let start = firstWeekStarts.get(key);
  if (start === undefined) {
    start = computeFirstWeekStart(year, wkst);
    if (firstWeekStarts.size >= 100_000) firstWeekStarts.clear();
    firstWeekStarts.set(key, start);
  }
  return start;
}

function computeFirstWeekStart(year: number, wkst: number): number {
  const january1 = daysFromCivil(year, 1, 1);
  const weekStart = january1 - ((weekdayOfDays(january1) - wkst + 7) % 7);
  // The week holding January 1 has weekStart + 7 - january1 days in the year: week 1 when that is at least four.
  return weekStart + 3 >= january1 ? weekStart : weekStart + 7;
}

export function weekNumberOf(days: number, wkst: number): WeekNumber {
  const weekStart = days - ((weekdayOfDays(days) - wkst + 7) % 7);
  // A week belongs to the year holding its fourth day (the year holding most of it).
  const weekYear = civilFromDays(weekStart + 3).year;
  const first = firstWeekStart(weekYear, wkst);
  return {
    weekYear,
    week: (weekStart - first) / 7 + 1,
    weeksInYear: (firstWeekStart(weekYear + 1, wkst) - first) / 7,
  };
}
