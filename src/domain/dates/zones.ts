/**
 * Time zones of events (§5.2): which zone a client's string names (IANA ids, abbreviations, offsets, WordPress's
 * `UTC±x`), and the abbreviation an event stores with it (`timezone_abbr`).
 *
 * An invalid zone given to `requireZone` throws a RangeError: callers validate zones first (`isValidTimezone`),
 * so it is a programming error, not bad input.
 */
import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';
import type { Zone } from 'luxon';
import { TabledZone } from './tabled-zone.ts';
import { offsetAt } from './zone-offsets.ts';

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

/** How a zone string was read: `UTC±x`, `±HH:MM`, an abbreviation or an IANA id. */
export type TimezoneKind = 'utc-offset' | 'offset' | 'abbreviation' | 'iana';

export interface ClassifiedTimezone {
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

/** The kind and zone a zone string names (remembered), or null when it names none. */
export function classifyTimezone(timezone: string): ClassifiedTimezone | null {
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
    return { kind: 'iana', zone: new TabledZone(IANAZone.create(timezone)) };
  }
  return null;
}

function fixedOffsetOf(kind: TimezoneKind, minutes: number | null): ClassifiedTimezone | null {
  return minutes === null ? null : { kind, zone: FixedOffsetZone.instance(minutes) };
}

/** `+05:00`, `-0330`, `+05`, `+5` → signed minutes. */
export function parseClockOffset(text: string): number | null {
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
  return remembered(abbreviations, `${dt.zoneName}|${offsetAt(dt.zone, dt.toMillis())}`, () =>
    letterAbbreviationUncached(dt),
  );
}

function letterAbbreviationUncached(dt: DateTime): string {
  const american = dt.setLocale('en-US').offsetNameShort ?? '';
  if (!/^GMT[+-]/.test(american)) return american;
  const british = dt.setLocale('en-GB').offsetNameShort ?? '';
  return /^[A-Z]+$/.test(british) ? british : american;
}

/**
 * The letter abbreviation of an IANA zone at `instant` (UTC ms), as {@link timezoneAbbr} gives it, without building a
 * DateTime unless the abbreviation of that offset has not been seen yet.
 */
export function ianaAbbreviationAt(zone: Zone, instant: number): string {
  const key = `${zone.name}|${offsetAt(zone, instant)}`;
  return abbreviations.get(key) ?? letterAbbreviation(DateTime.fromMillis(instant, { zone }));
}

/** {@link resolveZone} for zones already validated: an invalid one is a programming error (RangeError). */
export function requireZone(timezone: string): Zone {
  const zone = resolveZone(timezone);
  if (zone === null) throw new RangeError(`Invalid time zone: ${JSON.stringify(timezone)}`);
  return zone;
}
