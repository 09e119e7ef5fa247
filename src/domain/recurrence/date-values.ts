/**
 * RFC 5545 DATE and DATE-TIME values (`20260310`, `20260310T090000`, `20260310T090000Z`) as used by UNTIL, RDATE and
 * EXDATE, and what they mean for a series: instants, floating wall-clock times, whole dates.
 */
import { localToUtc } from '../dates/stored-format.ts';
import { daysFromCivil, floatingSeconds, formatFloating, isValidCivil } from './civil.ts';
import type { DateValue } from './types.ts';

const VALUE_PATTERN = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/;

export type RawDateValue = { kind: 'date'; days: number } | { kind: 'date-time'; seconds: number; utc: boolean };

/** Reads one value; a string saying what is wrong when it is not a valid DATE or DATE-TIME. */
export function readDateValue(text: string): RawDateValue | string {
  const match = VALUE_PATTERN.exec(text);
  if (!match) return `"${text}" is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS, optionally ending in Z)`;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number);
  if (!isValidCivil(year, month, day)) return `"${text}" is not a valid date`;
  if (match[4] === undefined) return { kind: 'date', days: daysFromCivil(year, month, day) };
  const [hour, minute, second] = [match[4], match[5], match[6]].map(Number);
  if (hour > 23 || minute > 59 || second > 59) return `"${text}" is not a valid time`;
  return {
    kind: 'date-time',
    seconds: floatingSeconds({ year, month, day, hour, minute, second }),
    utc: match[7] === 'Z',
  };
}

/** A raw value read in `zone` (a TZID) when it is a floating date-time, else as it is. */
export function resolveDateValue(raw: RawDateValue, tzid: string | null): DateValue {
  if (raw.kind === 'date') return raw;
  if (raw.utc) return { kind: 'utc', utc: formatFloating(raw.seconds) };
  if (tzid !== null) return { kind: 'utc', utc: localToUtc(formatFloating(raw.seconds), tzid) };
  return { kind: 'floating', seconds: raw.seconds };
}
