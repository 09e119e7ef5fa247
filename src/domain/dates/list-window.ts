/**
 * The date window of event lists (§4.2): the default window, and the bounds given by `start_date`, `end_date`,
 * `starts_*` and `ends_*`, in the site zone. Nothing here reads the clock; input that is not a date answers null.
 */
import type { DateTime } from 'luxon';
import { parseDateInput } from './input-grammar.ts';
import { END_OF_DAY, formatWp, START_OF_DAY, type WpDateRange } from './stored-format.ts';
import { requireZone } from './zones.ts';

export type DateBoundKind = 'start_date' | 'end_date' | 'starts_before' | 'starts_after' | 'ends_before' | 'ends_after';

/**
 * The date window of `GET /events` without date parameters, in `siteZone`: from the start of the
 * local day holding "yesterday 23:59 UTC", to the end of the UTC day of now + 24 months.
 *
 * It depends only on the UTC date of `now` and on the zone, and a list asks for it up to three times (the Luxon
 * arithmetic cost a list page about 3 % of its CPU): the windows of the last few (day, zone) pairs are kept.
 */
export function defaultListWindow(now: DateTime, siteZone: string): WpDateRange {
  const key = `${new Date(now.toMillis()).toISOString().slice(0, 10)} ${siteZone}`;
  let window = recentWindows.get(key);
  if (window === undefined) {
    window = computeDefaultListWindow(now, siteZone);
    if (recentWindows.size >= RECENT_WINDOWS) recentWindows.delete(recentWindows.keys().next().value!);
    recentWindows.set(key, window);
  }
  return { ...window };
}

const RECENT_WINDOWS = 8;
const recentWindows = new Map<string, WpDateRange>();

/** {@link defaultListWindow}, computed every time (what its kept windows are checked against). */
export function computeDefaultListWindow(now: DateTime, siteZone: string): WpDateRange {
  const utcNow = now.toUTC();
  const lateYesterday = utcNow.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 });
  const startDay = lateYesterday.setZone(requireZone(siteZone));
  const endDay = plusMonthsOverflowing(utcNow, 24);
  return {
    start: `${isoDatePart(startDay)} ${START_OF_DAY}`,
    end: `${isoDatePart(endDay)} ${END_OF_DAY}`,
  };
}

/**
 * Inclusive (default) list bound: the input's date in `siteZone`, at 00:00:00 for `start_date` and
 * 23:59:59 for every other kind. Null when the input is not a date.
 */
export function inclusiveBound(input: unknown, kind: DateBoundKind, siteZone: string, now: DateTime): string | null {
  const parsed = parseDateInput(input, siteZone, now);
  if (parsed === null) return null;
  return `${isoDatePart(parsed)} ${kind === 'start_date' ? START_OF_DAY : END_OF_DAY}`;
}

/**
 * Strict (`strict_dates=true`) list bound: the input as given, in `siteZone`, no snapping. Values
 * without an offset are read in `siteZone` (D8 overrides the reference's UTC reading of §4.2).
 * Null when the input is not a date.
 */
export function strictBound(input: unknown, siteZone: string, now: DateTime): string | null {
  const parsed = parseDateInput(input, siteZone, now);
  return parsed === null ? null : formatWp(parsed);
}

/**
 * PHP's `+N months`: a day past the end of the target month overflows into the next one
 * (2028-02-29 + 24 months is 2030-03-01), which is what the reference's default window does.
 */
function plusMonthsOverflowing(dt: DateTime, months: number): DateTime {
  const clamped = dt.plus({ months });
  return clamped.plus({ days: dt.day - clamped.day });
}

function isoDatePart(dt: DateTime): string {
  return dt.toFormat('yyyy-MM-dd');
}
