/**
 * Dates and time zones of the API: input parsing (contract D8), event time zones (§5.2), the stored
 * `YYYY-MM-DD HH:MM:SS` format ("WP format", §3), date details (§3.7) and the list window (§4.2).
 *
 * Conventions:
 * - Nothing here reads the clock: whatever depends on the current time takes `now`.
 * - Zones are the strings events store (see `resolveZone`). An invalid zone, or a malformed WP-format
 *   string, throws a RangeError: callers validate zones first and stored values are well formed, so
 *   either is a programming error, not bad input. Only `parseDateInput` and the list bounds judge
 *   client input, and they answer null.
 * - Wall-clock times are DST-correct. A local time that does not exist (spring-forward gap) moves
 *   forward by the gap, Luxon's default: 2026-03-08 02:30 in New York is 03:30 EDT. A local time that
 *   occurs twice (fall-back) is its first occurrence, as in PHP: 2026-11-01 01:30 in New York is EDT
 *   (Luxon alone would pick EST).
 */
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import type { Zone } from 'luxon';
import { offsetAt } from './zone-offsets.ts';

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

export type DateBoundKind =
  | 'start_date'
  | 'end_date'
  | 'starts_before'
  | 'starts_after'
  | 'ends_before'
  | 'ends_after';

const WP_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const START_OF_DAY = '00:00:00';
const END_OF_DAY = '23:59:59';

interface WallClockFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// ---------------------------------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------------------------------

/** The largest offset accepted, as in java.time (real zones stay within -12:00..+14:00). */
const MAX_OFFSET_MINUTES = 18 * 60;

/**
 * Abbreviations name one fixed offset, as PHP reads them: `EST` is always -05:00 and `EDT` always
 * -04:00, never New York's DST rules (use `America/New_York` for those). Abbreviations win over the
 * IANA ids of the same name (`EST`, `CET`, …), as in PHP. Where an abbreviation is ambiguous the
 * North American reading is kept (`CST` is Central, not China, and `AST` Atlantic, not Arabia); the
 * hopelessly ambiguous ones (`IST`, `BRT`…) are left out.
 */
const ABBREVIATION_OFFSETS: ReadonlyMap<string, number> = new Map([
  ['UTC', 0],
  ['GMT', 0],
  ['WET', 0],
  ['WEST', 60],
  ['BST', 60],
  ['CET', 60],
  ['CEST', 120],
  ['EET', 120],
  ['EEST', 180],
  ['MSK', 180],
  ['NST', -210],
  ['NDT', -150],
  ['AST', -240],
  ['ADT', -180],
  ['EST', -300],
  ['EDT', -240],
  ['CST', -360],
  ['CDT', -300],
  ['MST', -420],
  ['MDT', -360],
  ['PST', -480],
  ['PDT', -420],
  ['AKST', -540],
  ['AKDT', -480],
  ['HST', -600],
  ['AWST', 480],
  ['HKT', 480],
  ['SGT', 480],
  ['JST', 540],
  ['KST', 540],
  ['ACST', 570],
  ['ACDT', 630],
  ['AEST', 600],
  ['AEDT', 660],
  ['NZST', 720],
  ['NZDT', 780],
]);

/**
 * ICU (hence Intl and Luxon) also accepts Java's old three-letter ids and `SystemV/…`, which are not
 * tz database ids and rarely mean what one would guess (`ECT` is Paris, `SST` Guadalcanal, `ART`
 * Cairo). The ones that ABBREVIATION_OFFSETS does not cover are refused.
 */
const ICU_ONLY_IDS = /^(?:act|aet|agt|art|bet|cat|cnt|ctt|eat|ect|iet|ist|mit|net|plt|pnt|prt|sst|vst|systemv\/.*)$/i;

type TimezoneKind = 'utc-offset' | 'offset' | 'abbreviation' | 'iana';

interface ClassifiedTimezone {
  kind: TimezoneKind;
  zone: Zone;
}

/**
 * The event time zones of §5.2, case-insensitively:
 * - IANA ids: `America/New_York`, `UTC`, `Etc/GMT+5`;
 * - abbreviations: `EST`, `CEST`, … (fixed offsets, see ABBREVIATION_OFFSETS);
 * - offsets: `+05:00`, `-0330`, `+05`, `+5`;
 * - WordPress's manual offsets: `UTC+5`, `UTC-3:30`, `UTC+5.5`, `UTC+5.75`, `UTC+0`, as fixed
 *   offsets (the reference guesses a city zone for them, DST included).
 * Offsets beyond ±18:00 are refused. Null when the string names no zone (`""` included).
 */
export function resolveZone(timezone: string): Zone | null {
  return classifyTimezone(timezone)?.zone ?? null;
}

export function isValidTimezone(timezone: string): boolean {
  return resolveZone(timezone) !== null;
}

/**
 * The abbreviation stored with an event (`timezone_abbr`), for the instant `at`:
 * `UTC±x` forms give the string itself, abbreviations themselves in capitals, offsets `±HH:MM`
 * (like PHP's `T`), and IANA zones their usual name at `at` (`EST`/`EDT`, `CET`/`CEST`, `BST`, `UTC`),
 * or `GMT+9` style where there is no common letter abbreviation. `""` for an invalid zone.
 */
export function timezoneAbbr(timezone: string, at: DateTime): string {
  const classified = classifyTimezone(timezone);
  if (classified === null) return '';
  switch (classified.kind) {
    case 'utc-offset':
      return timezone;
    case 'abbreviation':
      return timezone.toUpperCase();
    case 'offset':
      return at.setZone(classified.zone).toFormat('ZZ');
    case 'iana':
      return letterAbbreviation(at.setZone(classified.zone));
  }
}

// Asking Intl about a zone costs tens to hundreds of microseconds; the zones a site uses are few.
const MAX_REMEMBERED = 1000;

function remembered<V>(cache: Map<string, V>, key: string, compute: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    if (cache.size >= MAX_REMEMBERED) cache.clear();
    cache.set(key, value);
  }
  return value;
}

const classifiedZones = new Map<string, ClassifiedTimezone | null>();

function classifyTimezone(timezone: string): ClassifiedTimezone | null {
  return remembered(classifiedZones, timezone, () => classifyTimezoneUncached(timezone));
}

function classifyTimezoneUncached(timezone: string): ClassifiedTimezone | null {
  const utcSuffix = /^utc([+-].*)$/i.exec(timezone);
  if (utcSuffix) return fixedOffsetOf('utc-offset', parseUtcSuffix(utcSuffix[1]));
  if (/^[+-]/.test(timezone)) return fixedOffsetOf('offset', parseClockOffset(timezone));

  const abbreviationOffset = ABBREVIATION_OFFSETS.get(timezone.toUpperCase());
  if (abbreviationOffset !== undefined) return fixedOffsetOf('abbreviation', abbreviationOffset);

  // Intl also accepts offset ids such as "+05:00"; those never get here.
  if (timezone !== '' && !ICU_ONLY_IDS.test(timezone) && IANAZone.isValidZone(timezone)) {
    return { kind: 'iana', zone: IANAZone.create(timezone) };
  }
  return null;
}

function fixedOffsetOf(kind: TimezoneKind, minutes: number | null): ClassifiedTimezone | null {
  return minutes === null ? null : { kind, zone: FixedOffsetZone.instance(minutes) };
}

/** `+05:00`, `-0330`, `+05`, `+5` → signed minutes. */
function parseClockOffset(text: string): number | null {
  const match = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(text);
  if (!match) return null;
  return signedOffsetMinutes(match[1], Number(match[2]), Number(match[3] ?? 0));
}

/** What follows `UTC` in a WordPress manual offset: a clock offset, or decimal hours (`+5.5`, `-9.75`). */
function parseUtcSuffix(text: string): number | null {
  const decimal = /^([+-])(\d{1,2})\.(\d{1,4})$/.exec(text);
  if (!decimal) return parseClockOffset(text);
  const minutes = Number(`0.${decimal[3]}`) * 60;
  const wholeMinutes = Math.round(minutes);
  if (Math.abs(minutes - wholeMinutes) > 1e-9) return null;
  return signedOffsetMinutes(decimal[1], Number(decimal[2]), wholeMinutes);
}

function signedOffsetMinutes(sign: string, hours: number, minutes: number): number | null {
  if (minutes > 59) return null;
  const total = hours * 60 + minutes;
  if (total > MAX_OFFSET_MINUTES) return null;
  return sign === '-' && total !== 0 ? -total : total;
}

/**
 * ICU's American names give EST/EDT/PST… but "GMT+1" for Paris, whose British names are CET/CEST;
 * take whichever is made of letters, else the American one.
 */
const abbreviations = new Map<string, string>();

function letterAbbreviation(dt: DateTime): string {
  return remembered(abbreviations, `${dt.zoneName}|${offsetAt(dt.zone, dt.toMillis())}`, () => letterAbbreviationUncached(dt));
}

function letterAbbreviationUncached(dt: DateTime): string {
  const american = dt.setLocale('en-US').offsetNameShort ?? '';
  if (!/^GMT[+-]/.test(american)) return american;
  const british = dt.setLocale('en-GB').offsetNameShort ?? '';
  return /^[A-Z]+$/.test(british) ? british : american;
}

function requireZone(timezone: string): Zone {
  const zone = resolveZone(timezone);
  if (zone === null) throw new RangeError(`Invalid time zone: ${JSON.stringify(timezone)}`);
  return zone;
}

// ---------------------------------------------------------------------------------------------------
// WP format
// ---------------------------------------------------------------------------------------------------

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
  const { year, month, day, hour, minute, second } = wpFields(wp);
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(asUtc);
  // Date.UTC rolls 2024-02-30 over into March; a value that does not survive the round trip is impossible.
  if (year < 1 || check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23) {
    throw new RangeError(`Invalid date: ${JSON.stringify(wp)}`);
  }
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
  const instant = wallClockMillis(localWp, classified.zone);
  const key = `${classified.zone.name}|${offsetAt(classified.zone, instant)}`;
  return abbreviations.get(key) ?? letterAbbreviation(DateTime.fromMillis(instant, { zone: classified.zone }));
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

function isoDatePart(dt: DateTime): string {
  return dt.toFormat('yyyy-MM-dd');
}

/** A wall-clock time in `zone`, with the gap and overlap rules of the module comment. */
function wallClock(fields: WallClockFields, zone: Zone): DateTime {
  const checked = fromFields(fields, FixedOffsetZone.utcInstance);
  if (!checked.isValid) return checked;
  return DateTime.fromMillis(wallClockInstant(checked.toMillis(), zone), { zone });
}

const HALF_DAY_MS = 12 * 60 * 60 * 1000;

/**
 * The instant a wall-clock time (given as if it were UTC) names in `zone`, without Luxon's costly
 * getPossibleOffsets: the offsets in force half a day either side are the only candidates. A repeated
 * time takes its first occurrence (PHP); a time in a spring-forward gap is read with the offset before
 * the gap, which moves it forward by the gap (Luxon's and PHP's reading).
 */
function wallClockInstant(asUtcMillis: number, zone: Zone): number {
  const before = offsetAt(zone, asUtcMillis - HALF_DAY_MS);
  const after = offsetAt(zone, asUtcMillis + HALF_DAY_MS);
  const candidates = [before, after]
    .map((offset) => asUtcMillis - offset * 60_000)
    .filter((instant, index) => offsetAt(zone, instant) === [before, after][index]);
  return candidates.length > 0 ? Math.min(...candidates) : asUtcMillis - before * 60_000;
}

/** Like DateTime.fromObject, without the ISO `24:00:00` that Luxon accepts as the next midnight. */
function fromFields(fields: WallClockFields, zone: Zone): DateTime {
  if (fields.hour > 23) return DateTime.invalid('hour out of range');
  return DateTime.fromObject(fields, { zone });
}

// ---------------------------------------------------------------------------------------------------
// Input parsing (D8)
// ---------------------------------------------------------------------------------------------------

/**
 * Reads a date given by a client (D8) as a DateTime in `zone`, without milliseconds; null when the
 * input is not a date. Accepted:
 * - `YYYY-MM-DD[( |T)HH:MM[:SS[.fff]]][Z|±HH[:]MM|±HH]` (case-insensitive);
 * - Unix timestamps: a non-negative integer JSON number, or an all-digit string (even `"2024"`);
 * - relative forms, read against `now`: `now`, `today`, `tomorrow`, `yesterday`, `next|last|this
 *   <weekday>`, a bare weekday, `±N unit` (seconds to years, several allowed, `ago` negates them),
 *   `next|last <unit>`, and a time of day (`9am`, `9:15 p.m.`, `16:00`, `noon`, `midnight`, `at 9am`).
 * Values without an offset and relative forms are wall-clock times in `zone`; values with an offset
 * and timestamps are instants. Results outside the years 0001–9999 (in `zone`) are refused.
 */
export function parseDateInput(input: unknown, zone: string, now: DateTime): DateTime | null {
  const target = requireZone(zone);
  let parsed: DateTime | null = null;
  if (typeof input === 'number') parsed = fromTimestamp(input);
  else if (typeof input === 'string') parsed = parseDateString(input.trim().toLowerCase(), target, now);
  if (parsed === null || !parsed.isValid) return null;
  const inZone = parsed.setZone(target);
  if (inZone.year < MIN_YEAR || inZone.year > MAX_YEAR) return null;
  // Subtracting (rather than setting) keeps the offset chosen for an ambiguous wall-clock time.
  return inZone.minus({ milliseconds: inZone.millisecond });
}

/** The WP format has four-digit years. */
const MIN_YEAR = 1;
const MAX_YEAR = 9999;

function fromTimestamp(seconds: number): DateTime | null {
  if (!Number.isInteger(seconds) || seconds < 0) return null;
  return DateTime.fromSeconds(seconds, { zone: 'utc' });
}

function parseDateString(text: string, zone: Zone, now: DateTime): DateTime | null {
  if (/^\d+$/.test(text)) return fromTimestamp(Number(text));
  return parseAbsolute(text, zone) ?? parseRelative(text, zone, now);
}

const ABSOLUTE_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:(?:t|\s+)(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:\s*(z|[+-]\d{2}(?::?\d{2})?))?)?$/;

function parseAbsolute(text: string, zone: Zone): DateTime | null {
  const match = ABSOLUTE_PATTERN.exec(text);
  if (!match) return null;
  const [, year, month, day, hour = '0', minute = '0', second = '0', offset] = match;
  const fields: WallClockFields = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
  if (offset === undefined) return wallClock(fields, zone);
  const offsetMinutes = offset === 'z' ? 0 : parseClockOffset(offset);
  if (offsetMinutes === null) return null;
  return fromFields(fields, FixedOffsetZone.instance(offsetMinutes));
}

// Relative forms --------------------------------------------------------------------------------------

type OffsetUnit = 'years' | 'months' | 'weeks' | 'days' | 'hours' | 'minutes' | 'seconds';

interface TimeOfDay {
  hour: number;
  minute: number;
  second: number;
}

type DayAnchor =
  | { kind: 'now' }
  | { kind: 'day'; shift: number }
  | { kind: 'weekday'; weekday: number; which: 'next' | 'last' | 'this' };

/** What a relative expression says, in PHP strtotime's terms. */
interface RelativeParts {
  anchor?: DayAnchor;
  time?: TimeOfDay;
  offsets: Partial<Record<OffsetUnit, number>>;
}

const WEEKDAYS: ReadonlyMap<string, number> = new Map([
  ['monday', 1], ['mon', 1],
  ['tuesday', 2], ['tue', 2], ['tues', 2],
  ['wednesday', 3], ['wed', 3],
  ['thursday', 4], ['thu', 4], ['thur', 4], ['thurs', 4],
  ['friday', 5], ['fri', 5],
  ['saturday', 6], ['sat', 6],
  ['sunday', 7], ['sun', 7],
]);

const UNITS: ReadonlyMap<string, OffsetUnit> = new Map([
  ['sec', 'seconds'], ['secs', 'seconds'], ['second', 'seconds'], ['seconds', 'seconds'],
  ['min', 'minutes'], ['mins', 'minutes'], ['minute', 'minutes'], ['minutes', 'minutes'],
  ['hour', 'hours'], ['hours', 'hours'],
  ['day', 'days'], ['days', 'days'],
  ['week', 'weeks'], ['weeks', 'weeks'],
  ['month', 'months'], ['months', 'months'],
  ['year', 'years'], ['years', 'years'],
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

function parseRelative(text: string, zone: Zone, now: DateTime): DateTime | null {
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
    return setAnchor(parts, { kind: 'weekday', weekday, which: which as 'next' | 'last' | 'this' });
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
  const units = Object.keys(parts.offsets) as OffsetUnit[];
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

// ---------------------------------------------------------------------------------------------------
// List windows (§4.2)
// ---------------------------------------------------------------------------------------------------

/**
 * The date window of `GET /events` without date parameters, in `siteZone`: from the start of the
 * local day holding "yesterday 23:59 UTC", to the end of the UTC day of now + 24 months.
 */
export function defaultListWindow(now: DateTime, siteZone: string): WpDateRange {
  const utcNow = now.toUTC();
  const lateYesterday = utcNow.minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 });
  const startDay = lateYesterday.setZone(requireZone(siteZone));
  const endDay = plusMonthsOverflowing(utcNow, 24);
  return {
    start: `${isoDatePart(startDay)} ${START_OF_DAY}`,
    end: `${isoDatePart(endDay)} ${END_OF_DAY}`,
  };
}

/**
 * Inclusive (default) list bound: the input's date in `siteZone`, at 00:00:00 for `start_date` and
 * 23:59:59 for every other kind. Null when the input is not a date.
 */
export function inclusiveBound(input: unknown, kind: DateBoundKind, siteZone: string, now: DateTime): string | null {
  const parsed = parseDateInput(input, siteZone, now);
  if (parsed === null) return null;
  return `${isoDatePart(parsed)} ${kind === 'start_date' ? START_OF_DAY : END_OF_DAY}`;
}

/**
 * Strict (`strict_dates=true`) list bound: the input as given, in `siteZone`, no snapping. Values
 * without an offset are read in `siteZone` (D8 overrides the reference's UTC reading of §4.2).
 * Null when the input is not a date.
 */
export function strictBound(input: unknown, siteZone: string, now: DateTime): string | null {
  const parsed = parseDateInput(input, siteZone, now);
  return parsed === null ? null : formatWp(parsed);
}

/**
 * PHP's `+N months`: a day past the end of the target month overflows into the next one
 * (2028-02-29 + 24 months is 2030-03-01), which is what the reference's default window does.
 */
function plusMonthsOverflowing(dt: DateTime, months: number): DateTime {
  const clamped = dt.plus({ months });
  return clamped.plus({ days: dt.day - clamped.day });
}
