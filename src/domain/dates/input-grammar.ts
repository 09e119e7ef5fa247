/**
 * Dates given by clients (D8): the absolute forms, Unix timestamps, and the relative forms of `relative.ts`. Nothing
 * here reads the clock: relative forms are read against the `now` given. Bad input answers null, never throws.
 */
import { DateTime, FixedOffsetZone } from 'luxon';
import type { Zone } from 'luxon';
import { parseRelative } from './relative.ts';
import { fromFields, wallClock, type WallClockFields } from './wall-clock.ts';
import { parseClockOffset, requireZone } from './zones.ts';

/**
 * Reads a date given by a client (D8) as a DateTime in `zone`, without milliseconds; null when the
 * input is not a date. Accepted:
 * - `YYYY-MM-DD[( |T)HH:MM[:SS[.fff]]][Z|±HH[:]MM|±HH]` (case-insensitive);
 * - `YYYY-MM-DD` with a 12-hour time: `2018-01-01 4pm`, `4:30 pm`, `4 PM`, `4:30:15 p.m.`;
 * - Unix timestamps: a non-negative integer JSON number, or an all-digit string (even `"2024"`);
 * - relative forms, read against `now`: `now`, `today`, `tomorrow`, `yesterday`, `next|last|this
 *   <weekday>`, a bare weekday, `±N unit` (seconds to years, several allowed, `ago` negates them),
 *   `next|last <unit>`, and a time of day (`9am`, `9:15 p.m.`, `16:00`, `noon`, `midnight`, `at 9am`).
 * Values without an offset and relative forms are wall-clock times in `zone`; values with an offset
 * and timestamps are instants. Results outside the years 0001–9999 (in `zone`) are refused.
 */
export function parseDateInput(input: unknown, zone: string, now: DateTime): DateTime | null {
  const target = requireZone(zone);
  let parsed: DateTime | null = null;
  if (typeof input === 'number') parsed = fromTimestamp(input);
  else if (typeof input === 'string') parsed = parseDateString(input.trim().toLowerCase(), target, now);
  if (parsed === null || !parsed.isValid) return null;
  const inZone = parsed.setZone(target);
  if (inZone.year < MIN_YEAR || inZone.year > MAX_YEAR) return null;
  // Subtracting (rather than setting) keeps the offset chosen for an ambiguous wall-clock time.
  return inZone.millisecond === 0 ? inZone : inZone.minus({ milliseconds: inZone.millisecond });
}

/** The WP format has four-digit years. */
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

function fromTimestamp(seconds: number): DateTime | null {
  if (!Number.isInteger(seconds) || seconds < 0) return null;
  return DateTime.fromSeconds(seconds, { zone: 'utc' });
}

function parseDateString(text: string, zone: Zone, now: DateTime): DateTime | null {
  if (/^\d+$/.test(text)) return fromTimestamp(Number(text));
  return parseAbsolute(text, zone) ?? parseDateWith12HourTime(text, zone) ?? parseRelative(text, zone, now);
}

/**
 * A date then a 12-hour time, as PHP's `strtotime` (and so the reference) reads them: `2018-01-01 4pm`,
 * `2018-01-01 4:30 pm`, `2018-01-01 4 PM`, `2018-01-01 4:30:15 p.m.`; `12am` is midnight and `12pm` noon.
 */
const DATE_WITH_12_HOUR_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:t|\s+)(?:at\s+)?(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?m\.?$/;

function parseDateWith12HourTime(text: string, zone: Zone): DateTime | null {
  const match = DATE_WITH_12_HOUR_TIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute = '0', second = '0', meridiem] = match;
  const clockHour = Number(hour);
  if (clockHour < 1 || clockHour > 12 || Number(minute) > 59 || Number(second) > 59) return null;
  return wallClock(
    {
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: (clockHour % 12) + (meridiem === 'p' ? 12 : 0),
      minute: Number(minute),
      second: Number(second),
    },
    zone,
  );
}

const ABSOLUTE_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:(?:t|\s+)(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:\s*(z|[+-]\d{2}(?::?\d{2})?))?)?$/;

function parseAbsolute(text: string, zone: Zone): DateTime | null {
  const match = ABSOLUTE_PATTERN.exec(text);
  if (!match) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', offset] = match;
  const fields: WallClockFields = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
  if (offset === undefined) return wallClock(fields, zone);
  const offsetMinutes = offset === 'z' ? 0 : parseClockOffset(offset);
  if (offsetMinutes === null) return null;
  return fromFields(fields, FixedOffsetZone.instance(offsetMinutes));
}
