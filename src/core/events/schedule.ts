// When an event happens, as written by create and update (§5.2 "Dates", D2, D3, D8): pure, so the merge rules can be
// tested without a database.
import type { DateTime } from 'luxon';
import { parseDateInput } from '../../domain/dates/input-grammar.ts';
import { formatWp, parseWp, snapAllDay } from '../../domain/dates/stored-format.ts';
import { timezoneAbbr } from '../../domain/dates/zones.ts';

/** What an event stores about its time: wall-clock values in `timezone`, and the same instants in UTC. */
export interface EventSchedule {
  timezone: string;
  timezoneAbbr: string;
  allDay: boolean;
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

/** The schedule fields a request sent; `start`/`end` are raw date inputs (D8). */
export interface ScheduleInput {
  start?: unknown;
  end?: unknown;
  /** `""` means the site's zone. */
  timezone?: string;
  allDay?: boolean;
}

export type StoredSchedule = Pick<EventSchedule, 'timezone' | 'allDay' | 'startLocal' | 'endLocal'>;

export type ScheduleProblem = 'start_date' | 'end_date' | 'range';
export type ScheduleResult = { ok: true; schedule: EventSchedule } | { ok: false; problem: ScheduleProblem };

/**
 * The schedule after a create (`stored` null: start and end are required) or an update (D2: what was not sent keeps
 * its stored value). Dates are read in the event's zone; an all-day event runs from 00:00:00 of its first day to
 * 23:59:59 of its last (sent times are ignored, and `all_day: true` alone re-snaps the stored dates); a zone change
 * without dates keeps the wall-clock times and moves the instants. The end may equal the start but not precede it (D3,
 * compared after snapping, with the stored value of whichever date was not sent).
 */
export function resolveSchedule(
  input: ScheduleInput,
  stored: StoredSchedule | null,
  siteZone: string,
  now: DateTime,
): ScheduleResult {
  const timezone = input.timezone === undefined ? stored?.timezone || siteZone : input.timezone.trim() || siteZone;

  const start = readLocal(input.start, stored?.startLocal, timezone, now);
  if (start === null) return { ok: false, problem: 'start_date' };
  const end = readLocal(input.end, stored?.endLocal, timezone, now);
  if (end === null) return { ok: false, problem: 'end_date' };

  const allDay = input.allDay ?? stored?.allDay ?? false;
  const snapped = allDay ? snapAllDay(start, end) : { start, end };
  const startAt = parseWp(snapped.start, timezone);
  const endAt = parseWp(snapped.end, timezone);
  const startUtc = formatWp(startAt.toUTC());
  const endUtc = formatWp(endAt.toUTC());
  if (!isWpValue(startUtc)) return { ok: false, problem: 'start_date' };
  if (!isWpValue(endUtc)) return { ok: false, problem: 'end_date' };
  if (endAt < startAt) return { ok: false, problem: 'range' };

  return {
    ok: true,
    schedule: {
      timezone,
      timezoneAbbr: timezoneAbbr(timezone, startAt),
      allDay,
      // Re-reading normalises a wall-clock time that does not exist in the zone (a DST gap), so local and UTC agree.
      startLocal: formatWp(startAt),
      endLocal: formatWp(endAt),
      startUtc,
      endUtc,
    },
  };
}

/** A four-digit-year `YYYY-MM-DD HH:MM:SS`: a local value at the edge of year 9999 can fall outside it in UTC. */
export const isWpValue = (value: string) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value);

function readLocal(sent: unknown, stored: string | undefined, timezone: string, now: DateTime): string | null {
  if (sent === undefined) return stored ?? null;
  const parsed = parseDateInput(sent, timezone, now);
  return parsed === null ? null : formatWp(parsed);
}
