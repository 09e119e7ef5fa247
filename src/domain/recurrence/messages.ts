/** Messages for API users (D25: 400 rest_invalid_param on `recurrence`, details.recurrence.code rest_invalid_recurrence). */
import type { Expansion, RecurrenceLineError } from './types.ts';

export const RECURRENCE_ERROR_CODE = 'rest_invalid_recurrence';

/** `Invalid recurrence line "RRULE:FREQ=SECONDLY": FREQ=SECONDLY is not supported: …` */
export function describeRecurrenceError(error: RecurrenceLineError | Extract<Expansion, { ok: false }>): string {
  if ('line' in error) return `Invalid recurrence line ${JSON.stringify(error.line)}: ${error.message}.`;
  return error.message;
}

export function tooManyMessage(max: number, horizonUtc: string): string {
  return `The recurrence has more than ${max} occurrences up to ${horizonUtc} UTC: end it sooner with COUNT or UNTIL, or repeat less often.`;
}

export function tooManyInAllMessage(max: number): string {
  return `The recurrence has more than ${max} occurrences in all: end it sooner with COUNT or UNTIL, or repeat less often.`;
}

export function tooCostlyMessage(line: string): string {
  return `The recurrence line ${JSON.stringify(line)} matches too rarely to be expanded: check its BYxxx parts (for example BYMONTHDAY=30 with BYMONTH=2 never matches).`;
}
