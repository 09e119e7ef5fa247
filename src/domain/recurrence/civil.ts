/**
 * Proleptic Gregorian calendar arithmetic on plain numbers, for wall-clock ("floating") times: a wall-clock time is
 * held as seconds since 1970-01-01 00:00:00 of the same wall clock, with no zone attached. Days are counted from
 * 1970-01-01 (day 0); weekdays are 0 = Monday … 6 = Sunday, as in RFC 5545's MO…SU order.
 */

export const SECONDS_PER_DAY = 86_400;
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

export interface CivilDateTime extends CivilDate {
  hour: number;
  minute: number;
  second: number;
}

/** Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of a day count (Howard Hinnant's civil_from_days). */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInYear(year: number): number {
  return isLeapYear(year) ? 366 : 365;
}

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_LENGTHS[month - 1];
}

/** 0 = Monday … 6 = Sunday. 1970-01-01 was a Thursday. */
export function weekdayOfDays(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}

export function isValidCivil(year: number, month: number, day: number): boolean {
  return (
    Number.isInteger(year) &&
    year >= MIN_YEAR &&
    year <= MAX_YEAR &&
    Number.isInteger(month) &&
    month >= 1 &&
    month <= 12 &&
    Number.isInteger(day) &&
    day >= 1 &&
    day <= daysInMonth(year, month)
  );
}

export function floatingSeconds(t: CivilDateTime): number {
  return daysFromCivil(t.year, t.month, t.day) * SECONDS_PER_DAY + t.hour * 3600 + t.minute * 60 + t.second;
}

export function civilFromFloating(seconds: number): CivilDateTime {
  const days = Math.floor(seconds / SECONDS_PER_DAY);
  let rest = seconds - days * SECONDS_PER_DAY;
  const hour = Math.floor(rest / 3600);
  rest -= hour * 3600;
  const minute = Math.floor(rest / 60);
  return { ...civilFromDays(days), hour, minute, second: rest - minute * 60 };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `YYYY-MM-DD HH:MM:SS` of a floating time. */
export function formatFloating(seconds: number): string {
  const t = civilFromFloating(seconds);
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

const WP_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** The floating time of a valid `YYYY-MM-DD HH:MM:SS` value, or null. */
export function parseFloating(wp: string): number | null {
  const match = WP_PATTERN.exec(wp);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  if (!isValidCivil(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  return floatingSeconds({ year, month, day, hour, minute, second });
}

/** {@link parseFloating} for values already validated (stored values): a malformed one is a programming error. */
export function requireFloating(wp: string): number {
  const seconds = parseFloating(wp);
  if (seconds === null) throw new RangeError(`Not a valid YYYY-MM-DD HH:MM:SS value: ${JSON.stringify(wp)}`);
  return seconds;
}

export function dayOfFloating(seconds: number): number {
  return Math.floor(seconds / SECONDS_PER_DAY);
}
