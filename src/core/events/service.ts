// Event writes (§5.2–§5.4, D2, D3, D5, D16–D18) on the one post lifecycle (posts/lifecycle.ts). Each entry point
// runs one transaction, so a failure leaves nothing behind (no event, no inline venue, no new term, no change-log row).
import { lockItems } from '../item-locks.ts';
import { optionalBooleanArg, optionalNumberArg, optionalStringArg } from '../input/values.ts';
import type { Updateable } from 'kysely';
import { canDeletePost, canEditPost } from '../../domain/access.ts';
import type { Actor } from '../../domain/actor.ts';
import { utcToLocal } from '../../domain/dates/stored-format.ts';
import { DomainError, invalidField } from '../../domain/errors.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { toList } from '../../domain/lists.ts';
import { slugify } from '../../domain/slugs.ts';
import type { EventsTable } from '../../store/schema.ts';
import { underSavepoint } from '../../store/savepoint.ts';
import { isForeignKeyViolation, isRowId, leaveAlone, type Store, type Trx } from '../../store/store.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { createLinked, createLinkedItems, type Sent } from '../linked/service.ts';
import { organizerKind } from '../organizers/kind.ts';
import { insertOccurrences, rebuildOccurrences, refreshListing } from '../occurrences/store.ts';
import { nowStamp, postChanges, publicationDate, type PublicationDate } from '../posts/fields.ts';
import {
  claimForWrite,
  createPost,
  createPostsOf,
  deletePostForever,
  imageAllowed,
  trashClaimedPost,
  updatePostRow,
  type WriteOptions,
} from '../posts/lifecycle.ts';
import type { PostRow } from '../posts/store.ts';
import { withTermCounts } from '../terms/counts.ts';
import { followCreatedEvent } from './followed.ts';
import type { TermLookup } from '../terms/lookup.ts';
import {
  addNewEventTerms,
  resolveEventTermsForWrite,
  resolveTermsForWrite,
  setEventTerms,
  type Taxonomy,
} from '../terms/service.ts';
import { insertNewEventTerms } from '../terms/store.ts';
import { venueKind } from '../venues/kind.ts';
import { followSequence, followTrash, icalColumns } from './sequence.ts';
import type { LinkedInput } from '../linked/input.ts';
import {
  isWpValue,
  resolveSchedule,
  type EventSchedule,
  type ScheduleResult,
  type StoredSchedule,
} from './schedule.ts';
import {
  CANCELLED,
  copySeriesFields,
  deleteSeriesMembers,
  expandSeries,
  invalidRecurrence,
  isOccurrence,
  lockSeriesOf,
  overridesOf,
  readRecurrence,
  restoreSeriesMembers,
  setExdate,
  setOverrides,
  splitSeries,
  storedOverrides,
  storedRecurrence,
  syncSeries,
  trashSeriesMembers,
} from './series.ts';
import {
  costColumns,
  eventRowOf,
  insertEventRow,
  insertEventRowsReturningAll,
  insertOrganizerLinks,
  scheduleColumns,
  addOrganizers,
  setOrganizers,
  updateEventRow,
  type EventRecord,
  type EventRow,
} from './store.ts';
import type { ParsedRecurrence } from '../../domain/recurrence/index.ts';

/**
 * The fields a write sent (validated), with `venue` and `organizer` already read into a {@link LinkedInput} by the
 * surface (the HTTP edge validates inline items as their own endpoints would).
 */
export type EventInput = Sent & { venue?: LinkedInput; organizer?: LinkedInput };

const FLAGS = ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;
const TAXONOMY_PARAMS: ReadonlyArray<[param: 'categories' | 'tags', taxonomy: Taxonomy]> = [
  ['categories', 'event_category'],
  ['tags', 'event_tag'],
];

/** D3, and the rare date that reads in the site zone (validation) but not in the event's. */
function scheduleOrThrow(result: ScheduleResult): EventSchedule {
  if (result.ok) return result.schedule;
  if (result.problem === 'range') {
    throw invalidField('end_date', {
      code: 'rest_invalid_date_range',
      message: 'end_date must not be before start_date.',
      data: { param: 'end_date' },
    });
  }
  throw invalidField(result.problem);
}

const scheduleInput = (sent: Sent) => ({
  start: sent.start_date,
  end: sent.end_date,
  timezone: optionalStringArg(sent, 'timezone'),
  allDay: optionalBooleanArg(sent, 'all_day'),
});

/** §5.2: the publication date is read in the event's zone; the post keeps it in the site's. */
function eventPublicationDate(sent: Sent, zone: string, actor: Actor): PublicationDate | undefined {
  const published = publicationDate(sent, zone, actor.now);
  if (!published) return undefined;
  const local = isWpValue(published.utc) ? utcToLocal(published.utc, actor.config.siteTimezone) : '';
  if (!isWpValue(local)) throw invalidField(sent.date_utc !== undefined ? 'date_utc' : 'date');
  return { utc: published.utc, local };
}

const couldNotCreate = (kind: LinkedPostKind) =>
  new DomainError(
    'invalid',
    `could-not-create-${kind.type}`,
    `The ${kind.type} could not be created from the provided data`,
  );
const notFound = (id: number) => () =>
  new DomainError('not_found', 'rest-event-not-found', `Event with ID ${id} does not exist.`);
const inTrash = () => new DomainError('gone', 'event-is-in-trash', 'The event is already trashed');

/** The ids a `venue`/`organizer` field names, creating (or de-duplicating, D16) inline items. */
async function linkedIds(
  trx: Trx,
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  input: LinkedInput,
): Promise<number[]> {
  if ('csv' in input) throw couldNotCreate(kind);
  const ids: number[] = [];
  for (const ref of input.refs)
    ids.push('id' in ref ? ref.id : (await createLinked(trx, store, actor, kind, ref.fields)).id);
  return ids;
}

/**
 * The locks of the existing venues and organizers a write links, in one statement, before it writes a link: a write of
 * one of them at the same time (linked/service.ts claimFor) then either sees this link when it lists the events that
 * embed it, or has committed before this write reads it.
 */
async function lockLinkedItems(trx: Trx, input: EventInput): Promise<void> {
  const ids = [input.venue, input.organizer].flatMap((linked) =>
    linked === undefined || 'csv' in linked ? [] : linked.refs.flatMap((ref) => ('id' in ref ? [ref.id] : [])),
  );
  await lockItems(trx, ids.filter(isRowId));
}

/** Numeric items are term ids, as in the reference. */
const termValues = (value: unknown) => toList(value)!.map((item) => (/^\d+$/.test(item) ? Number(item) : item));

/** The terms of each taxonomy sent, read together; an unknown name the caller may not create is a 400 (D16). */
async function sentTerms(
  trx: Trx,
  store: Store,
  actor: Actor,
  sent: Sent,
): Promise<Array<{ taxonomy: Taxonomy; termIds: number[] }>> {
  const wanted = TAXONOMY_PARAMS.flatMap(([param, taxonomy]) =>
    sent[param] === undefined ? [] : [{ param, taxonomy, values: termValues(sent[param]) }],
  );
  if (wanted.length === 0) return [];
  const results = await resolveEventTermsForWrite(trx, store, actor, wanted);
  return results.map((result, index) => {
    if (!result.ok) throw termNotCreatable(wanted[index].param, result.name);
    return { taxonomy: wanted[index].taxonomy, termIds: result.ids };
  });
}

/** Replaces the sent taxonomies of an event. */
async function writeTerms(trx: Trx, store: Store, actor: Actor, eventId: number, sent: Sent): Promise<void> {
  for (const { taxonomy, termIds } of await sentTerms(trx, store, actor, sent))
    await setEventTerms(trx, eventId, taxonomy, termIds);
}

/**
 * The sent taxonomies of an event created in `trx`, which has none yet: linked together, and counted for their terms
 * when it is stored as `published` (a new event's terms are counted nowhere else). Answers the ids linked.
 */
async function writeNewEventTerms(
  trx: Trx,
  store: Store,
  actor: Actor,
  eventId: number,
  sent: Sent,
  published: boolean,
): Promise<number[]> {
  return addNewEventTerms(trx, eventId, await sentTerms(trx, store, actor, sent), published);
}

/** D16: a term name the caller may not create. */
const termNotCreatable = (param: string, name: string) =>
  invalidField(param, {
    code: 'rest_term_not_creatable',
    message: `"${name}" does not exist, and you are not allowed to create it.`,
    data: { param },
  });

/** The event columns a request sets besides the schedule: only what was sent (D2). */
function sentEventColumns(sent: Sent): Updateable<EventsTable> {
  const columns: Updateable<EventsTable> = sent.cost === undefined ? {} : costColumns(sent.cost);
  if (sent.website !== undefined) columns.website = String(sent.website).trim();
  for (const name of FLAGS) if (sent[name] !== undefined) columns[name] = sent[name] ? 1 : 0;
  return { ...columns, ...icalColumns(sent) };
}

/** The post of a new event (§5.2), as createEvent and the batch path both write it. */
function newEventPost(actor: Actor, input: EventInput, published: PublicationDate | undefined) {
  const title = sanitizeTitle(String(input.title));
  return {
    author_id: optionalNumberArg(input, 'author') ?? actor.viewer!.id,
    status: optionalStringArg(input, 'status'),
    title,
    content: input.description === undefined ? '' : sanitizeHtml(String(input.description)),
    excerpt: input.excerpt === undefined ? '' : sanitizeHtml(String(input.excerpt)),
    password: optionalStringArg(input, 'password') ?? '',
    published,
    slugBase: slugify(String(input.slug ?? '')) || slugify(title) || 'event',
    image: input.image,
  };
}

/** The events row of a new event (§5.2), as createEvent and the batch path both write it. */
function newEventRow(
  id: number,
  input: EventInput,
  schedule: EventSchedule,
  recurrence: ParsedRecurrence | null | undefined,
  venueIds: readonly number[],
) {
  return {
    id,
    ...scheduleColumns(schedule),
    cost_values: '[]',
    currency_symbol: '',
    currency_position: '',
    website: null,
    // §5.2: events created through the API store false unless the flag was sent.
    show_map: 0,
    show_map_link: 0,
    hide_from_listings: 0,
    sticky: 0,
    featured: 0,
    ...sentEventColumns(input),
    venue_id: venueIds[0] ?? null,
    ...seriesColumns(id, recurrence, schedule),
  };
}

/**
 * §5.2 in `trx`; answers the new event's id, and whether what it wrote of the terms is their counts alone (the counts
 * of its terms moved; no term, scheduled post or other item written besides new terms of the names it sent): see
 * core/terms/embedded-cache.ts.
 */
async function insertEvent(
  trx: Trx,
  store: Store,
  actor: Actor,
  input: EventInput,
): Promise<{ id: number; movesOnlyTermCounts: boolean }> {
  const siteZone = actor.config.siteTimezone;
  const schedule = scheduleOrThrow(resolveSchedule(scheduleInput(input), null, siteZone, actor.now));
  const recurrence = validRecurrence(actor, input.recurrence, schedule);
  // Linked items first: a CSV string of ids is refused before anything is written.
  await lockLinkedItems(trx, input);
  const venueIds = input.venue === undefined ? [] : await linkedIds(trx, store, actor, venueKind, input.venue);
  const organizerIds =
    input.organizer === undefined ? [] : await linkedIds(trx, store, actor, organizerKind, input.organizer);

  const post = await createPost(trx, actor, {
    type: 'event',
    ...newEventPost(actor, input, eventPublicationDate(input, schedule.timezone, actor)),
  });
  const event = await insertEventRow(trx, newEventRow(post.id, input, schedule, recurrence, venueIds));
  // A new event: its occurrences, organizers and terms are inserted, with nothing of its own to delete first.
  await insertOccurrences(trx, [post.id]);
  const organizers = await addOrganizers(trx, post.id, organizerIds);
  // Stored as published, it counts for its terms (a series by its own row, which this is: D25).
  const termIds = await writeNewEventTerms(trx, store, actor, post.id, input, post.status === 'publish');
  // A series goes on writing its row and its occurrences: what follows it reads them.
  if (recurrence) await syncSeries(trx, store, actor, post.id);
  else followCreatedEvent(trx, { post, event, organizerIds: organizers, termIds });
  // A scheduled post moves the next due date, and an inline venue or organizer, or an image, may be one.
  const inline = [input.venue, input.organizer].some(
    (linked) => linked !== undefined && ('csv' in linked || linked.refs.some((ref) => !('id' in ref))),
  );
  const movesOnlyTermCounts = !recurrence && post.status !== 'future' && !inline && input.image === undefined;
  return { id: post.id, movesOnlyTermCounts };
}

/**
 * D25: a `recurrence` input read and expanded against the schedule before anything is written (400 on a bad line or
 * too many occurrences); null for a single event, undefined when none was sent.
 */
function validRecurrence(actor: Actor, input: unknown, schedule: EventSchedule): ParsedRecurrence | null | undefined {
  if (input === undefined) return undefined;
  const recurrence = readRecurrence(input, schedule);
  if (recurrence === null) return null;
  const { occurrences } = expandSeries(actor, recurrence, schedule);
  if (occurrences[0]?.startUtc !== schedule.startUtc) {
    throw invalidRecurrence(
      'The first occurrence is start_date and cannot be excluded: move start_date to the first occurrence instead.',
    );
  }
  return recurrence;
}

/** The series columns of the series' own row (its id is the series'), or of a single event. */
const seriesColumns = (id: number, recurrence: ParsedRecurrence | null | undefined, schedule: EventSchedule) =>
  recurrence
    ? { series_id: id, recurrence: JSON.stringify(recurrence.lines), occurrence_start_utc: schedule.startUtc }
    : { series_id: null, recurrence: '', occurrence_start_utc: null, series_horizon_utc: null };

/** POST /events: returns the new event's id. */
export function createEvent(store: Store, actor: Actor, input: EventInput): Promise<number> {
  return store
    .transaction(async (trx) => {
      // The whole transaction is this create: it writes no credentials, and of the terms at most their counts.
      leaveAlone(trx, 'credentials');
      const created = await insertEvent(trx, store, actor, input);
      if (created.movesOnlyTermCounts) leaveAlone(trx, 'terms');
      return created.id;
    })
    .catch(linkedItemGone);
}

/**
 * The venues, organizers and terms a write names are checked before its transaction; one deleted for good in between
 * makes the link fail (a foreign key): nothing was written, and the client may send it again (then a 400 names it).
 */
function linkedItemGone(error: unknown): never {
  if (!isForeignKeyViolation(error)) throw error;
  throw new DomainError(
    'conflict',
    'rest_linked_item_gone',
    'A venue, organizer, category or tag this event links to was deleted while the request ran: nothing was written; send it again.',
  );
}

const storedSchedule = (record: EventRecord): StoredSchedule => ({
  timezone: record.event.timezone,
  allDay: record.event.all_day === 1,
  startLocal: record.event.start_local,
  endLocal: record.event.end_local,
});

/** Whether every schedule column holds the value stored already. */
function sameSchedule(columns: ReturnType<typeof scheduleColumns>, stored: EventRecord['event']): boolean {
  const storedValues = new Map(Object.entries(stored));
  return Object.entries(columns).every(([column, value]) => storedValues.get(column) === value);
}

/**
 * Every write to existing events goes through here: the event's row is claimed first (so that concurrent writes of
 * one event apply one after the other, each on what the previous committed) and the caller's right checked on it as
 * it now is; then, in the same transaction, term counts follow (terms/counts.ts) and the listing copies on
 * occurrences are refreshed.
 */
function writeExisting<T>(
  store: Store,
  actor: Actor,
  id: number,
  may: typeof canEditPost,
  options: WriteOptions,
  write: (trx: Trx, row: PostRow) => Promise<T>,
): Promise<T> {
  return store.transaction((trx) => writeExistingIn(trx, actor, id, may, options, write)).catch(linkedItemGone);
}

/**
 * {@link writeExisting} inside the caller's transaction. What follows the write may be left out where it cannot
 * have moved: `termCounts`, what the event's term counts depend on (see {@link movesTermCounts}), which are then not
 * read before and after it; `listing`, what its occurrences copy of it (see {@link movesListing}).
 */
async function writeExistingIn<T>(
  trx: Trx,
  actor: Actor,
  id: number,
  may: typeof canEditPost,
  options: WriteOptions,
  write: (trx: Trx, row: PostRow) => Promise<T>,
  follows: { termCounts: boolean; listing: boolean } = { termCounts: true, listing: true },
): Promise<T> {
  await lockSeriesOf(trx, id);
  const row = await claimFor(trx, actor, id, may, options);
  const result = follows.termCounts ? await withTermCounts(trx, [id], () => write(trx, row)) : await write(trx, row);
  if (follows.listing) await refreshListing(trx, [id]);
  return result;
}

/**
 * The fields an update may send that write only what the event shows of itself and what it links to: none moves its
 * stored status, publication date, author, hidden flag, terms or series. The lists below say which of those else a
 * field leaves alone; each lists the fields known to be safe, not those known to matter, so that a field added later
 * is followed until shown safe.
 */
const DESCRIPTIVE_FIELDS = [
  'title',
  'description',
  'excerpt',
  'slug',
  'image',
  'cost',
  'website',
  'show_map',
  'show_map_link',
  'sticky',
  'featured',
  'venue',
  'organizer',
];

/** The fields that leave the event's term counts, which depend only on its stored status, its terms and its series (terms/counts.ts). */
const TERM_COUNT_NEUTRAL_FIELDS: ReadonlySet<string> = new Set([...DESCRIPTIVE_FIELDS, 'hide_from_listings']);

/** The fields that leave what its occurrences copy of it for the lists: status, publication date, author, hidden flag. */
const LISTING_NEUTRAL_FIELDS: ReadonlySet<string> = new Set([...DESCRIPTIVE_FIELDS, 'categories', 'tags']);

const sendsOnly = (input: EventInput, fields: ReadonlySet<string>) =>
  Object.keys(input).every((field) => fields.has(field));

/** Whether an update sending `input` may move the event's term counts: it sends a field not known to leave them. */
export const movesTermCounts = (input: EventInput): boolean => !sendsOnly(input, TERM_COUNT_NEUTRAL_FIELDS);

/**
 * Whether an update sending `input` may change its occurrences' listing copies (occurrences/store.ts refreshListing):
 * it sends a field not known to leave them.
 */
export const movesListing = (input: EventInput): boolean => !sendsOnly(input, LISTING_NEUTRAL_FIELDS);

/** The event's row claimed for a write (posts/lifecycle.ts claimForWrite). */
const claimFor = (trx: Trx, actor: Actor, id: number, may: typeof canEditPost, options: WriteOptions) =>
  claimForWrite(trx, actor, id, may, notFound(id), options);

/**
 * D2: a merge. What was not sent keeps its stored value; `modified` always advances; `status` changes only when sent
 * (scaled back for contributors), a non-trash status restoring a trashed event; the UTC values always follow the
 * local ones and the zone.
 */
export function updateEvent(
  store: Store,
  actor: Actor,
  id: number,
  input: EventInput,
  options: WriteOptions = {},
): Promise<void> {
  return store
    .transaction((trx) => {
      // The whole transaction is this update: it writes no credentials, and the terms only as leavesTermsAlone says.
      leaveAlone(trx, 'credentials');
      if (leavesTermsAlone(input)) leaveAlone(trx, 'terms');
      return updateEventIn(trx, store, actor, id, input, options);
    })
    .catch(linkedItemGone);
}

/**
 * Whether an update sending `input` changes nothing the term snapshot keeps (core/terms/embedded-cache.ts): no term,
 * count or scheduled post. It must leave the counts (movesTermCounts), and write no other post: an inline venue or
 * organizer, or an image, may be a new one, even a scheduled one.
 */
export const leavesTermsAlone = (input: EventInput): boolean =>
  !movesTermCounts(input) && input.venue === undefined && input.organizer === undefined && input.image === undefined;

/** The write of {@link updateEvent} on the claimed `post`. */
const writeUpdate = (store: Store, actor: Actor, input: EventInput) => async (trx: Trx, post: PostRow) => {
  const id = post.id;
  // The post is the claimed row: only the event's own row is read again.
  const event = await eventRowOf(trx, id);
  if (isOccurrence(event)) {
    await updateOccurrence(trx, store, actor, { post, event }, input);
  } else {
    const { schedule, recurrence } = await applyUpdate(trx, store, actor, { post, event }, input);
    if (event.series_id !== null || input.recurrence !== undefined)
      await updateSeries(trx, store, actor, { post, event }, input, schedule, recurrence);
  }
  // D26: SEQUENCE follows the dates, title, venue and status (ical/sequence.ts).
  await followSequence(trx, id, { ...event, title: post.title, status: post.status });
};

/**
 * D25, after a write of a series' own row (or of a single event that sent `recurrence`): the rule stored and the
 * occurrences brought in line (syncSeries), the fields sent copied onto them, a trash or restore applied to all.
 */
async function updateSeries(
  trx: Trx,
  store: Store,
  actor: Actor,
  before: EventRecord,
  input: EventInput,
  schedule: EventSchedule,
  recurrence: ParsedRecurrence | null | undefined,
): Promise<void> {
  const id = before.post.id;
  if (recurrence === null) {
    // Single again: the other occurrences go.
    if (before.event.series_id !== null) await deleteSeriesMembers(trx, actor, id);
    await updateEventRow(trx, id, seriesColumns(id, null, schedule));
    await rebuildOccurrences(trx, [id]);
    return;
  }
  const logged = new Set<number>();
  if (recurrence !== undefined) {
    await updateEventRow(trx, id, seriesColumns(id, recurrence, schedule));
    await rebuildOccurrences(trx, [id]);
    const outcome = await syncSeries(trx, store, actor, id);
    for (const changed of [...outcome.created, ...outcome.updated, ...outcome.deleted]) logged.add(changed);
  }
  const after = await trx.selectFrom('posts').select('status').where('id', '=', id).executeTakeFirstOrThrow();
  const fields = overridesOf(input).filter((field) => field !== 'dates' && field !== 'status');
  if (after.status === 'trash' && before.post.status !== 'trash') await trashSeriesMembers(trx, actor, id);
  else if (before.post.status === 'trash' && after.status !== 'trash')
    await restoreSeriesMembers(trx, actor, id, after.status);
  else if (input.status !== undefined) fields.push('status');
  await copySeriesFields(trx, actor, id, fields, logged);
}

/**
 * D25: a write on one occurrence's id edits that occurrence alone (an exception: the fields it sent are kept through
 * later series edits); trashing it cancels it (its start becomes an EXDATE of the series), restoring it brings it back.
 */
async function updateOccurrence(
  trx: Trx,
  store: Store,
  actor: Actor,
  record: EventRecord,
  input: EventInput,
): Promise<void> {
  const seriesId = record.event.series_id!;
  if (input.scope === 'following') {
    // Where the occurrence will start: the rest of the rule moves with it (a 400 on bad dates before anything is written).
    const newStart = scheduleOrThrow(
      resolveSchedule(scheduleInput(input), storedSchedule(record), actor.config.siteTimezone, actor.now),
    );
    const lines = await splitSeries(trx, store, actor, record.event, newStart);
    const split = { post: record.post, event: { ...record.event, series_id: record.post.id, overrides: '' } };
    const splitInput = { ...input, recurrence: input.recurrence ?? lines };
    const { schedule, recurrence } = await applyUpdate(trx, store, actor, split, splitInput);
    await updateSeries(trx, store, actor, split, splitInput, schedule, recurrence);
    return;
  }
  if (input.recurrence !== undefined) {
    throw invalidRecurrence(
      `An occurrence has no rule of its own: change recurrence on the series (event ${seriesId}).`,
    );
  }
  await applyUpdate(trx, store, actor, record, input);
  const after = await trx
    .selectFrom('posts')
    .select('status')
    .where('id', '=', record.post.id)
    .executeTakeFirstOrThrow();
  const cancelled = after.status === 'trash' && record.post.status !== 'trash';
  const restored =
    record.post.status === 'trash' && after.status !== 'trash' && storedOverrides(record.event).includes(CANCELLED);
  const sent = overridesOf(input).filter((field) => field !== 'status' || (!cancelled && !restored));
  await setOverrides(trx, record.event, cancelled ? [...sent, CANCELLED] : sent, restored ? [CANCELLED] : []);
  if (cancelled || restored) await setExdate(trx, seriesId, record.event.occurrence_start_utc!, cancelled);
}

/**
 * The update of one event's own rows (D2), and for a series' own row the rule it now has (see
 * {@link changedRecurrence}), checked before anything is written.
 */
async function applyUpdate(
  trx: Trx,
  store: Store,
  actor: Actor,
  record: EventRecord,
  input: EventInput,
): Promise<{ schedule: EventSchedule; recurrence: ParsedRecurrence | null | undefined }> {
  const { post, event } = record;
  const siteZone = actor.config.siteTimezone;
  const schedule = scheduleOrThrow(resolveSchedule(scheduleInput(input), storedSchedule(record), siteZone, actor.now));
  const recurrence = isOccurrence(event) ? undefined : changedRecurrence(actor, input, event, schedule);
  await lockLinkedItems(trx, input);
  const venueIds = input.venue === undefined ? undefined : await linkedIds(trx, store, actor, venueKind, input.venue);
  const organizerIds =
    input.organizer === undefined ? undefined : await linkedIds(trx, store, actor, organizerKind, input.organizer);

  const published = eventPublicationDate(input, schedule.timezone, actor);
  await updatePostRow(trx, actor, 'event', post, {
    changes: postChanges(
      {
        title: input.title,
        content: input.description,
        excerpt: input.excerpt,
        author: input.author,
        password: input.password,
      },
      published,
      nowStamp(actor.now, siteZone),
    ),
    status: optionalStringArg(input, 'status'),
    slugBase: input.slug === undefined ? undefined : slugify(String(input.slug)) || post.slug,
    image: input.image,
  });

  const columns = scheduleColumns(schedule);
  const scheduleChanged = !sameSchedule(columns, event);
  await updateEventRow(trx, post.id, {
    ...(scheduleChanged ? columns : {}),
    ...sentEventColumns(input),
    ...(venueIds === undefined ? {} : { venue_id: venueIds[0] ?? null }),
  });
  if (scheduleChanged) await rebuildOccurrences(trx, [post.id]);
  if (organizerIds !== undefined) await setOrganizers(trx, post.id, organizerIds);
  await writeTerms(trx, store, actor, post.id, input);
  return { schedule, recurrence };
}

/**
 * D25: the rule a write of a series' own row (or of a single event) gives it: the one sent, else, when the series'
 * dates moved, its stored one read against the new dates; undefined when neither changes (nothing to expand again).
 */
function changedRecurrence(
  actor: Actor,
  input: EventInput,
  event: EventRecord['event'],
  schedule: EventSchedule,
): ParsedRecurrence | null | undefined {
  if (input.recurrence !== undefined) return validRecurrence(actor, input.recurrence, schedule);
  if (event.series_id === null || sameSchedule(scheduleColumns(schedule), event)) return undefined;
  return validRecurrence(actor, storedRecurrence(event), schedule);
}

/** §5.4: to the trash, with the `__trashed` slug; of two simultaneous trashes exactly one answers 410. */
export function trashEvent(store: Store, actor: Actor, id: number, options: WriteOptions = {}): Promise<void> {
  return writeExisting(store, actor, id, canDeletePost, options, writeTrash(actor));
}

/** The write of {@link trashEvent} on the claimed `row`. */
const writeTrash = (actor: Actor) => async (trx: Trx, row: PostRow) => {
  const id = row.id;
  const event = await eventRowOf(trx, id);
  await trashClaimedPost(trx, actor, 'event', row, inTrash);
  await followTrash(trx, event);
  if (isOccurrence(event)) {
    // D25: cancels this occurrence of its series.
    await setOverrides(trx, event, [CANCELLED]);
    await setExdate(trx, event.series_id!, event.occurrence_start_utc!, true);
  } else if (event.series_id !== null) {
    await trashSeriesMembers(trx, actor, id);
  }
};

/** D18: gone for good, with its occurrences, links and term counts; `snapshot` reads what it was first. */
export function deleteEvent<T>(
  store: Store,
  actor: Actor,
  id: number,
  snapshot: (trx: Trx) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  return store.transaction(async (trx) => {
    await lockSeriesOf(trx, id);
    const row = await claimFor(trx, actor, id, canDeletePost, options);
    const previous = await snapshot(trx);
    const event = await eventRowOf(trx, id);
    if (isOccurrence(event)) {
      // D25: this occurrence leaves its series for good: its start becomes an EXDATE.
      await setExdate(trx, event.series_id!, event.occurrence_start_utc!, true);
    } else if (event.series_id !== null) {
      await deleteSeriesMembers(trx, actor, id);
    }
    await withTermCounts(trx, [id], () => deletePostForever(trx, actor, 'event', row));
    return previous;
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// The batch write path of event writes (the .ics import): many writes in the caller's one transaction, each checked
// and written as its single form (createEvent, updateEvent, trashEvent) checks and writes it, the creates in a few
// statements for the whole batch. A create goes in three steps, so that a caller can tell a refusal that wrote nothing
// from one that did (after which it must roll the transaction back): checkEventCreate reads only, stageEventCreate
// writes what the create links to (inline venues and organizers, new terms), insertStagedEvents writes the events.

/** A create checked by {@link checkEventCreate}: nothing is written yet. */
export interface CheckedEventCreate {
  input: EventInput;
  schedule: EventSchedule;
  recurrence: ParsedRecurrence | null | undefined;
  published: PublicationDate | undefined;
  /** Per taxonomy sent: its values, and their term ids (undefined: some terms are to be created). */
  terms: Array<{
    param: 'categories' | 'tags';
    taxonomy: Taxonomy;
    values: Array<string | number>;
    ids: number[] | undefined;
  }>;
}

/** A create whose linked items and terms exist: what {@link insertStagedEvents} writes. */
export interface StagedEventCreate extends CheckedEventCreate {
  venueIds: number[];
  organizerIds: number[];
  termIds: number[];
}

/**
 * Every check of {@link createEvent} on `input`, in its order, reading only (terms through `terms`, one lookup for a
 * whole batch): throws the refusal createEvent would throw, before anything is written.
 */
export async function checkEventCreate(
  actor: Actor,
  input: EventInput,
  terms: TermLookup,
): Promise<CheckedEventCreate> {
  const schedule = scheduleOrThrow(resolveSchedule(scheduleInput(input), null, actor.config.siteTimezone, actor.now));
  const recurrence = validRecurrence(actor, input.recurrence, schedule);
  if (input.venue !== undefined && 'csv' in input.venue) throw couldNotCreate(venueKind);
  if (input.organizer !== undefined && 'csv' in input.organizer) throw couldNotCreate(organizerKind);
  const published = eventPublicationDate(input, schedule.timezone, actor);
  if (!imageAllowed(actor, input.image)) throw invalidField('image');
  const checked: CheckedEventCreate = { input, schedule, recurrence, published, terms: [] };
  for (const [param, taxonomy] of TAXONOMY_PARAMS) {
    if (input[param] === undefined) continue;
    const values = termValues(input[param]);
    const result = await terms.resolve(actor, taxonomy, values);
    if ('refused' in result) throw termNotCreatable(param, result.refused);
    checked.terms.push({ param, taxonomy, values, ids: 'ids' in result ? result.ids : undefined });
  }
  return checked;
}

/**
 * Writes what a checked create links to, in `trx`: its inline venues and organizers (or the duplicates they reuse) and
 * its new terms, as createEvent writes them. A refusal from here (a concurrent write changed what the check read) comes
 * after writes: the caller must roll `trx` back.
 */
export async function stageEventCreate(
  trx: Trx,
  store: Store,
  actor: Actor,
  checked: CheckedEventCreate,
  terms: TermLookup,
): Promise<StagedEventCreate> {
  const { input } = checked;
  const venueIds = input.venue === undefined ? [] : await linkedIds(trx, store, actor, venueKind, input.venue);
  const organizerIds =
    input.organizer === undefined ? [] : await linkedIds(trx, store, actor, organizerKind, input.organizer);
  const termIds: number[] = [];
  for (const { param, taxonomy, values, ids } of checked.terms) {
    if (ids !== undefined) {
      termIds.push(...ids);
      continue;
    }
    const result = await resolveTermsForWrite(trx, store, actor, taxonomy, values);
    terms.forget(taxonomy, values);
    if (!result.ok) throw termNotCreatable(param, result.name);
    termIds.push(...result.ids);
  }
  return { ...checked, venueIds, organizerIds, termIds: [...new Set(termIds)] };
}

/** The name an inline venue or organizer is known by among a batch's: as stored, in lower case. */
const inlineName = (kind: LinkedPostKind, fields: Sent) => sanitizeTitle(String(fields[kind.nameKey])).toLowerCase();

/**
 * {@link stageEventCreate} for many checked creates (the import's new events). The venues and organizers they send
 * inline are written first, together (linked/service.ts createLinkedItems), one per name: creates naming the same new
 * item (case-insensitive) link the one the first of them describes, as a later event links an item found by its
 * name. Then each create is staged as stageEventCreate stages it. Answers each one's staged create, or what refused
 * it (the error stageEventCreate would throw), in order; like stageEventCreate, a refusal comes after writes.
 */
export async function stageEventCreates(
  trx: Trx,
  store: Store,
  actor: Actor,
  checked: readonly CheckedEventCreate[],
  terms: TermLookup,
): Promise<Array<StagedEventCreate | { refused: unknown }>> {
  // Venues, then organizers: one order of their name locks for every writer. Should writing them together fail (a
  // concurrent write took a duplicate away, an image refused), it is undone, and each create writes its own as
  // stageEventCreate does, so that what refuses is the create it belongs to.
  const linked = await underSavepoint(trx, 'inline_linked_items', async () => {
    const ids = { venue: new Map<string, number>(), organizer: new Map<string, number>() };
    for (const field of ['venue', 'organizer'] as const) {
      const kind = field === 'venue' ? venueKind : organizerKind;
      const firstByName = new Map<string, Sent>();
      for (const { input } of checked) {
        const sent = input[field];
        if (sent === undefined || 'csv' in sent) continue;
        for (const ref of sent.refs) {
          if (!('fields' in ref)) continue;
          const name = inlineName(kind, ref.fields);
          if (!firstByName.has(name)) firstByName.set(name, ref.fields);
        }
      }
      const written = await createLinkedItems(trx, store, actor, kind, [...firstByName.values()]);
      for (const [index, name] of [...firstByName.keys()].entries()) ids[field].set(name, written[index]);
    }
    return ids;
  }).catch(() => undefined);
  const byId = (field: 'venue' | 'organizer', input: LinkedInput | undefined): LinkedInput | undefined => {
    if (input === undefined || 'csv' in input || linked === undefined) return input;
    const kind = field === 'venue' ? venueKind : organizerKind;
    return {
      refs: input.refs.map((ref) => ('id' in ref ? ref : { id: linked[field].get(inlineName(kind, ref.fields))! })),
    };
  };
  const outcomes: Array<StagedEventCreate | { refused: unknown }> = [];
  for (const create of checked) {
    const input = { ...create.input };
    if (input.venue !== undefined) input.venue = byId('venue', input.venue);
    if (input.organizer !== undefined) input.organizer = byId('organizer', input.organizer);
    try {
      outcomes.push(await stageEventCreate(trx, store, actor, { ...create, input }, terms));
    } catch (error) {
      outcomes.push({ refused: error });
    }
  }
  return outcomes;
}

/**
 * Writes staged creates in `trx`, in a few statements whatever their number: the same rows, occurrences, links, term
 * counts, series and change-log records as one createEvent each. Answers the new ids in input order. With `finished`
 * (the caller writes nothing more of these events in `trx`), the followers are told how the events were left, as
 * createEvent tells them of its one, and read nothing of them.
 */
export async function insertStagedEvents(
  trx: Trx,
  store: Store,
  actor: Actor,
  staged: readonly StagedEventCreate[],
  { finished = false }: { finished?: boolean } = {},
): Promise<number[]> {
  if (staged.length === 0) return [];
  const posts = await createPostsOf(
    trx,
    actor,
    'event',
    staged.map(({ input, published }) => newEventPost(actor, input, published)),
  );
  const ids = posts.map((post) => post.id);
  const rows = staged.map(({ input, schedule, recurrence, venueIds }, index) =>
    newEventRow(ids[index], input, schedule, recurrence, venueIds),
  );
  // The row writer takes rows of one set of columns: a column a row leaves out keeps the table's default, as in createEvent.
  const byColumns = new Map<string, typeof rows>();
  for (const row of rows) {
    const key = Object.keys(row).sort().join();
    byColumns.set(key, [...(byColumns.get(key) ?? []), row]);
  }
  const events = new Map<number, EventRow>();
  for (const group of byColumns.values())
    for (const event of await insertEventRowsReturningAll(trx, group)) events.set(event.id, event);
  await rebuildOccurrences(trx, ids);
  const organizerIds = staged.map(({ organizerIds }) => [...new Set(organizerIds)]);
  await insertOrganizerLinks(
    trx,
    organizerIds.flatMap((linked, index) =>
      linked.map((organizerId, position) => ({
        event_id: ids[index],
        organizer_id: organizerId,
        position,
      })),
    ),
  );
  // A new event counts for its terms when stored as published (a series by its own row, D25).
  await insertNewEventTerms(
    trx,
    staged.map(({ termIds }, index) => ({
      eventId: ids[index],
      published: posts[index].status === 'publish',
      termIds,
    })),
  );
  for (const [index, { recurrence, termIds }] of staged.entries()) {
    // A series goes on writing its row and its occurrences: what follows it reads them.
    if (recurrence) await syncSeries(trx, store, actor, ids[index]);
    else if (finished)
      followCreatedEvent(trx, {
        post: posts[index],
        event: events.get(ids[index])!,
        organizerIds: organizerIds[index],
        termIds,
      });
  }
  return ids;
}

/** {@link updateEvent} in the caller's transaction `trx` (a foreign-key violation is the caller's to handle). */
export function updateEventIn(
  trx: Trx,
  store: Store,
  actor: Actor,
  id: number,
  input: EventInput,
  options: WriteOptions = {},
): Promise<void> {
  return writeExistingIn(trx, actor, id, canEditPost, options, writeUpdate(store, actor, input), {
    termCounts: movesTermCounts(input),
    listing: movesListing(input),
  });
}

/** {@link trashEvent} in the caller's transaction `trx`. */
export function trashEventIn(trx: Trx, actor: Actor, id: number, options: WriteOptions = {}): Promise<void> {
  return writeExistingIn(trx, actor, id, canDeletePost, options, writeTrash(actor));
}
