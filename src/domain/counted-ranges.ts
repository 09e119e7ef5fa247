// Totals without scans: which rows of the occurrence counts a window of whole local days adds up. Pure;
// core/occurrences/counts.ts turns the ranges into one statement.
//
// A window counts the occurrences that start on or after its first day and end on or before its last. Day rows
// (domain/occurrence-counts.ts `countKey`) answer any window, one row per day and end; month rows (`monthKey`) answer
// the months the window holds whole, a row per month and end. So a window is its partial first month and partial last
// month by day, and the whole months between by month: a default window of two years adds up about sixty days and
// two dozen months instead of seven hundred days.

import { daysInMonth } from './recurrence/civil.ts';

/** Rows of one grain whose start (a day, `YYYY-MM-DD`, or a month, `YYYY-MM`) is within the bounds (inclusive). */
export interface CountedRange {
  grain: 'day' | 'month';
  /** The first start counted; none: from the earliest. */
  from?: string;
  /** The last start counted; none: to the latest. */
  to?: string;
}

const monthOf = (day: string) => day.slice(0, 7);

/** The month after (`step` 1) or before (-1) `month`, `YYYY-MM`. */
function shiftMonth(month: string, step: 1 | -1): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + step;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The last day of `month` (`YYYY-MM`). */
export function lastDayOf(month: string): string {
  return `${month}-${String(daysInMonth(Number(month.slice(0, 4)), Number(month.slice(5, 7)))).padStart(2, '0')}`;
}

/**
 * The ranges whose rows add up to the occurrences of the window `fromDay`–`toDay` (either may be open). Every row
 * counted must also end on or before `toDay` when there is one: a month row's end is exact for that comparison
 * because the month ranges stop before `toDay`'s month unless `toDay` is that month's last day.
 */
export function countedRanges(fromDay?: string, toDay?: string): CountedRange[] {
  if (fromDay !== undefined && toDay !== undefined && (fromDay > toDay || monthOf(fromDay) === monthOf(toDay)))
    return [{ grain: 'day', from: fromDay, to: toDay }];
  const startsWhole = fromDay === undefined || fromDay.endsWith('-01');
  const endsWhole = toDay === undefined || toDay === lastDayOf(monthOf(toDay));
  const firstMonth =
    fromDay === undefined ? undefined : startsWhole ? monthOf(fromDay) : shiftMonth(monthOf(fromDay), 1);
  const lastMonth = toDay === undefined ? undefined : endsWhole ? monthOf(toDay) : shiftMonth(monthOf(toDay), -1);
  const ranges: CountedRange[] = [];
  if (!startsWhole && fromDay !== undefined)
    ranges.push({ grain: 'day', from: fromDay, to: lastDayOf(monthOf(fromDay)) });
  if (firstMonth === undefined || lastMonth === undefined || firstMonth <= lastMonth)
    ranges.push({
      grain: 'month',
      ...(firstMonth === undefined ? {} : { from: firstMonth }),
      ...(lastMonth === undefined ? {} : { to: lastMonth }),
    });
  if (!endsWhole && toDay !== undefined) ranges.push({ grain: 'day', from: `${monthOf(toDay)}-01`, to: toDay });
  return ranges;
}
