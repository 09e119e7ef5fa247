/**
 * Wall-clock times in a zone: which instant `YYYY-MM-DD HH:MM:SS` names in a given zone.
 *
 * Wall-clock times are DST-correct. A local time that does not exist (spring-forward gap) moves
 * forward by the gap, Luxon's default: 2026-03-08 02:30 in New York is 03:30 EDT. A local time that
 * occurs twice (fall-back) is its first occurrence, as in PHP: 2026-11-01 01:30 in New York is EDT
 * (Luxon alone would pick EST).
 */
import { DateTime } from 'luxon';
import type { Zone } from 'luxon';
import { offsetAt } from './zone-offsets.ts';

export interface WallClockFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** A wall-clock time in `zone`, with the gap and overlap rules of the module comment; invalid when none is named. */
export function wallClock(fields: WallClockFields, zone: Zone): DateTime {
  const asUtc = asUtcMillis(fields);
  if (asUtc === undefined) return DateTime.invalid('no such date or time of day');
  return DateTime.fromMillis(wallClockInstant(asUtc, zone), { zone });
}

/**
 * The instant `fields` name read as UTC; undefined for fields that name no date or time of day (February 30th, 24:00,
 * a fraction). What `DateTime.fromObject` accepts in UTC, which costs several times as much (a batch of writes reads
 * two or three dates per event).
 */
export function asUtcMillis({ year, month, day, hour, minute, second }: WallClockFields): number | undefined {
  if (![year, month, day, hour, minute, second].every(Number.isInteger)) return undefined;
  if (month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined;
  if (second < 0 || second > 59) return undefined;
  // Not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  // A day past its month's end rolls over into the next month (and a year past Date's range gives NaN).
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date.getTime() : undefined;
}

const HALF_DAY_MS = 12 * 60 * 60 * 1000;

/**
 * The instant a wall-clock time (given as if it were UTC) names in `zone`, without Luxon's costly
 * getPossibleOffsets: the offsets in force half a day either side are the only candidates. A repeated
 * time takes its first occurrence (PHP); a time in a spring-forward gap is read with the offset before
 * the gap, which moves it forward by the gap (Luxon's and PHP's reading).
 */
export function wallClockInstant(asUtcMillis: number, zone: Zone): number {
  const before = offsetAt(zone, asUtcMillis - HALF_DAY_MS);
  const after = offsetAt(zone, asUtcMillis + HALF_DAY_MS);
  const candidates = [before, after]
    .map((offset) => asUtcMillis - offset * 60_000)
    .filter((instant, index) => offsetAt(zone, instant) === [before, after][index]);
  return candidates.length > 0 ? Math.min(...candidates) : asUtcMillis - before * 60_000;
}

/** Like DateTime.fromObject, without the ISO `24:00:00` that Luxon accepts as the next midnight. */
export function fromFields(fields: WallClockFields, zone: Zone): DateTime {
  if (fields.hour > 23) return DateTime.invalid('hour out of range');
  return DateTime.fromObject(fields, { zone });
}
