/**
 * parseRecurrence: a client's `recurrence` (D25: RFC 5545 `RRULE:`, `RDATE` and `EXDATE` lines, as Google Calendar
 * takes them) → the normalised lines and what they mean, or the first offending line with a message for API users.
 */
import { localToUtc } from '../dates/stored-format.ts';
import { requireZone, resolveZone } from '../dates/zones.ts';
import { dayOfFloating, requireFloating, SECONDS_PER_DAY } from './civil.ts';
import { readDateValue, resolveDateValue, type RawDateValue } from './date-values.ts';
import { parseRule } from './rule-parse.ts';
import type { DateValue, RecurrenceLineError, RecurrenceParse, RuleSpec, SeriesStart } from './types.ts';

export const MAX_RECURRENCE_LINES = 100;
export const MAX_RECURRENCE_LINE_LENGTH = 1000;

const LINE_PATTERN = /^([A-Za-z][A-Za-z0-9-]*)((?:;[A-Za-z][A-Za-z0-9-]*=(?:"[^"]*"|[^;:"]*))*):(.*)$/;
const PARAM_PATTERN = /;([A-Za-z][A-Za-z0-9-]*)=("[^"]*"|[^;:"]*)/g;

/**
 * `input`: an array of lines, or a string of lines separated by line breaks; `[]` and `""` (null result) make the
 * event single. The series is the event's zone, kind and first occurrence, already validated (an invalid zone throws).
 */
export function parseRecurrence(input: unknown, series: SeriesStart): RecurrenceParse {
  requireZone(series.timezone);
  let lines: string[];
  if (typeof input === 'string') {
    lines = input
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
  } else if (Array.isArray(input)) {
    const items: readonly unknown[] = input;
    lines = [];
    for (const [index, line] of items.entries()) {
      if (typeof line !== 'string')
        return refuse(JSON.stringify(line) ?? String(line), `line ${index + 1} is not a string`);
      lines.push(line.trim());
    }
  } else {
    return refuse(
      describeValue(input),
      'recurrence must be an array of RRULE, RDATE and EXDATE lines, or [] / "" for a single event',
    );
  }
  if (lines.length === 0) return { ok: true, recurrence: null };
  if (lines.length > MAX_RECURRENCE_LINES) {
    return refuse(
      lines[MAX_RECURRENCE_LINES],
      `recurrence has ${lines.length} lines; at most ${MAX_RECURRENCE_LINES} are allowed`,
    );
  }

  const normalised: string[] = [];
  const rules: RuleSpec[] = [];
  const rdates: DateValue[] = [];
  const exdates: DateValue[] = [];
  for (const line of lines) {
    if (line.length > MAX_RECURRENCE_LINE_LENGTH) {
      return refuse(
        `${line.slice(0, 60)}…`,
        `the line is ${line.length} characters long; at most ${MAX_RECURRENCE_LINE_LENGTH} are allowed`,
      );
    }
    if (line === '') return refuse(line, 'empty line');
    const match = LINE_PATTERN.exec(line);
    if (!match)
      return refuse(line, 'not an RFC 5545 line (NAME[;PARAM=VALUE]:VALUE), such as RRULE:FREQ=WEEKLY;BYDAY=MO');
    const property = match[1].toUpperCase();
    const params = readParams(match[2]);
    const value = match[3].trim();
    if (property === 'RRULE') {
      if (params.length > 0) return refuse(line, 'RRULE takes no parameters');
      const parsed = parseRule(value);
      if (typeof parsed === 'string') return refuse(line, parsed);
      const problem = checkRuleForSeries(parsed.rule, series);
      if (problem !== null) return refuse(line, problem);
      rules.push(parsed.rule);
      normalised.push(`RRULE:${parsed.normalised}`);
    } else if (property === 'RDATE' || property === 'EXDATE') {
      const parsed = parseDateList(property, params, value, series);
      if (typeof parsed === 'string') return refuse(line, parsed);
      (property === 'RDATE' ? rdates : exdates).push(...parsed.values);
      normalised.push(parsed.normalised);
    } else if (property === 'EXRULE') {
      return refuse(line, 'EXRULE is not supported (RFC 5545 deprecated it): list the dates to leave out with EXDATE');
    } else {
      return refuse(
        line,
        `unknown property ${property}: only RRULE, RDATE and EXDATE lines are accepted (the start and end dates give DTSTART)`,
      );
    }
  }
  return { ok: true, recurrence: { lines: normalised, rules, rdates, exdates } };
}

function refuse(line: string, message: string): RecurrenceLineError {
  return { ok: false, line, message };
}

function describeValue(input: unknown): string {
  if (input === null) return 'null';
  if (typeof input === 'object') return 'an object';
  return `${typeof input} ${String(input)}`.slice(0, 80);
}

function readParams(text: string): Array<[string, string]> {
  return [...text.matchAll(PARAM_PATTERN)].map((match) => [match[1].toUpperCase(), match[2].replace(/^"(.*)"$/, '$1')]);
}

/** Checks of a rule against its series: all-day rules, UNTIL before DTSTART, BYHOUR that HOURLY can never reach. */
function checkRuleForSeries(rule: RuleSpec, series: SeriesStart): string | null {
  if (series.allDay) {
    if (rule.freq === 'HOURLY') return 'an all-day event cannot repeat HOURLY';
    if (rule.byHour !== null || rule.byMinute !== null || rule.bySecond !== null) {
      return 'an all-day event repeats by whole days: BYHOUR, BYMINUTE and BYSECOND do not apply';
    }
  }
  const start = requireFloating(series.startLocal);
  if (rule.until !== null && untilPrecedes(rule.until, start, series)) {
    return `UNTIL is before the event's start (${series.startLocal} ${series.timezone})`;
  }
  if (rule.freq === 'HOURLY' && rule.byHour !== null) {
    // Every INTERVAL hours from DTSTART reaches exactly the hours congruent to its hour modulo gcd(INTERVAL, 24).
    const step = gcd(rule.interval, 24);
    const startHour = Math.floor((start % SECONDS_PER_DAY) / 3600);
    if (!rule.byHour.some((hour) => (hour - startHour) % step === 0)) {
      return `BYHOUR never matches: every ${rule.interval} hours from ${startHour}:00 reaches only hours ${startHour % step} + multiples of ${step}`;
    }
  }
  return null;
}

function untilPrecedes(until: DateValue, start: number, series: SeriesStart): boolean {
  switch (until.kind) {
    case 'date':
      return until.days < dayOfFloating(start);
    case 'floating':
      return until.seconds < start;
    case 'utc':
      return until.utc < localToUtc(series.startLocal, series.timezone);
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** An RDATE or EXDATE line's values and normalised form. */
function parseDateList(
  property: 'RDATE' | 'EXDATE',
  params: Array<[string, string]>,
  valueText: string,
  series: SeriesStart,
): { values: DateValue[]; normalised: string } | string {
  let tzid: string | null = null;
  let valueType: 'DATE' | 'DATE-TIME' | null = null;
  const seen = new Set<string>();
  for (const [name, value] of params) {
    if (seen.has(name)) return `${name} is given twice`;
    seen.add(name);
    if (name === 'TZID') {
      if (resolveZone(value) === null) return `unknown time zone TZID=${value}`;
      tzid = value;
    } else if (name === 'VALUE') {
      const upper = value.toUpperCase();
      if (upper === 'PERIOD') return `VALUE=PERIOD is not supported: give the start of each occurrence`;
      if (upper !== 'DATE' && upper !== 'DATE-TIME') return `VALUE=${value} is not DATE or DATE-TIME`;
      valueType = upper;
    } else {
      return `unknown parameter ${name} (${property} takes TZID and VALUE)`;
    }
  }
  if (valueText === '') return `${property} has no value`;

  const raws: RawDateValue[] = [];
  for (const item of valueText.split(',')) {
    const raw = readDateValue(item.trim().toUpperCase());
    if (typeof raw === 'string') return raw;
    raws.push(raw);
  }
  const kinds = new Set(raws.map((raw) => raw.kind));
  if (kinds.size > 1) return 'dates and date-times cannot be mixed in one line';
  const kind = raws[0].kind === 'date' ? 'DATE' : 'DATE-TIME';
  if (valueType !== null && valueType !== kind) {
    return valueType === 'DATE'
      ? 'VALUE=DATE takes dates (YYYYMMDD)'
      : 'VALUE=DATE-TIME takes date-times (YYYYMMDDTHHMMSS)';
  }
  if (kind === 'DATE' && tzid !== null) return 'TZID does not apply to dates (VALUE=DATE)';
  if (kind === 'DATE-TIME' && tzid !== null && raws.some((raw) => raw.kind === 'date-time' && raw.utc)) {
    return 'a UTC value (ending in Z) cannot have a TZID';
  }
  if (series.allDay && kind === 'DATE-TIME') {
    return `an all-day event takes dates: ${property};VALUE=DATE:YYYYMMDD`;
  }
  if (property === 'RDATE' && kind === 'DATE' && !series.allDay) {
    return 'a timed event takes date-times for RDATE (YYYYMMDDTHHMMSS, with TZID or Z as needed)';
  }

  const values = raws.map((raw) => resolveDateValue(raw, tzid));
  // A TZID holding ":", ";" or "," (`+05:30`) is quoted, so that the normalised line reads back the same.
  const tzidText = tzid === null ? '' : /[:;,]/.test(tzid) ? `;TZID="${tzid}"` : `;TZID=${tzid}`;
  const paramText = tzidText + (kind === 'DATE' ? ';VALUE=DATE' : '');
  const valuesText = valueText
    .split(',')
    .map((item) => item.trim().toUpperCase())
    .join(',');
  return { values, normalised: `${property}${paramText}:${valuesText}` };
}
