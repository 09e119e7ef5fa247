// What the date suites share: a fixed clock, a zone with DST, and parseDateInput's answers as strings.
import { DateTime } from 'luxon';
import { parseDateInput } from '../../../src/domain/dates/input-grammar.ts';
import { formatWp } from '../../../src/domain/dates/stored-format.ts';
import { resolveZone } from '../../../src/domain/dates/zones.ts';

export const NY = 'America/New_York';
/** Wednesday 2026-03-04, 15:45:30.250 UTC (10:45:30 EST in New York). */
export const NOW: DateTime = DateTime.fromISO('2026-03-04T15:45:30.250Z');

export const utc = (iso: string): DateTime => DateTime.fromISO(iso, { zone: 'utc' });

/** parseDateInput's answer in WP format (null stays null). */
export function parsed(input: unknown, zone = 'UTC', now: DateTime = NOW): string | null {
  const result = parseDateInput(input, zone, now);
  return result === null ? null : formatWp(result);
}

/** parseDateInput's answer as an ISO string with offset, to check the offset too. */
export function parsedIso(input: unknown, zone: string, now: DateTime = NOW): string | null {
  const result = parseDateInput(input, zone, now);
  return result === null ? null : result.toISO({ suppressMilliseconds: true });
}

export function offsetOf(timezone: string, at: DateTime = NOW): number | null {
  const zone = resolveZone(timezone);
  return zone === null ? null : zone.offset(at.toMillis());
}
