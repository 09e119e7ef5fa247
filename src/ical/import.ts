// D26 .ics import: a file (Google Calendar, Outlook/Exchange, Apple Calendar, or one of our own feeds) becomes events.
// The whole file is read and parsed first (bounded by ICAL_IMPORT_MAX_BYTES, checked before reading): a file that does
// not parse writes nothing. Then each UID is one unit: matched by its stored UID (so a second import of the same file
// changes nothing and an updated file updates in place), validated exactly as the API validates a request (the event
// routes' argument schemas), checked and written through the events service as createEvent/updateEvent would write it,
// many units to a transaction (importCalendar). A component that cannot be imported is refused with its reason, and
// nothing of it is written; the others go on.
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { sql } from 'kysely';
import ICAL from 'ical.js';
import { DateTime, IANAZone, Info, type Zone } from 'luxon';
import { findIana } from 'windows-iana';
import type { Config } from '../config.ts';
import { canDeletePost, canEditPost, canReadPost, canUploadFiles, type Viewer } from '../domain/access.ts';
import type { Actor } from '../domain/actor.ts';
import { formatWp } from '../domain/dates/stored-format.ts';
import { TabledZone } from '../domain/dates/tabled-zone.ts';
import { escapeHtml } from '../domain/html.ts';
import { commandContext, type CommandContext } from '../core/input/context.ts';
import { DomainError, errorCode, errorMessage, InvalidFields, MissingFields, notAllowed } from '../domain/errors.ts';
import type { ParamMap } from '../core/input/params.ts';
import { readEventCommand } from '../core/events/command.ts';
import {
  checkEventCreate,
  insertStagedEvents,
  stageEventCreate,
  stageEventCreates,
  trashEventIn,
  updateEventIn,
  type CheckedEventCreate,
  type StagedEventCreate,
} from '../core/events/service.ts';
import { updateEventRow } from '../core/events/store.ts';
import { postLike } from '../core/posts/fields.ts';
import type { PostRow } from '../core/posts/store.ts';
import { TermLookup } from '../core/terms/lookup.ts';
import { isForeignKeyViolation, isRowId, type Store, type Trx } from '../store/store.ts';
import { eachInFlight } from '../store/in-flight.ts';
import { uidHost } from './feed.ts';
import { checkLineLimits, LineLimitError, MAX_PARAMETERS, MAX_UNFOLDED_LINE } from './line-limits.ts';

type JCal = [string, Record<string, unknown>, string, ...unknown[]];
type JComponent = [string, JCal[], JComponent[]];

/** A file-level problem: nothing was written. */
export class ImportFileError extends Error {}

export interface ImportReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  refused: Array<{ uid: string; reason: string }>;
}

/** Reads the file whole, after checking its size (bounded memory), that it is UTF-8 text and not empty. */
export async function readIcsFile(path: string, maxBytes: number): Promise<string> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new ImportFileError(`cannot read ${path}: ${errorCode(error) ?? errorMessage(error)}`);
  }
  if (size > maxBytes) {
    throw new ImportFileError(
      `${path} is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} an import reads (ICAL_IMPORT_MAX_BYTES); split the calendar or raise the limit. Nothing was imported.`,
    );
  }
  const handle = await open(path, 'r');
  let bytes: Buffer;
  try {
    bytes = Buffer.alloc(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  return decodeText(bytes);
}

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${bytes} bytes`;

/** UTF-8 text or nothing: binary data (NUL bytes, invalid UTF-8) is refused whole. */
export function decodeText(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new ImportFileError('the file is empty: nothing was imported.');
  if (bytes.includes(0))
    throw new ImportFileError('the file holds binary data (NUL bytes), not iCalendar text: nothing was imported.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportFileError('the file is not UTF-8 text, as iCalendar requires: nothing was imported.');
  }
  return text.replace(/^\uFEFF/, '');
}

/** One UID of the file: its main VEVENT and the edited occurrences (RECURRENCE-ID) that go with it. */
export interface ImportUnit {
  uid: string;
  master?: JComponent;
  exceptions: JComponent[];
}

export interface ParsedCalendar {
  /** X-WR-TIMEZONE (Google, Apple): the zone of UTC and floating times. */
  defaultZone?: string;
  /** TZID → the IANA zone its VTIMEZONE names (X-LIC-LOCATION), for names neither IANA nor Windows know. */
  zoneAliases: Map<string, string>;
  units: ImportUnit[];
  /** Components refused before any write (no UID). */
  refused: Array<{ uid: string; reason: string }>;
}

const propertiesOf = (component: JComponent, name: string) => component[1].filter((property) => property[0] === name);
const propertyOf = (component: JComponent, name: string) => component[1].find((property) => property[0] === name);
const textOf = (component: JComponent, name: string): string | undefined => {
  const value = propertyOf(component, name)?.[3];
  return value === undefined || value === null ? undefined : String(value);
};

/** What identifies an event that has no UID: re-exported unchanged, it gives the same UID. */
const IDENTIFYING_PROPERTIES = [
  'dtstart',
  'dtend',
  'duration',
  'summary',
  'location',
  'rrule',
  'rdate',
  'recurrence-id',
];

/**
 * A UID for a VEVENT without one (calcurse and some hand-written files leave it out, though RFC 5545 requires it):
 * a digest of the properties that identify it, so that importing the same file again updates rather than duplicates.
 * An edit to one of them (a moved start, a new title) makes it another event, as it would be to any reader of such a
 * file. The `.invalid` host (RFC 2606) can never be one of ours.
 */
export function derivedUid(component: JComponent): string {
  const identity = IDENTIFYING_PROPERTIES.map((name) => JSON.stringify(propertiesOf(component, name))).join('\n');
  return `derived-${createHash('sha256').update(identity).digest('hex').slice(0, 32)}@import.invalid`;
}

/** Parses the whole text (ical.js: unfolding, CRLF or LF, unescaping); throws ImportFileError when it does not parse. */
export function parseCalendar(text: string): ParsedCalendar {
  text = text.replace(/^\uFEFF/, '');
  if (!/^\s*BEGIN:VCALENDAR/i.test(text))
    throw new ImportFileError(
      'the file is not an iCalendar file (it does not start with BEGIN:VCALENDAR): nothing was imported.',
    );
  try {
    checkLineLimits(text);
  } catch (error) {
    if (!(error instanceof LineLimitError)) throw error;
    throw new ImportFileError(
      `${error.message}: an import reads lines of at most ${MAX_UNFOLDED_LINE} characters and ${MAX_PARAMETERS} parameters a property. Nothing was imported.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (error) {
    throw new ImportFileError(`the file does not parse as iCalendar (${errorMessage(error)}): nothing was imported.`);
  }
  // ical.js does not type what it parses: jCal, one component (a name first) or a list of them, as its parser builds
  // them; only the top level is checked here.
  const calendars = (Array.isArray(parsed) && typeof parsed[0] === 'string' ? [parsed] : parsed) as JComponent[];
  if (
    !Array.isArray(calendars) ||
    calendars.length === 0 ||
    calendars.some((calendar) => calendar[0] !== 'vcalendar')
  ) {
    throw new ImportFileError('the file holds no VCALENDAR: nothing was imported.');
  }
  const result: ParsedCalendar = { zoneAliases: new Map(), units: [], refused: [] };
  const byUid = new Map<string, ImportUnit>();
  for (const calendar of calendars) {
    result.defaultZone ??= textOf(calendar, 'x-wr-timezone');
    for (const component of calendar[2]) {
      if (component[0] === 'vtimezone') {
        const tzid = textOf(component, 'tzid');
        const location = textOf(component, 'x-lic-location');
        if (tzid && location) result.zoneAliases.set(tzid, location);
        continue;
      }
      if (component[0] !== 'vevent') continue;
      const uid = textOf(component, 'uid')?.trim() || derivedUid(component);
      let unit = byUid.get(uid);
      if (!unit) {
        unit = { uid, exceptions: [] };
        byUid.set(uid, unit);
        result.units.push(unit);
      }
      if (propertyOf(component, 'recurrence-id')) unit.exceptions.push(component);
      else if (unit.master)
        result.refused.push({
          uid,
          reason: 'the file holds two VEVENTs with this UID and no RECURRENCE-ID; the first was kept',
        });
      else unit.master = component;
    }
  }
  return result;
}

/** What an import unit's components say, DTSTAMP left out (exporters stamp every export anew). */
function keptComponents(unit: ImportUnit): JComponent[] {
  return [unit.master, ...unit.exceptions].flatMap((component) =>
    component ? [[component[0], component[1].filter((property) => property[0] !== 'dtstamp'), component[2]]] : [],
  );
}

/** What marks a digest of {@link unitDigest}'s present form; an earlier import's has none ({@link legacyUnitDigest}). */
const DIGEST_FORM = 'j1:';

/**
 * A digest of what an import unit's components say: the same file imported again finds its units unchanged. Of the
 * components as parsed (JSON of their jCal): a sixth of the import's CPU went into writing them out as iCalendar
 * again first ({@link legacyUnitDigest}).
 */
export function unitDigest(unit: ImportUnit): string {
  const hash = createHash('sha256');
  for (const component of keptComponents(unit)) hash.update(JSON.stringify(component)).update('\n');
  return `${DIGEST_FORM}${hash.digest('base64url')}`;
}

/** The digest imports stored until {@link unitDigest} took its present form: of the components written out again. */
export function legacyUnitDigest(unit: ImportUnit): string {
  const hash = createHash('sha256');
  // The design set stringify.component picks itself when given none; its typings ask for one.
  for (const component of keptComponents(unit))
    hash.update(ICAL.stringify.component(component, ICAL.design.getDesignSet(component[0]))).update('\n');
  return hash.digest('base64url');
}

/** Whether `stored` (what an earlier import of the UID stored) is `unit`'s digest `digest`, in either form. */
function sameDigest(stored: string | null, unit: ImportUnit, digest: string): boolean {
  if (stored === null) return false;
  return stored.startsWith(DIGEST_FORM) ? stored === digest : stored === legacyUnitDigest(unit);
}

/** A refusal of one unit, with the reason the report prints. */
class Refusal extends Error {}

/**
 * An iCalendar TZID as an IANA zone: an IANA name (also behind a `/mozilla.org/…/` prefix), a Windows name (Outlook,
 * Exchange: "W. Europe Standard Time"), or the X-LIC-LOCATION of the file's VTIMEZONE with that TZID.
 */
export function resolveZone(tzid: string, aliases: ReadonlyMap<string, string> = new Map()): string | undefined {
  const name = tzid.trim().replace(/^"|"$/g, '');
  const candidates = [name, name.replace(/^\/[^/]+\/[^/]+\//, ''), aliases.get(name)];
  for (const candidate of candidates) if (candidate && IANAZone.isValidZone(candidate)) return candidate;
  try {
    const iana = findIana(name)[0];
    if (iana && IANAZone.isValidZone(iana)) return iana;
  } catch {
    // windows-iana throws on names it does not know
  }
  return undefined;
}

interface Moment {
  allDay: boolean;
  /** `YYYY-MM-DD HH:MM:SS` in `zone` ('' = the site's zone, for floating times without X-WR-TIMEZONE). */
  local: string;
  zone: string;
  at: DateTime;
}

/**
 * `YYYY-MM-DD HH:MM:SS` of `at` (formatWp: Luxon's toFormat reads its format string again on every call); an invalid
 * DateTime gives text that no date reads as, which the unit's checks then refuse.
 */
const wpOf = (at: DateTime): string => (at.isValid ? formatWp(at) : 'Invalid DateTime');

const tabledZones = new Map<string, Zone>();

/** The zone named `name` (IANA, or as luxon reads it), its offsets from the table when it has transitions. */
function tabled(name: string): Zone {
  let zone = tabledZones.get(name);
  if (zone === undefined) {
    const plain = Info.normalizeZone(name);
    zone = plain.type === 'iana' && plain.isValid ? new TabledZone(plain) : plain;
    tabledZones.set(name, zone);
  }
  return zone;
}

/** A DTSTART/DTEND/RECURRENCE-ID as wall-clock time in its zone. */
function momentOf(property: JCal, calendar: ParsedCalendar, siteZone: string): Moment {
  const value = String(property[3]);
  if (property[2] === 'date') {
    const zone = defaultZone(calendar) ?? '';
    return {
      allDay: true,
      local: `${value} 00:00:00`,
      zone,
      at: DateTime.fromISO(value, { zone: tabled(zone || siteZone) }),
    };
  }
  const tzid = property[1].tzid;
  if (typeof tzid === 'string' && !value.endsWith('Z')) {
    const zone = zoneOf(calendar, tzid);
    if (zone === undefined) throw new Refusal(`unknown time zone "${tzid}" in ${property[0].toUpperCase()}`);
    const at = DateTime.fromISO(value, { zone: tabled(zone) });
    return { allDay: false, local: wpOf(at), zone, at };
  }
  if (value.endsWith('Z')) {
    const zone = defaultZone(calendar) ?? 'UTC';
    const at = DateTime.fromISO(value, { zone: 'utc' }).setZone(tabled(zone));
    return { allDay: false, local: wpOf(at), zone, at };
  }
  const zone = defaultZone(calendar) ?? '';
  const at = DateTime.fromISO(value, { zone: tabled(zone || siteZone) });
  return { allDay: false, local: wpOf(at), zone, at };
}

function defaultZone(calendar: ParsedCalendar): string | undefined {
  return calendar.defaultZone === undefined ? undefined : zoneOf(calendar, calendar.defaultZone);
}

/** Each calendar's TZIDs as resolved (resolveZone asks Intl about each candidate: a file names few zones, many times). */
const zonesOf = new WeakMap<ParsedCalendar, Map<string, string | undefined>>();

function zoneOf(calendar: ParsedCalendar, tzid: string): string | undefined {
  let zones = zonesOf.get(calendar);
  if (!zones) {
    zones = new Map();
    zonesOf.set(calendar, zones);
  }
  if (!zones.has(tzid)) zones.set(tzid, resolveZone(tzid, calendar.zoneAliases));
  return zones.get(tzid);
}

/**
 * The API fields (a request's raw parameters) of one VEVENT, as `actor` may send them: an ATTACH image would add media,
 * so it is kept only for importers who may upload files, as the API's `image` is.
 */
function eventFields(
  component: JComponent,
  calendar: ParsedCalendar,
  actor: Pick<CommandContext, 'config' | 'viewer'>,
): ParamMap {
  const { config } = actor;
  const startProperty = propertyOf(component, 'dtstart');
  if (!startProperty) throw new Refusal('the VEVENT has no DTSTART');
  const start = momentOf(startProperty, calendar, config.siteTimezone);
  if (!start.at.isValid) throw new Refusal(`DTSTART "${String(startProperty[3])}" is not a date`);
  const endProperty = propertyOf(component, 'dtend');
  let endLocal: string;
  if (endProperty) {
    const end = momentOf(endProperty, calendar, config.siteTimezone);
    if (!end.at.isValid) throw new Refusal(`DTEND "${String(endProperty[3])}" is not a date`);
    endLocal = start.allDay
      ? // DTEND of an all-day event is the day after its last day.
        `${DateTime.fromISO(end.local.slice(0, 10)).minus({ days: 1 }).toISODate()} 00:00:00`
      : wpOf(end.at.setZone(tabled(start.zone || config.siteTimezone)));
    if (start.allDay && endLocal < start.local) endLocal = start.local;
  } else {
    const duration = textOf(component, 'duration');
    if (duration !== undefined) {
      const seconds = ICAL.Duration.fromString(duration).toSeconds();
      endLocal = start.allDay
        ? `${start.at.plus({ seconds: Math.max(0, seconds - 86_400) }).toISODate()} 00:00:00`
        : wpOf(start.at.plus({ seconds }));
    } else {
      endLocal = start.local;
    }
  }

  const fields: ParamMap = Object.create(null);
  fields.title = (textOf(component, 'summary') ?? '').trim() || 'Untitled event';
  const html = propertiesOf(component, 'x-alt-desc').find(
    (property) => String(property[1].fmttype ?? '').toLowerCase() === 'text/html',
  )?.[3];
  const plain = textOf(component, 'description');
  if (typeof html === 'string' && html.trim() !== '') fields.description = html;
  else if (plain !== undefined && plain.trim() !== '') fields.description = escapeHtml(plain);
  fields.start_date = start.local;
  fields.end_date = endLocal;
  fields.timezone = start.zone;
  fields.all_day = start.allDay;
  const klass = textOf(component, 'class')?.toUpperCase();
  fields.status = klass === 'PRIVATE' || klass === 'CONFIDENTIAL' ? 'private' : 'publish';
  fields.categories = categoriesOf(component);
  const image = propertiesOf(component, 'attach')
    .map((property) => String(property[3]))
    .find((uri) => /^https?:\/\//i.test(uri));
  if (image !== undefined && canUploadFiles(actor.viewer)) fields.image = image;
  return fields;
}

/** CATEGORIES (each property may list several) as names, each once. */
function categoriesOf(component: JComponent): string[] {
  const categories = propertiesOf(component, 'categories')
    .flatMap((property) => property.slice(3).map(String))
    .map((name) => name.trim())
    .filter(Boolean);
  return [...new Set(categories)];
}

/** LOCATION (or our X-CALENDAR-EVENTS-VENUE, or Apple's structured location) as a venue's name, address and place. */
function venueOf(component: JComponent): Record<string, unknown> | undefined {
  const structured = propertyOf(component, 'x-apple-structured-location');
  const title = structured?.[1]['x-title'];
  const name =
    textOf(component, 'x-calendar-events-venue') ??
    (typeof title === 'string' ? title : undefined) ??
    textOf(component, 'location');
  if (name === undefined || name.trim() === '') return undefined;
  const venue: Record<string, unknown> = { venue: name.trim() };
  const address = structured?.[1]['x-address'];
  if (typeof address === 'string' && address.trim() !== '') venue.address = address.trim();
  const geo = propertyOf(component, 'geo')?.[3];
  if (
    Array.isArray(geo) &&
    geo.length === 2 &&
    geo.every((value) => typeof value === 'number' && Number.isFinite(value))
  ) {
    venue.geo_lat = geo[0];
    venue.geo_lng = geo[1];
  }
  return venue;
}

/** ORGANIZER;CN=name:mailto:address as an organizer. */
function organizerOf(component: JComponent): Record<string, unknown> | undefined {
  const property = propertyOf(component, 'organizer');
  if (!property) return undefined;
  const value = String(property[3] ?? '');
  const email = /^mailto:/i.test(value) ? value.replace(/^mailto:/i, '').trim() : '';
  const name = String(property[1].cn ?? '').trim() || email;
  if (name === '') return undefined;
  return email === '' ? { organizer: name } : { organizer: name, email };
}

/** Items of one name looked at for a LOCATION or ORGANIZER: names are nearly unique, so a few are plenty. */
const NAMESAKES = 20;

/**
 * Units written per transaction: enough that a commit and each read of what the units name (their UIDs, venues,
 * organizers, categories) serve many events; few enough that a transaction holds SQLite's write lock, or the rows it
 * claims on PostgreSQL, for a fraction of a second (about 0.2 s on SQLite). A commit writes each page its
 * transaction changed once, however many of its events changed it: 500 units instead of 250 imported 20,000 events
 * on SQLite in 7.4–7.6 s instead of 8.2–8.5 (measured in turn, twice each; 1,000 gained nothing more), on PostgreSQL
 * in 11.5–11.7 s against 11.7–12.4.
 */
export const UNITS_PER_TRANSACTION = 500;

/**
 * Transactions written again when a concurrent writer got in the way: it deleted a venue, organizer or term they link
 * to, or PostgreSQL broke a deadlock with one (the import's transactions hold many items' locks at once).
 */
const CONFLICT_RETRIES = 3;

const isConflict = (error: unknown) => isForeignKeyViolation(error) || errorCode(error) === '40P01';

/** The reason an error gives, as the report prints it (a refused field's message included); anything else is a bug. */
function reasonOf(error: unknown): string {
  if (error instanceof Refusal || error instanceof DomainError) return error.message;
  if (error instanceof MissingFields)
    return `${error.message} (${error.names.map((name) => `${name}: missing`).join('; ')})`;
  if (error instanceof InvalidFields) {
    const parts = Object.entries(error.fields).map(
      ([name, issue]) => `${name}: ${issue?.message ?? 'Invalid parameter.'}`,
    );
    return `${error.message} (${parts.join('; ')})`;
  }
  throw error;
}

export interface ImportOptions {
  viewer: NonNullable<Viewer>;
  /** Called after each transaction with the units done so far (a progress bar). */
  progress?: (done: number, total: number) => void;
}

/** What happened to one unit. */
type UnitOutcome = 'created' | 'updated' | 'unchanged' | { refused: string };

/**
 * A unit (or one edited occurrence of it, `key` `<unit>/<occurrence>`) refused after it had written: what it wrote,
 * and what the change log recorded of it, can only go with its transaction. That transaction is rolled back, and the
 * units before it (up to `rerunUpTo`, exclusive) are written again without it.
 */
class RefusedAfterWriting extends Error {
  readonly key: string;
  readonly reason: string;
  readonly rerunUpTo: number;

  constructor(key: string, reason: string, rerunUpTo: number) {
    super(reason);
    this.key = key;
    this.reason = reason;
    this.rerunUpTo = rerunUpTo;
  }
}

/** What every transaction of one import shares. */
interface ImportRun {
  store: Store;
  config: Config;
  calendar: ParsedCalendar;
  viewer: NonNullable<Viewer>;
  /** `<id>@<our host>`: the UID of one of our own events (feed.ts). */
  ownUid: RegExp;
  /** Refusals that came after writes, by unit (or `<unit>/<occurrence>`): later attempts skip those. */
  refusedAfterWriting: Map<string, string>;
}

/**
 * Imports every unit of a parsed calendar; returns what happened to each UID. Units are written in ranges of
 * {@link UNITS_PER_TRANSACTION}, one transaction each, each unit checked before it writes anything: a unit refused by
 * a check writes nothing and the others go on. A unit refused after it wrote (a write's own check, e.g. after a
 * concurrent change) takes its transaction down with it; the units before it are then written again without it. A
 * transaction that fails otherwise (a bug, the database gone) is rolled back whole and the import stops there: what
 * other transactions wrote stays.
 *
 * Where the store keeps more than one batch transaction in flight (Store.batchConcurrency: PostgreSQL), that many
 * ranges are written at once, so that one range's checks and rendering run while the database writes another's; the
 * units of two ranges meet only as any two writers do (one venue, organizer or term per name, unique slugs: their
 * locks and checks), and the report lists them in the file's order whatever order they were written in.
 */
export async function importCalendar(
  store: Store,
  config: Config,
  calendar: ParsedCalendar,
  options: ImportOptions,
): Promise<ImportReport> {
  const host = uidHost(config.siteUrl).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const run: ImportRun = {
    store,
    config,
    calendar,
    viewer: options.viewer,
    ownUid: new RegExp(`^(\\d{1,10})@${host}$`, 'i'),
    refusedAfterWriting: new Map(),
  };
  const units = calendar.units;
  const outcomes: UnitOutcome[] = new Array(units.length);
  const ranges: Array<[from: number, to: number]> = [];
  for (let from = 0; from < units.length; from += UNITS_PER_TRANSACTION)
    ranges.push([from, Math.min(units.length, from + UNITS_PER_TRANSACTION)]);
  let done = 0;
  try {
    await eachInFlight(
      ranges,
      store.batchConcurrency,
      ([from, to]) => importRange(run, from, to, outcomes),
      ([from, to]) => {
        done += to - from;
        options.progress?.(done, units.length);
      },
    );
  } catch (error) {
    await store.flushBatches().catch(() => {});
    throw error;
  }
  await store.flushBatches();
  const report: ImportReport = { created: [], updated: [], unchanged: [], refused: [...calendar.refused] };
  for (const [index, outcome] of outcomes.entries()) {
    const uid = units[index].uid;
    if (typeof outcome === 'string') report[outcome].push(uid);
    else report.refused.push({ uid, reason: outcome.refused });
  }
  return report;
}

/**
 * Writes units `from` to `to` (exclusive) in one transaction, or in more when a unit refused after writing takes one
 * down (see {@link importCalendar}); their outcomes go to `outcomes` at their indexes.
 */
async function importRange(run: ImportRun, from: number, to: number, outcomes: UnitOutcome[]): Promise<void> {
  let next = from;
  let end = to;
  let retries = 0;
  while (next < to) {
    const start = next;
    let written: UnitOutcome[];
    try {
      written = await run.store.batchTransaction((trx) => writeUnits(trx, run, start, end));
    } catch (error) {
      if (error instanceof RefusedAfterWriting) {
        run.refusedAfterWriting.set(error.key, error.reason);
        // The units before the refused one, alone (they are written again without it), or the range again.
        end = error.rerunUpTo > start ? error.rerunUpTo : to;
        continue;
      }
      if (isConflict(error) && ++retries <= CONFLICT_RETRIES) continue;
      throw error;
    }
    for (const [offset, outcome] of written.entries()) outcomes[start + offset] = outcome;
    next = end;
    end = to;
    retries = 0;
  }
}

/** Writes units `from` to `to` (exclusive) in `trx`: each unit's outcome, in order. */
async function writeUnits(trx: Trx, run: ImportRun, from: number, to: number): Promise<UnitOutcome[]> {
  const reads = new UnitReads(trx, run, { viewer: run.viewer, now: DateTime.utc(), config: run.config });
  const units = run.calendar.units.slice(from, to);
  await reads.prefetch(units);
  const outcomes: UnitOutcome[] = [];
  const creates: DeferredCreate[] = [];
  for (const [offset, unit] of units.entries()) {
    const index = from + offset;
    const refused = run.refusedAfterWriting.get(String(index));
    if (refused !== undefined) {
      outcomes.push({ refused });
      continue;
    }
    const step = { wrote: false };
    try {
      outcomes.push(await writeUnit(trx, run, reads, unit, index, step, creates));
    } catch (error) {
      const reason = reasonOf(error);
      if (step.wrote) throw new RefusedAfterWriting(String(index), reason, index);
      outcomes.push({ refused: reason });
    }
  }
  // The new events of the transaction, together: what they link to (new venues and organizers one per name), then
  // the events. A create refused only now (a concurrent write changed what its check read) comes after writes.
  const staged = await stageEventCreates(
    trx,
    run.store,
    reads.actor,
    creates.map((create) => create.checked),
    reads.terms,
  );
  const written: StagedEventCreate[] = [];
  for (const [position, outcome] of staged.entries()) {
    if ('refused' in outcome) {
      const { index } = creates[position];
      throw new RefusedAfterWriting(String(index), reasonOf(outcome.refused), index);
    }
    written.push(outcome);
  }
  await insertStagedEvents(trx, run.store, reads.actor, written, { finished: true });
  return outcomes;
}

/** A new event of the transaction, checked, written with the others at its end (see {@link writeUnits}). */
interface DeferredCreate {
  index: number;
  checked: CheckedEventCreate;
}

/**
 * One unit, in the order of the API's own checks: matched by UID, read into a request's fields and validated as the
 * event routes validate them, then checked as the events service checks a write, all before it writes anything (`step`
 * says when it starts writing). A new event is staged in `creates`, written with the transaction's others.
 */
async function writeUnit(
  trx: Trx,
  run: ImportRun,
  reads: UnitReads,
  unit: ImportUnit,
  index: number,
  step: { wrote: boolean },
  creates: DeferredCreate[],
): Promise<UnitOutcome> {
  const { store, calendar } = run;
  const { actor } = reads;
  const nowUtc = formatWp(actor.now);
  const existing = reads.existing(unit.uid);
  const digest = unitDigest(unit);
  if (existing && sameDigest(existing.hash, unit, digest)) return 'unchanged';
  if (!unit.master) {
    throw new Refusal(
      `only edited occurrences (RECURRENCE-ID) and no main VEVENT${existing ? '' : ', and no event with this UID was imported before'}`,
    );
  }
  const master = unit.master;
  const recurrence = master[1]
    .filter((property) => ['rrule', 'rdate', 'exdate'].includes(property[0]))
    .map((property) => ICAL.stringify.property(property, ICAL.design.defaultSet, true));
  if (textOf(master, 'status')?.toUpperCase() === 'CANCELLED') {
    if (!existing) return 'unchanged';
    const post = reads.postOf(existing.id);
    if (post?.status !== 'trash') {
      if (post && !canDeletePost(actor.viewer, postLike(post), nowUtc)) throw notAllowed();
      step.wrote = true;
      await trashEventIn(trx, actor, existing.id);
    }
    step.wrote = true;
    await updateEventRow(trx, existing.id, { ical_hash: digest });
    return 'updated';
  }

  const ctx = reads.context();
  const raw = eventFields(master, calendar, ctx);
  if (recurrence.length > 0) raw.recurrence = recurrence;
  const venue = venueOf(master);
  const organizer = organizerOf(master);
  if (venue) {
    const id = await reads.namedItem('venue', String(venue.venue));
    raw.venue = id === undefined ? venue : { id };
  } else if (existing) raw.venue = 0;
  if (organizer) {
    const id = await reads.namedItem('organizer', String(organizer.organizer));
    raw.organizer = id === undefined ? [organizer] : [{ id }];
  } else if (existing) raw.organizer = [];

  const input = await readEventCommand(ctx, raw, { create: !existing });
  // The digest goes with the last write: a unit whose exceptions fail is tried again by the next import.
  input.ical_uid = unit.uid;
  if (unit.exceptions.length === 0) input.ical_hash = digest;

  let id: number;
  if (existing) {
    // updateEvent's first check, made here: a refusal then writes nothing.
    const post = reads.postOf(existing.id);
    if (post && !canEditPost(actor.viewer, postLike(post), nowUtc)) throw notAllowed();
    step.wrote = true;
    await updateEventIn(trx, store, actor, existing.id, input);
    id = existing.id;
  } else {
    const checked = await checkEventCreate(actor, input, reads.terms);
    if (unit.exceptions.length === 0) {
      // Written at the transaction's end, with the others. A venue or organizer it names that does not exist yet is
      // not read again by the units after it (it exists only then): they name it inline too, and link the one
      // written (stageEventCreates).
      creates.push({ index, checked });
      return 'created';
    }
    step.wrote = true;
    const staged = await stageEventCreate(trx, store, actor, checked, reads.terms);
    [id] = await insertStagedEvents(trx, store, actor, [staged]);
  }
  reads.wroteItems(venue && raw.venue === venue ? String(venue.venue) : undefined, organizer, raw.organizer);
  if (unit.exceptions.length > 0) {
    const problems = await importExceptions(trx, run, reads, unit, index, id);
    if (problems.length > 0)
      return { refused: `the series was written, but not all of its edited occurrences: ${problems.join('; ')}` };
    await updateEventRow(trx, id, { ical_hash: digest });
  }
  return existing ? 'updated' : 'created';
}

/**
 * Edited occurrences (D25): each RECURRENCE-ID names an occurrence of the series by its original start; its fields
 * are written on that occurrence alone, or it is cancelled (STATUS:CANCELLED). Occurrences are events whose
 * `series_id` is the series and whose `occurrence_start_utc` is their original start. Answers the reasons of those
 * that could not be written (the others are).
 */
async function importExceptions(
  trx: Trx,
  run: ImportRun,
  reads: UnitReads,
  unit: ImportUnit,
  index: number,
  seriesId: number,
): Promise<string[]> {
  const { actor } = reads;
  const problems: string[] = [];
  // The series' occurrences by original start, read once (editing or cancelling one leaves the others' starts as they are).
  const occurrences = new Map<string, number>();
  const rows = await trx
    .selectFrom('events')
    .select(['id', 'occurrence_start_utc'])
    .where('series_id', '=', seriesId)
    .execute();
  for (const row of rows) {
    if (row.occurrence_start_utc !== null && !occurrences.has(row.occurrence_start_utc))
      occurrences.set(row.occurrence_start_utc, row.id);
  }
  for (const [position, exception] of unit.exceptions.entries()) {
    const key = `${index}/${position}`;
    const refused = run.refusedAfterWriting.get(key);
    if (refused !== undefined) {
      problems.push(refused);
      continue;
    }
    let wrote = false;
    try {
      const original = momentOf(propertyOf(exception, 'recurrence-id')!, run.calendar, actor.config.siteTimezone);
      const originalUtc = wpOf(original.at.toUTC());
      const occurrenceId = occurrences.get(originalUtc);
      if (occurrenceId === undefined)
        throw new Refusal(`RECURRENCE-ID ${originalUtc} UTC is not an occurrence of the series`);
      if (textOf(exception, 'status')?.toUpperCase() === 'CANCELLED') {
        wrote = true;
        await trashEventIn(trx, actor, occurrenceId);
        continue;
      }
      const ctx = reads.context();
      const raw = eventFields(exception, run.calendar, ctx);
      delete raw.status;
      const input = await readEventCommand(ctx, raw, { create: false });
      wrote = true;
      await updateEventIn(trx, run.store, actor, occurrenceId, input);
    } catch (error) {
      const reason = reasonOf(error);
      if (wrote) throw new RefusedAfterWriting(key, reason, index + 1);
      problems.push(reason);
    }
  }
  return problems;
}

type LinkedType = 'venue' | 'organizer';

/**
 * What the units of one transaction look up, read for all of them at once and kept for the transaction (never
 * longer: a rolled-back transaction takes what it wrote with it): the events their UIDs name, and the posts of those;
 * the venues and organizers their LOCATIONs and ORGANIZERs name; their categories (terms/lookup.ts). A name a unit
 * writes a venue or organizer for is read again when a later unit asks for it.
 */
class UnitReads {
  readonly actor: Actor;
  readonly terms: TermLookup;
  /** The store as the units' checks read it: through the transaction, seeing what earlier units wrote. */
  readonly #store: Store;
  readonly #trx: Trx;
  readonly #run: ImportRun;
  readonly #uids = new Map<string, { id: number; hash: string | null } | undefined>();
  readonly #posts = new Map<number, PostRow>();
  readonly #named: Record<LinkedType, Map<string, number | undefined>> = { venue: new Map(), organizer: new Map() };
  /** Venue and organizer posts by `post:<id>`, as the checks' memo keys them (core/posts/input.ts loadPost). */
  readonly #linkedPosts = new Map<string, Promise<unknown>>();

  constructor(trx: Trx, run: ImportRun, actor: Actor) {
    this.#trx = trx;
    this.#run = run;
    this.actor = actor;
    this.#store = { ...run.store, db: trx };
    this.terms = new TermLookup(trx, run.store);
  }

  async prefetch(units: readonly ImportUnit[]): Promise<void> {
    await this.#readUids(units.map((unit) => unit.uid));
    const masters = units.flatMap((unit) => (unit.master ? [unit.master] : []));
    const names = (type: LinkedType, of: (component: JComponent) => Record<string, unknown> | undefined) =>
      masters.flatMap((master) => {
        const item = of(master);
        return item ? [String(item[type])] : [];
      });
    await this.#readNamed('venue', names('venue', venueOf));
    await this.#readNamed('organizer', names('organizer', organizerOf));
    await this.terms.prefetch('event_category', masters.map(categoriesOf));
  }

  /** The event a UID of the transaction's units names (see {@link UnitReads.prefetch}). */
  existing(uid: string): { id: number; hash: string | null } | undefined {
    return this.#uids.get(uid);
  }

  /** The post of an event {@link UnitReads.existing} answered. */
  postOf(id: number): PostRow | undefined {
    return this.#posts.get(id);
  }

  /**
   * An existing venue or organizer with this name (case-insensitive) that the importer can read, reused rather than
   * written again. One the importer cannot read (someone else's private or draft venue) is as if it did not exist:
   * the unit gets one of its own, as POST /events with the venue's fields would, and nothing tells the importer it is
   * there.
   */
  async namedItem(type: LinkedType, name: string): Promise<number | undefined> {
    if (!this.#named[type].has(name)) await this.#readNamed(type, [name]);
    return this.#named[type].get(name);
  }

  /** A unit wrote inline items (venue by this name, organizers): they are read again when next asked for. */
  wroteItems(venueName: string | undefined, organizer: Record<string, unknown> | undefined, sent: unknown): void {
    const inlineOrganizer = organizer !== undefined && Array.isArray(sent) && sent[0] === organizer;
    if (venueName === undefined && !inlineOrganizer) return;
    if (venueName !== undefined) this.#named.venue.delete(venueName);
    if (inlineOrganizer) this.#named.organizer.delete(String(organizer.organizer));
  }

  /** A unit's command context: its own memo, but the venue and organizer posts read once for the transaction. */
  context(): CommandContext {
    const own = commandContext(this.#store, this.actor);
    const linked = this.#linkedPosts;
    return {
      ...own,
      memo<T>(key: string, load: () => Promise<T>): Promise<T> {
        if (!key.startsWith('post:')) return own.memo(key, load);
        let value = linked.get(key);
        if (value === undefined) {
          value = load();
          linked.set(key, value);
        }
        // Keys `post:<id>` are loadPost's (core/posts/input.ts): what is kept under one is that post, a Promise<T>.
        return value as Promise<T>;
      },
    };
  }

  /** The event each UID names: one imported with it, or, for `<id>@<our host>`, the event of that id (one of ours). */
  async #readUids(uids: readonly string[]): Promise<void> {
    const wanted = [...new Set(uids)].filter((uid) => !this.#uids.has(uid));
    if (wanted.length === 0) return;
    for (const row of await this.#trx
      .selectFrom('events')
      .select(['id', 'ical_hash', 'ical_uid'])
      .where('ical_uid', 'in', wanted)
      .orderBy('id')
      .execute()) {
      if (!this.#uids.has(row.ical_uid!)) this.#uids.set(row.ical_uid!, { id: row.id, hash: row.ical_hash });
    }
    const own = new Map<number, string>();
    for (const uid of wanted) {
      if (this.#uids.has(uid)) continue;
      const match = this.#run.ownUid.exec(uid);
      if (match && isRowId(Number(match[1]))) own.set(Number(match[1]), uid);
    }
    if (own.size > 0) {
      for (const row of await this.#trx
        .selectFrom('events')
        .select(['id', 'ical_hash'])
        .where('id', 'in', [...own.keys()])
        .where('ical_uid', 'is', null)
        .execute())
        this.#uids.set(own.get(row.id)!, { id: row.id, hash: row.ical_hash });
    }
    for (const uid of wanted) if (!this.#uids.has(uid)) this.#uids.set(uid, undefined);
    const ids = wanted.flatMap((uid) => {
      const found = this.#uids.get(uid);
      return found ? [found.id] : [];
    });
    if (ids.length > 0)
      for (const post of await this.#trx.selectFrom('posts').selectAll().where('id', 'in', ids).execute())
        this.#posts.set(post.id, post);
  }

  /**
   * For each name, the first readable item among the first {@link NAMESAKES} non-trashed ones of that name
   * (case-insensitive, by id): one query for all the names, through the `posts_type_lower_title` index, once per
   * name (SQLite keeps the order of a CROSS JOIN: left to itself it would scan every item of the type per name).
   */
  async #readNamed(type: LinkedType, names: readonly string[]): Promise<void> {
    const found = this.#named[type];
    const wanted = [...new Set(names)].filter((name) => !found.has(name));
    if (wanted.length === 0) return;
    const { lower } = this.#run.store;
    const { rows } = await sql<PostRow & { wanted: string; place: number }>`
      with wanted (name) as (values ${sql.join(wanted.map((name) => sql`(cast(${name} as text))`))})
      select * from (
        select wanted.name as wanted, posts.*,
          row_number() over (partition by wanted.name order by posts.id) as place
        from wanted cross join posts
        where posts.type = ${type} and ${lower(sql.ref('posts.title'))} = ${lower(sql.ref('wanted.name'))}
          and posts.status != 'trash'
      ) as namesakes
      where place <= ${NAMESAKES}
      order by wanted, id`.execute(this.#trx);
    const nowUtc = formatWp(this.actor.now);
    for (const { wanted: name, place: _place, ...post } of rows) {
      if (found.get(name) !== undefined || !canReadPost(this.actor.viewer, type, postLike(post), nowUtc)) continue;
      found.set(name, post.id);
      this.#linkedPosts.set(`post:${post.id}`, Promise.resolve(post));
    }
    for (const name of wanted) if (!found.has(name)) found.set(name, undefined);
  }
}
