// D26 .ics import: a file (Google Calendar, Outlook/Exchange, Apple Calendar, or one of our own feeds) becomes events.
// The whole file is read and parsed first (bounded by ICAL_IMPORT_MAX_BYTES, checked before reading): a file that does
// not parse writes nothing. Then each UID is one unit: matched by its stored UID (so a second import of the same file
// changes nothing and an updated file updates in place), validated exactly as the API validates a request (the event
// routes' argument schemas), and written through the events service (createEvent/updateEvent), one transaction each.
// A component that cannot be imported is refused with its reason; the others go on.
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { sql, type SqlBool } from 'kysely';
import ICAL from 'ical.js';
import { DateTime, IANAZone } from 'luxon';
import { findIana } from 'windows-iana';
import type { Config } from '../config.ts';
import { canReadPost, canUploadFiles, type Viewer } from '../domain/access.ts';
import { formatWp } from '../domain/dates/stored-format.ts';
import { escapeHtml } from '../domain/html.ts';
import { commandContext, type CommandContext } from '../core/input/context.ts';
import { DomainError, InvalidFields, MissingFields } from '../domain/errors.ts';
import type { ParamMap } from '../core/input/params.ts';
import { readEventCommand } from '../core/events/command.ts';
import { createEvent, trashEvent, updateEvent } from '../core/events/service.ts';
import { setIcalHash } from '../core/events/store.ts';
import { postLike } from '../core/posts/fields.ts';
import type { Store } from '../store/store.ts';
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
    throw new ImportFileError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
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
    throw new ImportFileError(
      `the file does not parse as iCalendar (${(error as Error).message}): nothing was imported.`,
    );
  }
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
export function unitDigest(unit: ImportUnit): string {
  const hash = createHash('sha256');
  for (const component of [unit.master, ...unit.exceptions]) {
    if (!component) continue;
    const kept: JComponent = [component[0], component[1].filter((property) => property[0] !== 'dtstamp'), component[2]];
    hash.update((ICAL.stringify as unknown as { component(c: JComponent): string }).component(kept)).update('\n');
  }
  return hash.digest('base64url');
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

const WP = 'yyyy-MM-dd HH:mm:ss';

/** A DTSTART/DTEND/RECURRENCE-ID as wall-clock time in its zone. */
function momentOf(property: JCal, calendar: ParsedCalendar, siteZone: string): Moment {
  const value = String(property[3]);
  if (property[2] === 'date') {
    const zone = defaultZone(calendar) ?? '';
    return { allDay: true, local: `${value} 00:00:00`, zone, at: DateTime.fromISO(value, { zone: zone || siteZone }) };
  }
  const tzid = property[1].tzid;
  if (typeof tzid === 'string' && !value.endsWith('Z')) {
    const zone = resolveZone(tzid, calendar.zoneAliases);
    if (zone === undefined) throw new Refusal(`unknown time zone "${tzid}" in ${property[0].toUpperCase()}`);
    const at = DateTime.fromISO(value, { zone });
    return { allDay: false, local: at.toFormat(WP), zone, at };
  }
  if (value.endsWith('Z')) {
    const zone = defaultZone(calendar) ?? 'UTC';
    const at = DateTime.fromISO(value, { zone: 'utc' }).setZone(zone);
    return { allDay: false, local: at.toFormat(WP), zone, at };
  }
  const zone = defaultZone(calendar) ?? '';
  const at = DateTime.fromISO(value, { zone: zone || siteZone });
  return { allDay: false, local: at.toFormat(WP), zone, at };
}

function defaultZone(calendar: ParsedCalendar): string | undefined {
  return calendar.defaultZone === undefined ? undefined : resolveZone(calendar.defaultZone, calendar.zoneAliases);
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
      : end.at.setZone(start.zone || config.siteTimezone).toFormat(WP);
    if (start.allDay && endLocal < start.local) endLocal = start.local;
  } else {
    const duration = textOf(component, 'duration');
    if (duration !== undefined) {
      const seconds = ICAL.Duration.fromString(duration).toSeconds();
      endLocal = start.allDay
        ? `${start.at.plus({ seconds: Math.max(0, seconds - 86_400) }).toISODate()} 00:00:00`
        : start.at.plus({ seconds }).toFormat(WP);
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
  const categories = propertiesOf(component, 'categories')
    .flatMap((property) => property.slice(3).map(String))
    .map((name) => name.trim())
    .filter(Boolean);
  fields.categories = [...new Set(categories)];
  const image = propertiesOf(component, 'attach')
    .map((property) => String(property[3]))
    .find((uri) => /^https?:\/\//i.test(uri));
  if (image !== undefined && canUploadFiles(actor.viewer)) fields.image = image;
  return fields;
}

/** LOCATION (or our X-CALENDAR-EVENTS-VENUE, or Apple's structured location) as a venue's name, address and place. */
function venueOf(component: JComponent): Record<string, unknown> | undefined {
  const structured = propertyOf(component, 'x-apple-structured-location');
  const name =
    textOf(component, 'x-calendar-events-venue') ??
    (structured?.[1]['x-title'] as string | undefined) ??
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

/** An existing venue or organizer with this name (case-insensitive), reused rather than written again. */
async function existingByName(
  ctx: CommandContext,
  type: 'venue' | 'organizer',
  name: string,
): Promise<number | undefined> {
  const rows = await ctx.store.db
    .selectFrom('posts')
    .selectAll()
    .where('type', '=', type)
    .where('status', '!=', 'trash')
    .where(sql<SqlBool>`${ctx.store.lower(sql.ref('title'))} = ${ctx.store.lower(sql<string>`${name}`)}`)
    .orderBy('id')
    .limit(NAMESAKES)
    .execute();
  // One the importer cannot read (someone else's private or draft venue) is as if it did not exist: the unit gets a
  // venue of its own, as POST /events with the venue's fields would, and nothing tells the importer it is there.
  const nowUtc = formatWp(ctx.now);
  return rows.find((row) => canReadPost(ctx.viewer, type, postLike(row), nowUtc))?.id;
}

/** Items of one name looked at for a LOCATION or ORGANIZER: names are nearly unique, so a few are plenty. */
const NAMESAKES = 20;

/** The event this UID names: one imported with it, or, for `<id>@<our host>`, the event of that id (one of ours). */
async function findByUid(
  store: Store,
  uid: string,
  host: string,
): Promise<{ id: number; hash: string | null } | undefined> {
  const imported = await store.db
    .selectFrom('events')
    .select(['id', 'ical_hash'])
    .where('ical_uid', '=', uid)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (imported) return { id: imported.id, hash: imported.ical_hash };
  const own = new RegExp(`^(\\d{1,10})@${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'i').exec(uid);
  if (!own) return undefined;
  const row = await store.db
    .selectFrom('events')
    .select(['id', 'ical_hash'])
    .where('id', '=', Number(own[1]))
    .where('ical_uid', 'is', null)
    .executeTakeFirst();
  return row ? { id: row.id, hash: row.ical_hash } : undefined;
}

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
  /** Called after each unit (a progress bar). */
  progress?: (done: number, total: number) => void;
}

/** Imports every unit of a parsed calendar; returns what happened to each UID. */
export async function importCalendar(
  store: Store,
  config: Config,
  calendar: ParsedCalendar,
  options: ImportOptions,
): Promise<ImportReport> {
  const report: ImportReport = { created: [], updated: [], unchanged: [], refused: [...calendar.refused] };
  const host = uidHost(config.siteUrl);
  let done = 0;
  for (const unit of calendar.units) {
    const ctx = commandContext(store, { viewer: options.viewer, now: DateTime.utc(), config });
    try {
      const outcome = await importUnit(ctx, calendar, unit, host);
      report[outcome].push(unit.uid);
    } catch (error) {
      report.refused.push({ uid: unit.uid, reason: reasonOf(error) });
    }
    options.progress?.(++done, calendar.units.length);
  }
  return report;
}

type Outcome = 'created' | 'updated' | 'unchanged';

async function importUnit(
  ctx: CommandContext,
  calendar: ParsedCalendar,
  unit: ImportUnit,
  host: string,
): Promise<Outcome> {
  const existing = await findByUid(ctx.store, unit.uid, host);
  const digest = unitDigest(unit);
  if (existing && existing.hash === digest) return 'unchanged';
  if (!unit.master) {
    throw new Refusal(
      `only edited occurrences (RECURRENCE-ID) and no main VEVENT${existing ? '' : ', and no event with this UID was imported before'}`,
    );
  }
  const master = unit.master;
  const recurrence = master[1]
    .filter((property) => ['rrule', 'rdate', 'exdate'].includes(property[0]))
    .map((property) => ICAL.stringify.property(property as never, undefined as never, true));
  if (textOf(master, 'status')?.toUpperCase() === 'CANCELLED') {
    if (!existing) return 'unchanged';
    const status = await ctx.store.db
      .selectFrom('posts')
      .select('status')
      .where('id', '=', existing.id)
      .executeTakeFirst();
    if (status?.status !== 'trash') await trashEvent(ctx.store, ctx, existing.id);
    await setIcalHash(ctx.store, existing.id, digest);
    return 'updated';
  }

  const raw = eventFields(master, calendar, ctx);
  if (recurrence.length > 0) raw.recurrence = recurrence;
  const venue = venueOf(master);
  const organizer = organizerOf(master);
  if (venue) {
    const id = await existingByName(ctx, 'venue', String(venue.venue));
    raw.venue = id === undefined ? venue : { id };
  } else if (existing) raw.venue = 0;
  if (organizer) {
    const id = await existingByName(ctx, 'organizer', String(organizer.organizer));
    raw.organizer = id === undefined ? [organizer] : [{ id }];
  } else if (existing) raw.organizer = [];

  const input = await readEventCommand(ctx, raw, { create: !existing });
  // The digest goes with the last write: a unit whose exceptions fail is tried again by the next import.
  const finalDigest = unit.exceptions.length === 0 ? digest : undefined;
  input.ical_uid = unit.uid;
  if (finalDigest !== undefined) input.ical_hash = finalDigest;

  let id: number;
  if (existing) {
    await updateEvent(ctx.store, ctx, existing.id, input);
    id = existing.id;
  } else {
    id = await createEvent(ctx.store, ctx, input);
  }
  if (unit.exceptions.length > 0) {
    await importExceptions(ctx, calendar, unit, id);
    await setIcalHash(ctx.store, id, digest);
  }
  return existing ? 'updated' : 'created';
}

/**
 * Edited occurrences (D25): each RECURRENCE-ID names an occurrence of the series by its original start; its fields
 * are written on that occurrence alone, or it is cancelled (STATUS:CANCELLED). Occurrences are events whose
 * `series_id` is the series and whose `occurrence_start_utc` is their original start.
 */
async function importExceptions(
  ctx: CommandContext,
  calendar: ParsedCalendar,
  unit: ImportUnit,
  seriesId: number,
): Promise<void> {
  const problems: string[] = [];
  // The series' occurrences by original start, read once (editing or cancelling one leaves the others' starts as they are).
  const occurrences = new Map<string, number>();
  const rows = await ctx.store.db
    .selectFrom('events')
    .select(['id', 'occurrence_start_utc'])
    .where('series_id', '=', seriesId)
    .execute();
  for (const row of rows) {
    if (row.occurrence_start_utc !== null && !occurrences.has(row.occurrence_start_utc))
      occurrences.set(row.occurrence_start_utc, row.id);
  }
  for (const exception of unit.exceptions) {
    try {
      const original = momentOf(propertyOf(exception, 'recurrence-id')!, calendar, ctx.config.siteTimezone);
      const originalUtc = original.at.toUTC().toFormat(WP);
      const occurrenceId = occurrences.get(originalUtc);
      if (occurrenceId === undefined)
        throw new Refusal(`RECURRENCE-ID ${originalUtc} UTC is not an occurrence of the series`);
      if (textOf(exception, 'status')?.toUpperCase() === 'CANCELLED') {
        await trashEvent(ctx.store, ctx, occurrenceId);
        continue;
      }
      const raw = eventFields(exception, calendar, ctx);
      delete raw.status;
      await updateEvent(ctx.store, ctx, occurrenceId, await readEventCommand(ctx, raw, { create: false }));
    } catch (error) {
      problems.push(reasonOf(error));
    }
  }
  if (problems.length > 0)
    throw new Refusal(`the series was written, but not all of its edited occurrences: ${problems.join('; ')}`);
}
