// D26: when an event's iCalendar SEQUENCE grows: each time what a calendar shows as the event's "when, what, where,
// whether" changes (RFC 5545 §3.8.7.4). Pure; core/events/sequence.ts applies it to writes.

/**
 * What SEQUENCE follows: the dates (and zone, all-day, and a series' RRULE/RDATE/EXDATE lines, D25), the title, the
 * venue (LOCATION) and the status.
 */
export interface SequenceFields {
  title: string;
  status: string;
  start_local: string;
  end_local: string;
  timezone: string;
  all_day: number;
  venue_id: number | null;
  /** JSON of the series' lines ('' for a single event). */
  recurrence?: string;
}

const KEYS: ReadonlyArray<keyof SequenceFields> = [
  'title',
  'status',
  'start_local',
  'end_local',
  'timezone',
  'all_day',
  'venue_id',
  'recurrence',
];

/** Pure: whether a write from `before` to `after` is a change subscribers must take over (SEQUENCE + 1). */
export function sequenceChanges(before: SequenceFields, after: SequenceFields): boolean {
  return KEYS.some((key) => before[key] !== after[key]);
}
