/**
 * The stored `YYYY-MM-DD HH:MM:SS` format ("WP format", §3): writing and reading it, converting stored wall-clock
 * values between an event's zone and UTC, date details (§3.7) and all-day snapping.
 *
 * A malformed WP-format string, or an invalid zone, throws a RangeError: stored values are well formed and zones are
 * validated first, so either is a programming error, not bad input.
 */
import { FixedOffsetZone } from 'luxon';
import type { DateTime, Zone } from 'luxon';
import { asUtcMillis, wallClock, wallClockInstant, type WallClockFields } from './wall-clock.ts';
import { offsetAt } from './zone-offsets.ts';
import { classifyTimezone, ianaAbbreviationAt, requireZone, timezoneAbbr } from './zones.ts';

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

/** A pair of WP-format values. */
export interface WpDateRange {
  start: string;
  end: string;
}

const WP_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
export const START_OF_DAY = '00:00:00';
export const END_OF_DAY = '23:59:59';

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

export function formatWp(dt: DateTime): string {
  if (!dt.isValid) throw new RangeError(`Invalid DateTime: ${dt.invalidExplanation ?? dt.invalidReason}`);
  return `${pad(dt.year, 4)}-${pad(dt.month)}-${pad(dt.day)} ${pad(dt.hour)}:${pad(dt.minute)}:${pad(dt.second)}`;
}

/** Reads a WP-format wall-clock value in `zone`; throws on anything else, impossible dates included. */
export function parseWp(s: string, zone: string): DateTime {
  const parsed = wallClock(wpFields(s), requireZone(zone));
  if (!parsed.isValid) throw new RangeError(`Invalid date: ${JSON.stringify(s)}`);
  return parsed;
}

export function dateDetails(wp: string): DateDetails {
  const [, year, month, day, hour, minutes, seconds] = matchWp(wp);
  return { year, month, day, hour, minutes, seconds };
}

/** `YYYY-MM-DD HH:MM:SS` of a UTC millisecond value, shifted by `offsetMinutes`. */
function formatMillis(ms: number, offsetMinutes = 0): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The instant (UTC ms) of a valid WP-format wall-clock value in `zone`. */
function wallClockMillis(wp: string, zone: Zone): number {
  const fields = wpFields(wp);
  const asUtc = asUtcMillis(fields);
  if (asUtc === undefined || fields.year < 1) throw new RangeError(`Invalid date: ${JSON.stringify(wp)}`);
  return wallClockInstant(asUtc, zone);
}

/** `2027-03-10T09:00:00-05:00`: a stored wall-clock value in `timezone` with the offset in force then (ISO 8601). */
export function isoWithOffset(localWp: string, timezone: string): string {
  const zone = requireZone(timezone);
  const offset = offsetAt(zone, wallClockMillis(localWp, zone));
  const magnitude = Math.abs(offset);
  return `${localWp.replace(' ', 'T')}${offset < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60))}:${pad(magnitude % 60)}`;
}

/**
 * {@link timezoneAbbr} for a stored wall-clock value: what event writes need, without building a DateTime
 * unless the abbreviation of that offset has not been seen yet.
 */
export function timezoneAbbrForLocal(timezone: string, localWp: string): string {
  const classified = classifyTimezone(timezone);
  if (classified === null) return '';
  if (classified.kind !== 'iana') return timezoneAbbr(timezone, parseWp(localWp, timezone));
  return ianaAbbreviationAt(classified.zone, wallClockMillis(localWp, classified.zone));
}

export function localToUtc(localWp: string, timezone: string): string {
  return formatMillis(wallClockMillis(localWp, requireZone(timezone)));
}

export function utcToLocal(utcWp: string, timezone: string): string {
  const zone = requireZone(timezone);
  const instant = wallClockMillis(utcWp, FixedOffsetZone.utcInstance);
  return formatMillis(instant, offsetAt(zone, instant));
}

/** All-day events run from the start of the start day to the end of the end day (cutoff 00:00). */
export function snapAllDay(startWp: string, endWp: string): WpDateRange {
  return {
    start: `${wpDatePart(startWp)} ${START_OF_DAY}`,
    end: `${wpDatePart(endWp)} ${END_OF_DAY}`,
  };
}

function matchWp(wp: string): RegExpExecArray {
  const match = WP_PATTERN.exec(wp);
  if (!match) throw new RangeError(`Not a YYYY-MM-DD HH:MM:SS value: ${JSON.stringify(wp)}`);
  return match;
}

function wpFields(wp: string): WallClockFields {
  const [year, month, day, hour, minute, second] = matchWp(wp).slice(1).map(Number);
  return { year, month, day, hour, minute, second };
}

function wpDatePart(wp: string): string {
  return matchWp(wp)[0].slice(0, 10);
}

/** A stored UTC time (`YYYY-MM-DD HH:MM:SS`) in RFC 5545's basic UTC form, `YYYYMMDDTHHMMSSZ` (iCalendar, Google Calendar links). */
export const basicUtc = (utc: string) => `${utc.replace(/[-:]/g, '').replace(' ', 'T')}Z`;
