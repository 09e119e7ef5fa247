/**
 * The relative date forms of D8, read as PHP's strtotime reads them, against a given `now` (nothing here reads the
 * clock): `now`, `today`, `tomorrow`, `yesterday`, `next|last|this <weekday>`, a bare weekday, `±N unit` (seconds to
 * years, several allowed, `ago` negates them), `next|last <unit>`, and a time of day (`9am`, `9:15 p.m.`, `16:00`,
 * `noon`, `midnight`, `at 9am`).
 */
import type { DateTime, Zone } from 'luxon';
import { isOneOf } from '../lists.ts';
import { wallClock } from './wall-clock.ts';

const OFFSET_UNITS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'] as const;
type OffsetUnit = (typeof OFFSET_UNITS)[number];

/** Which occurrence of a weekday `next|last|this <weekday>` names. */
const WEEKDAY_CHOICES = ['next', 'last', 'this'] as const;

interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

type DayAnchor =
  | { kind: 'now' }
  | { kind: 'day'; shift: number }
  | { kind: 'weekday'; weekday: number; which: (typeof WEEKDAY_CHOICES)[number] };

/** What a relative expression says, in PHP strtotime's terms. */
interface RelativeParts {
  anchor?: DayAnchor;
  time?: TimeOfDay;
  offsets: Partial<Record<OffsetUnit, number>>;
}

const WEEKDAYS: ReadonlyMap<string, number> = new Map([
  ['monday', 1],
  ['mon', 1],
  ['tuesday', 2],
  ['tue', 2],
  ['tues', 2],
  ['wednesday', 3],
  ['wed', 3],
  ['thursday', 4],
  ['thu', 4],
  ['thur', 4],
  ['thurs', 4],
  ['friday', 5],
  ['fri', 5],
  ['saturday', 6],
  ['sat', 6],
  ['sunday', 7],
  ['sun', 7],
]);

const UNITS: ReadonlyMap<string, OffsetUnit> = new Map([
  ['sec', 'seconds'],
  ['secs', 'seconds'],
  ['second', 'seconds'],
  ['seconds', 'seconds'],
  ['min', 'minutes'],
  ['mins', 'minutes'],
  ['minute', 'minutes'],
  ['minutes', 'minutes'],
  ['hour', 'hours'],
  ['hours', 'hours'],
  ['day', 'days'],
  ['days', 'days'],
  ['week', 'weeks'],
  ['weeks', 'weeks'],
  ['month', 'months'],
  ['months', 'months'],
  ['year', 'years'],
  ['years', 'years'],
]);

const DAY_WORD_SHIFTS: ReadonlyMap<string, number> = new Map([
  ['today', 0],
  ['tomorrow', 1],
  ['yesterday', -1],
]);

/**
 * One kind of item of a relative expression. `apply` records the item in `parts`, or answers false
 * when the match is not such an item after all (an unknown word, a second time of day…).
 */
interface RelativeItem {
  pattern: RegExp;
  apply: (match: RegExpExecArray, parts: RelativeParts) => boolean;
}

// Each item ends at the end of the text, a space, a comma or the sign of a following offset.
const ITEM_END = String.raw`(?=$|[\s,+-])`;
const item = (source: string): RegExp => new RegExp(source + ITEM_END, 'y');

const RELATIVE_ITEMS: readonly RelativeItem[] = [
  { pattern: item('(now|today|tomorrow|yesterday)'), apply: applyDayWord },
  { pattern: item(String.raw`(next|last|this)\s+([a-z]+)`), apply: applyNextOrLast },
  { pattern: item(String.raw`([+-]?)\s*(\d+)\s*([a-z]+)`), apply: applyOffset },
  { pattern: item('ago'), apply: applyAgo },
  { pattern: item(String.raw`(?:at\s+)?(noon|midnight)`), apply: applyNamedTime },
  { pattern: item(String.raw`(?:at\s+)?(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?m\.?`), apply: apply12HourTime },
  { pattern: item(String.raw`(?:at\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?`), apply: apply24HourTime },
  { pattern: item('([a-z]+)'), apply: applyBareWeekday },
];

/** Reads a relative form (lower case, trimmed) against `now`, as a wall-clock time in `zone`; null when it is none. */
export function parseRelative(text: string, zone: Zone, now: DateTime): DateTime | null {
  const parts = readRelativeParts(text);
  return parts === null ? null : resolveRelative(parts, zone, now);
}

function readRelativeParts(text: string): RelativeParts | null {
  const parts: RelativeParts = { offsets: {} };
  let position = skipSeparators(text, 0);
  if (position === text.length) return null;
  while (position < text.length) {
    const end = readItem(text, position, parts);
    if (end === null) return null;
    position = skipSeparators(text, end);
  }
  return parts;
}

/** Applies the first item matching at `position`; answers where it ends, or null when none does. */
function readItem(text: string, position: number, parts: RelativeParts): number | null {
  for (const { pattern, apply } of RELATIVE_ITEMS) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (match && apply(match, parts)) return pattern.lastIndex;
  }
  return null;
}

function skipSeparators(text: string, position: number): number {
  const separators = /[\s,]*/y;
  separators.lastIndex = position;
  separators.exec(text);
  return separators.lastIndex;
}

function applyDayWord([, word]: RegExpExecArray, parts: RelativeParts): boolean {
  const shift = DAY_WORD_SHIFTS.get(word);
  return setAnchor(parts, shift === undefined ? { kind: 'now' } : { kind: 'day', shift });
}

/** `next monday`, `last fri`, `this sunday`; `next week`, `last month` (±1 unit, time kept). */
function applyNextOrLast([, which, word]: RegExpExecArray, parts: RelativeParts): boolean {
  const weekday = WEEKDAYS.get(word);
  if (weekday !== undefined) {
    // The pattern only matches these three words, so the guard always holds; it narrows the type.
    return isOneOf(WEEKDAY_CHOICES, which) && setAnchor(parts, { kind: 'weekday', weekday, which });
  }
  const unit = UNITS.get(word);
  if (unit === undefined || which === 'this') return false;
  addOffset(parts, unit, which === 'next' ? 1 : -1);
  return true;
}

function applyOffset([, sign, amount, word]: RegExpExecArray, parts: RelativeParts): boolean {
  const unit = UNITS.get(word);
  if (unit === undefined) return false;
  addOffset(parts, unit, sign === '-' ? -Number(amount) : Number(amount));
  return true;
}

/** As in PHP, `ago` negates every offset read so far: `2 days ago`, `1 week 2 days ago`. */
function applyAgo(_match: RegExpExecArray, parts: RelativeParts): boolean {
  const units = OFFSET_UNITS.filter((unit) => parts.offsets[unit] !== undefined);
  if (units.length === 0) return false;
  for (const unit of units) parts.offsets[unit] = -(parts.offsets[unit] ?? 0);
  return true;
}

function applyNamedTime([, name]: RegExpExecArray, parts: RelativeParts): boolean {
  return setTime(parts, { hour: name === 'noon' ? 12 : 0, minute: 0, second: 0 });
}

function apply12HourTime([, hour, minute, second, meridiem]: RegExpExecArray, parts: RelativeParts): boolean {
  const clockHour = Number(hour);
  if (clockHour < 1 || clockHour > 12) return false;
  const hour24 = (clockHour % 12) + (meridiem === 'p' ? 12 : 0);
  return setTime(parts, timeOfDay(hour24, minute, second));
}

function apply24HourTime([, hour, minute, second]: RegExpExecArray, parts: RelativeParts): boolean {
  return setTime(parts, timeOfDay(Number(hour), minute, second));
}

/** A weekday alone means `this <weekday>`: today when it is that day, else the next one. */
function applyBareWeekday([, word]: RegExpExecArray, parts: RelativeParts): boolean {
  const weekday = WEEKDAYS.get(word);
  return weekday !== undefined && setAnchor(parts, { kind: 'weekday', weekday, which: 'this' });
}

function timeOfDay(hour: number, minute = '0', second = '0'): TimeOfDay | null {
  const time = { hour, minute: Number(minute), second: Number(second) };
  return time.hour <= 23 && time.minute <= 59 && time.second <= 59 ? time : null;
}

function setAnchor(parts: RelativeParts, anchor: DayAnchor): boolean {
  if (parts.anchor !== undefined) return false;
  parts.anchor = anchor;
  return true;
}

function setTime(parts: RelativeParts, time: TimeOfDay | null): boolean {
  if (time === null || parts.time !== undefined) return false;
  parts.time = time;
  return true;
}

function addOffset(parts: RelativeParts, unit: OffsetUnit, amount: number): void {
  parts.offsets[unit] = (parts.offsets[unit] ?? 0) + amount;
}

/**
 * PHP's order: the day (a day word or weekday resets the time to 00:00), then the time of day, then
 * the offsets. Calendar offsets keep the wall-clock time across DST, and a month or year offset
 * landing past the end of a month clamps to its last day (Jan 31 + 1 month is Feb 28; PHP would
 * overflow into March). Hour, minute and second offsets are exact durations.
 */
function resolveRelative(parts: RelativeParts, zone: Zone, now: DateTime): DateTime {
  const current = now.setZone(zone);
  const keepsTimeOfDay = parts.time === undefined && (parts.anchor === undefined || parts.anchor.kind === 'now');
  const base = keepsTimeOfDay ? current : atTimeOfDay(anchorDay(parts.anchor, current), parts.time, zone);
  return base.plus(parts.offsets);
}

function anchorDay(anchor: DayAnchor | undefined, current: DateTime): DateTime {
  if (anchor === undefined || anchor.kind === 'now') return current;
  if (anchor.kind === 'day') return current.plus({ days: anchor.shift });
  return current.plus({ days: weekdayShift(current.weekday, anchor.weekday, anchor.which) });
}

/** `next`: strictly after today; `last`: strictly before today; `this`: today or after. */
function weekdayShift(today: number, target: number, which: 'next' | 'last' | 'this'): number {
  const ahead = (target - today + 7) % 7;
  if (which === 'this') return ahead;
  if (which === 'next') return ahead === 0 ? 7 : ahead;
  const behind = (today - target + 7) % 7;
  return behind === 0 ? -7 : -behind;
}

function atTimeOfDay(day: DateTime, time: TimeOfDay | undefined, zone: Zone): DateTime {
  const { hour, minute, second } = time ?? { hour: 0, minute: 0, second: 0 };
  return wallClock({ year: day.year, month: day.month, day: day.day, hour, minute, second }, zone);
}
