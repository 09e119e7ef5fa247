// Event writes (§5.2–§5.4, D2, D3, D5, D16–D18): each runs inside the caller's transaction, so a failure leaves
// nothing behind (no event, no inline venue, no new term).
import type { Updateable } from 'kysely';
import { scaleBackStatus } from '../../domain/access.ts';
import { utcToLocal } from '../../domain/dates.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify, trashedSlug } from '../../domain/slugs.ts';
import { toList } from '../../http/args.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParam } from '../../http/errors.ts';
import type { EventsTable } from '../../store/schema.ts';
import type { Trx } from '../../store/store.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { createLinked, writeImage, type Sent } from '../linked/service.ts';
import { organizerKind } from '../organizers/kind.ts';
import { nowStamp, postChanges, publicationDate, scheduleStatus, type PublicationDate } from '../posts/fields.ts';
import { changeSlug, deletePost, findPostById, insertPost, restorePost, trashPost, updatePost, type PostRow } from '../posts/store.ts';
import { countNewEvents, withTermCounts } from '../terms/counts.ts';
import { resolveTermsForWrite, setEventTerms, type Taxonomy } from '../terms/service.ts';
import { venueKind } from '../venues/kind.ts';
import { linkedInput } from './linked-input.ts';
import { isWpValue, resolveSchedule, type EventSchedule, type ScheduleResult, type StoredSchedule } from './schedule.ts';
import { costColumns, insertEventRow, refreshListing, scheduleColumns, setOrganizers, updateEventRow, writeOccurrences, type EventRecord } from './store.ts';

export type { Sent };

const FLAGS = ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const;
const TAXONOMY_PARAMS: ReadonlyArray<[param: 'categories' | 'tags', taxonomy: Taxonomy]> = [['categories', 'event_category'], ['tags', 'event_tag']];

/** D3, and the rare date that reads in the site zone (validation) but not in the event's. */
function scheduleOrThrow(result: ScheduleResult): EventSchedule {
  if (result.ok) return result.schedule;
  if (result.problem === 'range') {
    throw invalidParam('end_date', { code: 'rest_invalid_date_range', message: 'end_date must not be before start_date.', data: { param: 'end_date' } });
  }
  throw invalidParam(result.problem);
}

const scheduleInput = (sent: Sent) => ({
  start: sent.start_date,
  end: sent.end_date,
  timezone: sent.timezone as string | undefined,
  allDay: sent.all_day as boolean | undefined,
});

/** §5.2: the publication date is read in the event's zone; the post keeps it in the site's. */
function eventPublicationDate(sent: Sent, zone: string, ctx: RequestContext): PublicationDate | undefined {
  const published = publicationDate(sent, zone, ctx.now);
  if (!published) return undefined;
  const local = isWpValue(published.utc) ? utcToLocal(published.utc, ctx.config.siteTimezone) : '';
  if (!isWpValue(local)) throw invalidParam(sent.date_utc !== undefined ? 'date_utc' : 'date');
  return { utc: published.utc, local };
}

const couldNotCreate = (kind: LinkedPostKind) =>
  new ApiError(400, `could-not-create-${kind.type}`, `The ${kind.type} could not be created from the provided data`);

/** The ids a validated `venue`/`organizer` field names, creating (or de-duplicating, D16) inline items. */
async function linkedIds(trx: Trx, ctx: RequestContext, kind: LinkedPostKind, value: unknown): Promise<number[]> {
  const input = (await linkedInput(ctx, kind, value))!;
  if ('csv' in input) throw couldNotCreate(kind);
  const ids: number[] = [];
  for (const ref of input.refs) ids.push('id' in ref ? ref.id : (await createLinked(trx, ctx, kind, ref.fields)).id);
  return ids;
}

/** Numeric items are term ids, as in the reference. */
const termValues = (value: unknown) => toList(value)!.map((item) => (/^\d+$/.test(item) ? Number(item) : item));

/** Replaces the sent taxonomies; an unknown name the caller may not create is a 400 (D16). */
async function writeTerms(trx: Trx, ctx: RequestContext, eventId: number, sent: Sent): Promise<void> {
  for (const [param, taxonomy] of TAXONOMY_PARAMS) {
    if (sent[param] === undefined) continue;
    const result = await resolveTermsForWrite(trx, ctx, taxonomy, termValues(sent[param]));
    if (!result.ok) {
      throw invalidParam(param, { code: 'rest_term_not_creatable', message: `"${result.name}" does not exist, and you are not allowed to create it.`, data: { param } });
    }
    await setEventTerms(trx, eventId, taxonomy, result.ids);
  }
}

/** The event columns a request sets besides the schedule: only what was sent (D2). */
function sentEventColumns(sent: Sent): Updateable<EventsTable> {
  const columns: Updateable<EventsTable> = sent.cost === undefined ? {} : costColumns(sent.cost);
  if (sent.website !== undefined) columns.website = String(sent.website).trim();
  for (const name of FLAGS) if (sent[name] !== undefined) columns[name] = sent[name] ? 1 : 0;
  return columns;
}

/** §5.2; returns the new event's id. */
export async function createEvent(trx: Trx, ctx: RequestContext, sent: Sent): Promise<number> {
  const siteZone = ctx.config.siteTimezone;
  const schedule = scheduleOrThrow(resolveSchedule(scheduleInput(sent), null, siteZone, ctx.now));
  // Linked items first: a CSV string of ids is refused before anything is written.
  const venueIds = sent.venue === undefined ? [] : await linkedIds(trx, ctx, venueKind, sent.venue);
  const organizerIds = sent.organizer === undefined ? [] : await linkedIds(trx, ctx, organizerKind, sent.organizer);

  const stamp = nowStamp(ctx.now, siteZone);
  const published = eventPublicationDate(sent, schedule.timezone, ctx) ?? stamp;
  const authorId = (sent.author as number | undefined) ?? ctx.viewer!.id;
  const title = sanitizeTitle(String(sent.title));
  const post = await insertPost(trx, {
    type: 'event',
    author_id: authorId,
    status: scheduleStatus(scaleBackStatus(ctx.viewer, sent.status as string | undefined), published.utc, ctx.now),
    title,
    content: sent.description === undefined ? '' : sanitizeHtml(String(sent.description)),
    excerpt: sent.excerpt === undefined ? '' : sanitizeHtml(String(sent.excerpt)),
    password: (sent.password as string | undefined) ?? '',
    date_local: published.local,
    date_utc: published.utc,
    modified_local: stamp.local,
    modified_utc: stamp.utc,
  }, slugify(String(sent.slug ?? '')) || slugify(title) || 'event');

  const imageId = await writeImage(trx, sent, authorId, ctx);
  if (imageId) await updatePost(trx, post.id, { image_id: imageId });
  await insertEventRow(trx, {
    id: post.id,
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
    ...sentEventColumns(sent),
    venue_id: venueIds[0] ?? null,
  });
  await writeOccurrences(trx, post.id, schedule);
  await setOrganizers(trx, post.id, organizerIds);
  await writeTerms(trx, ctx, post.id, sent);
  await countNewEvents(trx, [post.id]);
  await refreshListing(trx, [post.id]);
  return post.id;
}

const storedSchedule = (record: EventRecord): StoredSchedule => ({
  timezone: record.event.timezone,
  allDay: record.event.all_day === 1,
  startLocal: record.event.start_local,
  endLocal: record.event.end_local,
});

const sameSchedule = (columns: ReturnType<typeof scheduleColumns>, stored: EventRecord['event']) =>
  (Object.keys(columns) as Array<keyof typeof columns>).every((key) => columns[key] === stored[key]);

/**
 * D2: a merge. What was not sent keeps its stored value; `modified` always advances; `status` changes only when sent
 * (scaled back for contributors), a non-trash status restoring a trashed event; the UTC values always follow the
 * local ones and the zone.
 */
/**
 * Every write to existing events goes through here: in the same transaction, term counts follow (terms/counts.ts)
 * and the listing copies on occurrences are refreshed (store.ts refreshListing).
 */
async function keepDerivedData<T>(trx: Trx, eventIds: readonly number[], write: () => Promise<T>): Promise<T> {
  const result = await withTermCounts(trx, eventIds, write);
  await refreshListing(trx, eventIds);
  return result;
}

export function updateEvent(trx: Trx, ctx: RequestContext, record: EventRecord, sent: Sent): Promise<void> {
  return keepDerivedData(trx, [record.post.id], () => applyUpdate(trx, ctx, record, sent));
}

async function applyUpdate(trx: Trx, ctx: RequestContext, record: EventRecord, sent: Sent): Promise<void> {
  const { post, event } = record;
  const siteZone = ctx.config.siteTimezone;
  const schedule = scheduleOrThrow(resolveSchedule(scheduleInput(sent), storedSchedule(record), siteZone, ctx.now));
  const venueIds = sent.venue === undefined ? undefined : await linkedIds(trx, ctx, venueKind, sent.venue);
  const organizerIds = sent.organizer === undefined ? undefined : await linkedIds(trx, ctx, organizerKind, sent.organizer);

  const stamp = nowStamp(ctx.now, siteZone);
  const published = eventPublicationDate(sent, schedule.timezone, ctx);
  const changes = postChanges(
    { title: sent.title, content: sent.description, excerpt: sent.excerpt, author: sent.author, password: sent.password }, published, stamp);
  const imageId = await writeImage(trx, sent, post.author_id, ctx);
  if (imageId !== undefined) changes.image_id = imageId;
  await updatePost(trx, post.id, changes);

  const status = sent.status === undefined
    ? undefined
    : scheduleStatus(scaleBackStatus(ctx.viewer, sent.status as string), published?.utc ?? post.date_utc, ctx.now);
  const staysTrashed = post.status === 'trash' && (status === undefined || status === 'trash');
  let current: PostRow = post;
  if (sent.slug !== undefined) {
    const base = slugify(String(sent.slug)) || post.slug;
    current = { ...post, slug: await changeSlug(trx, post, staysTrashed ? trashedSlug(base) : base) };
  }
  if (status === 'trash' && post.status !== 'trash') await trashPost(trx, current, stamp);
  else if (post.status === 'trash' && status !== undefined && status !== 'trash') await restorePost(trx, current, status);
  else if (status !== undefined && status !== 'trash') await updatePost(trx, post.id, { status });

  const columns = scheduleColumns(schedule);
  const scheduleChanged = !sameSchedule(columns, event);
  await updateEventRow(trx, post.id, {
    ...(scheduleChanged ? columns : {}),
    ...sentEventColumns(sent),
    ...(venueIds === undefined ? {} : { venue_id: venueIds[0] ?? null }),
  });
  if (scheduleChanged) await writeOccurrences(trx, post.id, schedule);
  if (organizerIds !== undefined) await setOrganizers(trx, post.id, organizerIds);
  await writeTerms(trx, ctx, post.id, sent);
}

/**
 * §5.4: to the trash, with the `__trashed` slug. The first write claims the row (it waits for a concurrent delete and
 * then sees its result), so of two concurrent deletes exactly one answers 410.
 */
export function trashEvent(trx: Trx, ctx: RequestContext, id: number): Promise<void> {
  return keepDerivedData(trx, [id], () => moveToTrash(trx, ctx, id));
}

/** D18: gone for good, with its occurrences, links and term counts. */
export function deleteEvent(trx: Trx, id: number): Promise<void> {
  return withTermCounts(trx, [id], () => deletePost(trx, id));
}

async function moveToTrash(trx: Trx, ctx: RequestContext, id: number): Promise<void> {
  const stamp = nowStamp(ctx.now, ctx.config.siteTimezone);
  const claimed = await trx.updateTable('posts').set({ modified_local: stamp.local, modified_utc: stamp.utc })
    .where('id', '=', id).where('status', '!=', 'trash')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) throw new ApiError(410, 'event-is-in-trash', 'The event is already trashed');
  await trashPost(trx, (await findPostById(trx, id))!, stamp);
}
