/** The shapes shared by the recurrence module's parser and expander (RFC 5545 RRULE, RDATE, EXDATE). */

/** The series an expansion belongs to: its zone and the first occurrence (DTSTART) with its end. */
export interface SeriesStart {
  /** IANA id or any other zone form the service accepts (see resolveZone in src/domain/dates/zones.ts). */
  timezone: string;
  allDay: boolean;
  /** `YYYY-MM-DD HH:MM:SS` wall-clock values in `timezone` (all-day: `… 00:00:00` to the last day's `… 23:59:59`). */
  startLocal: string;
  endLocal: string;
}

/** The frequencies accepted: SECONDLY and MINUTELY are refused (D25). */
export type Frequency = 'YEARLY' | 'MONTHLY' | 'WEEKLY' | 'DAILY' | 'HOURLY';

/** A BYDAY entry: weekday 0 = MO … 6 = SU; `n` the ordinal (1MO = 1, -1FR = -1), 0 for every such weekday. */
export interface WeekdayNum {
  weekday: number;
  n: number;
}

/**
 * An UNTIL or RDATE/EXDATE value:
 * - `utc`: an instant (`…Z`, or a TZID value converted at parse time), as `YYYY-MM-DD HH:MM:SS` UTC;
 * - `floating`: a wall-clock date-time without zone, read in the series' zone (seconds of the floating clock);
 * - `date`: a whole local date (days since 1970-01-01).
 */
export type DateValue =
  | { kind: 'utc'; utc: string }
  | { kind: 'floating'; seconds: number }
  | { kind: 'date'; days: number };

/** One parsed RRULE (the BY lists are sorted, deduplicated, and null when absent). */
export interface RuleSpec {
  freq: Frequency;
  interval: number;
  count: number | null;
  until: DateValue | null;
  bySecond: number[] | null;
  byMinute: number[] | null;
  byHour: number[] | null;
  byDay: WeekdayNum[] | null;
  byMonthDay: number[] | null;
  byYearDay: number[] | null;
  byWeekNo: number[] | null;
  byMonth: number[] | null;
  bySetPos: number[] | null;
  /** Week start, 0 = MO (the default) … 6 = SU. */
  wkst: number;
}

export interface ParsedRecurrence {
  /** The normalised lines, as stored and answered back (property and parameter names and rule parts upper case). */
  lines: string[];
  rules: RuleSpec[];
  rdates: DateValue[];
  exdates: DateValue[];
}

export interface RecurrenceLineError {
  ok: false;
  /** The offending line as sent (or a description of the input when it is not a line at all). */
  line: string;
  message: string;
}

export type RecurrenceParse = { ok: true; recurrence: ParsedRecurrence | null } | RecurrenceLineError;

export interface OccurrenceTimes {
  startLocal: string;
  endLocal: string;
  startUtc: string;
  endUtc: string;
}

export type Expansion =
  | { ok: true; occurrences: OccurrenceTimes[]; complete: boolean }
  | { ok: false; reason: 'too_many'; message: string };

export interface ExpansionOptions {
  /** `YYYY-MM-DD HH:MM:SS` UTC: occurrences starting at or before it are listed. */
  horizonUtc: string;
  /** More occurrences listed than this is an error (D25: RECURRENCE_MAX_OCCURRENCES, 1000). */
  maxOccurrences: number;
  /**
   * Whether the rules that end (COUNT or UNTIL) and RDATE are listed in full, past the horizon too, as a series is
   * stored; else (the default) only their starts up to the horizon, as for open-ended rules.
   */
  completeFiniteRules?: boolean;
}

export const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
