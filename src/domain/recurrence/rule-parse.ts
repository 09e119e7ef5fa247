/**
 * The value of an `RRULE:` line (RFC 5545 §3.3.10) → a RuleSpec, with the rule's own consistency checks. Checks that
 * need the series (UNTIL before DTSTART, all-day rules) are in parse.ts.
 */
import { isOneOf } from '../lists.ts';
import { readDateValue, resolveDateValue } from './date-values.ts';
import { WEEKDAY_CODES, type Frequency, type RuleSpec, type WeekdayNum } from './types.ts';

export interface ParsedRule {
  rule: RuleSpec;
  /** The normalised value: the parts in the order sent, names and values upper case. */
  normalised: string;
}

const FREQUENCIES: readonly Frequency[] = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY'];
/** The weekday codes as plain text, to look up what a rule wrote (index 0 is MO, as in WeekdayNum). */
const WEEKDAY_TEXTS: readonly string[] = WEEKDAY_CODES;
const KNOWN_PARTS = new Set([
  'FREQ',
  'INTERVAL',
  'COUNT',
  'UNTIL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
]);

/** Signed integer lists: part → [smallest, largest, whether negatives (and never 0) are allowed]. */
const INTEGER_LISTS: Record<string, [number, number, boolean]> = {
  BYSECOND: [0, 59, false],
  BYMINUTE: [0, 59, false],
  BYHOUR: [0, 23, false],
  BYMONTHDAY: [1, 31, true],
  BYYEARDAY: [1, 366, true],
  BYWEEKNO: [1, 53, true],
  BYMONTH: [1, 12, false],
  BYSETPOS: [1, 366, true],
};

/** The rule, or a message saying what is wrong with it. */
export function parseRule(value: string): ParsedRule | string {
  const parts = new Map<string, string>();
  const normalisedParts: string[] = [];
  const pieces = value.split(';');
  if (pieces.length > 1 && pieces[pieces.length - 1] === '') pieces.pop(); // a trailing ";" is harmless
  for (const piece of pieces) {
    const match = /^([A-Za-z]+)=([^=]+)$/.exec(piece.trim());
    if (!match) return piece.trim() === '' ? 'the rule has an empty part' : `"${piece}" is not a NAME=VALUE rule part`;
    const name = match[1].toUpperCase();
    const partValue = match[2].toUpperCase();
    if (!KNOWN_PARTS.has(name)) return `unknown rule part ${name}`;
    if (parts.has(name)) return `${name} is given twice`;
    parts.set(name, partValue);
    normalisedParts.push(`${name}=${partValue}`);
  }

  const freqText = parts.get('FREQ');
  if (freqText === undefined) return 'FREQ is required';
  if (freqText === 'SECONDLY' || freqText === 'MINUTELY')
    return `FREQ=${freqText} is not supported: the shortest frequency is HOURLY`;
  if (!isOneOf(FREQUENCIES, freqText))
    return `FREQ=${freqText} is not a frequency (YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY)`;
  const freq = freqText;

  const interval = readPositive(parts.get('INTERVAL'), 'INTERVAL', 1);
  if (typeof interval === 'string') return interval;
  const count = readPositive(parts.get('COUNT'), 'COUNT', null);
  if (typeof count === 'string') return count;

  let until: RuleSpec['until'] = null;
  const untilText = parts.get('UNTIL');
  if (untilText !== undefined) {
    if (count !== null) return 'COUNT and UNTIL cannot be used together';
    const raw = readDateValue(untilText);
    if (typeof raw === 'string') return `UNTIL: ${raw}`;
    until = resolveDateValue(raw, null);
  }

  const lists: Record<string, number[] | null> = {};
  for (const [name, [min, max, signed]] of Object.entries(INTEGER_LISTS)) {
    const list = readIntegerList(parts.get(name), name, min, max, signed);
    if (typeof list === 'string') return list;
    lists[name] = list;
  }

  const byDay = readByDay(parts.get('BYDAY'));
  if (typeof byDay === 'string') return byDay;

  let wkst = 0;
  const wkstText = parts.get('WKST');
  if (wkstText !== undefined) {
    wkst = WEEKDAY_TEXTS.indexOf(wkstText);
    if (wkst < 0) return `WKST=${wkstText} is not a weekday (MO, TU, WE, TH, FR, SA or SU)`;
  }

  const rule: RuleSpec = {
    freq,
    interval,
    count,
    until,
    bySecond: lists.BYSECOND,
    byMinute: lists.BYMINUTE,
    byHour: lists.BYHOUR,
    byDay,
    byMonthDay: lists.BYMONTHDAY,
    byYearDay: lists.BYYEARDAY,
    byWeekNo: lists.BYWEEKNO,
    byMonth: lists.BYMONTH,
    bySetPos: lists.BYSETPOS,
    wkst,
  };
  const combination = checkCombination(rule);
  if (combination !== null) return combination;
  return { rule, normalised: normalisedParts.join(';') };
}

/** RFC 5545's restrictions on which BY parts go with which frequency. */
function checkCombination(rule: RuleSpec): string | null {
  if (rule.byWeekNo !== null && rule.freq !== 'YEARLY') return 'BYWEEKNO is only valid with FREQ=YEARLY';
  if (rule.byYearDay !== null && (rule.freq === 'MONTHLY' || rule.freq === 'WEEKLY' || rule.freq === 'DAILY')) {
    return `BYYEARDAY is not valid with FREQ=${rule.freq}`;
  }
  if (rule.byMonthDay !== null && rule.freq === 'WEEKLY') return 'BYMONTHDAY is not valid with FREQ=WEEKLY';
  if (rule.byDay?.some((day) => day.n !== 0)) {
    if (rule.freq !== 'MONTHLY' && rule.freq !== 'YEARLY') {
      return `BYDAY with an ordinal (such as 1MO or -1FR) is only valid with FREQ=MONTHLY or YEARLY, not ${rule.freq}`;
    }
    if (rule.freq === 'YEARLY' && rule.byWeekNo !== null)
      return 'BYDAY with an ordinal cannot be used together with BYWEEKNO';
    const limit = rule.freq === 'MONTHLY' || rule.byMonth !== null ? 5 : 53;
    const beyond = rule.byDay.find((day) => Math.abs(day.n) > limit);
    if (beyond) return `BYDAY ordinal ${beyond.n} is beyond ${limit}, the most a ${limit === 5 ? 'month' : 'year'} has`;
  }
  if (rule.bySetPos !== null) {
    const others = [
      rule.bySecond,
      rule.byMinute,
      rule.byHour,
      rule.byDay,
      rule.byMonthDay,
      rule.byYearDay,
      rule.byWeekNo,
      rule.byMonth,
    ];
    if (others.every((list) => list === null)) return 'BYSETPOS needs another BYxxx part to select from';
  }
  return null;
}

function readPositive<T extends number | null>(
  text: string | undefined,
  name: string,
  fallback: T,
): number | T | string {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) return `${name}=${text} is not a positive whole number`;
  return Number(text);
}

function readIntegerList(
  text: string | undefined,
  name: string,
  min: number,
  max: number,
  signed: boolean,
): number[] | null | string {
  if (text === undefined) return null;
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^([+-]?)(\d{1,3})$/.exec(item);
    const magnitude = match ? Number(match[2]) : NaN;
    const negative = match?.[1] === '-';
    const valid =
      match !== null && magnitude >= min && magnitude <= max && (signed || !negative) && (!signed || magnitude !== 0);
    if (!valid) {
      const range = signed ? `${min} to ${max} or -${max} to -${min}` : `${min} to ${max}`;
      return `${name}=${text}: "${item}" is not a valid value (${range})`;
    }
    values.add(negative ? -magnitude : magnitude);
  }
  return [...values].sort((a, b) => a - b);
}

function readByDay(text: string | undefined): WeekdayNum[] | null | string {
  if (text === undefined) return null;
  const days = new Map<string, WeekdayNum>();
  for (const item of text.split(',')) {
    const match = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item);
    const n = match?.[1] === undefined ? 0 : Number(match[1]);
    if (!match || (match[1] !== undefined && (n === 0 || Math.abs(n) > 53))) {
      return `BYDAY=${text}: "${item}" is not a weekday (MO … SU), optionally with an ordinal from 1 to 53 or -1 to -53 (1MO, -1FR)`;
    }
    const weekday = WEEKDAY_TEXTS.indexOf(match[2]);
    days.set(`${n}${weekday}`, { weekday, n });
  }
  return [...days.values()];
}
