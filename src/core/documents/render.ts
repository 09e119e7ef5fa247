// Renders the stored documents (D34) of the items a transaction changed, in that transaction: the owner of the
// documents follows the change log's record (change-log/log.ts onChangesRecorded), so every writer that records its
// changes keeps the documents exact without knowing of them. A document is kept only for an item whose answer is the
// same for every reader who may read it and does not depend on the clock (published, no password); every other
// item's document is deleted, and its readers render it live. Each item's lock is taken before it is read
// (item-locks.ts): with several processes on PostgreSQL, the document last written is always rendered from the item's
// latest state (a venue's trash that unlinks an event and the event's own write may both render it).
import type { Actor } from '../../domain/actor.ts';
import type { Trx } from '../../store/store.ts';
import { lockItems } from '../item-locks.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { loadLinked, serializeLinked } from '../linked/serialize.ts';
import { serializeSingleEvent, type EventBundle } from '../events/serialize.ts';
import { readFollowedEvents } from '../events/followed.ts';
import { loadImages } from '../images/images.ts';
import { documentFingerprint } from './fingerprint.ts';
import {
  deleteEventDocuments,
  deleteLinkedDocuments,
  writeEventDocuments,
  writeLinkedDocuments,
  type EventDocumentRow,
  type LinkedDocumentRow,
} from './store.ts';
import { token } from './template.ts';

/** Who documents are rendered for: anyone (no viewer); the time only decides nothing a stored document shows. */
export type RenderContext = Omit<Actor, 'viewer'>;

const anyone = (context: RenderContext): Actor => ({ ...context, viewer: null });

/**
 * The event's `json_ld` with tokens for what its venue and organizers give it, in the key order serializeEvent
 * writes (after `endDate`): filled when read, or left out with their keys when the venue or organizers have none.
 */
function jsonLdTemplate(ld: Record<string, unknown>, hasVenue: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(ld)) {
    out[key] = value;
    if (key === 'endDate') {
      if (hasVenue) out.location = token('ld-location');
      out.organizer = token('ld-organizer');
    }
  }
  return out;
}

/**
 * The event's two templates: rendered with no venue or organizer, whose places then get tokens. The list form is the
 * single form without its last key, `json_ld`: rendered once, encoded once.
 */
export function eventTemplates(
  context: RenderContext,
  bundle: EventBundle,
  id: number,
): { item: string; entry: string } {
  // No venue or organizer: the serialiser leaves them out (and out of json_ld), and the tokens go in their places.
  const alone: EventBundle = { ...bundle, venues: new Map(), organizers: new Map() };
  const hasVenue = bundle.records.get(id)!.event.venue_id !== null;
  const { object, jsonLd } = serializeSingleEvent(anyone(context), alone, id);
  const entry = JSON.stringify({
    ...object,
    categories: token('categories'),
    tags: token('tags'),
    venue: hasVenue ? token('venue') : [],
    organizer: token('organizer'),
  });
  const item = `${entry.slice(0, -1)},"json_ld":${JSON.stringify(jsonLdTemplate(jsonLd, hasVenue))}}`;
  return { item, entry };
}

/** Renders (or deletes) the documents of events `ids`. */
export async function renderEventDocuments(trx: Trx, context: RenderContext, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  // What the templates need: not the venues, organizers and term objects, whose places get tokens.
  const { records, organizerIds, termIds } = await readFollowedEvents(trx, ids);
  const images = await loadImages(
    trx,
    [...records.values()].map(({ post }) => post.image_id),
  );
  const bundle: EventBundle = {
    records,
    images,
    venues: new Map(),
    organizerIds,
    organizers: new Map(),
    terms: new Map(),
  };
  const fingerprint = documentFingerprint(context.config);
  const rows: EventDocumentRow[] = [];
  const gone: number[] = [];
  for (const id of ids) {
    const record = bundle.records.get(id);
    if (record?.post.status !== 'publish' || record.post.password !== '') {
      gone.push(id);
      continue;
    }
    rows.push({
      event_id: id,
      fingerprint,
      ...eventTemplates(context, bundle, id),
      venue_id: record.event.venue_id,
      organizer_ids: JSON.stringify(bundle.organizerIds.get(id) ?? []),
      term_ids: JSON.stringify(termIds.get(id) ?? []),
      modified_utc: record.post.modified_utc,
    });
  }
  await deleteEventDocuments(trx, gone);
  await writeEventDocuments(trx, rows);
}

/** Renders (or deletes) the documents of venues or organizers `ids`. */
export async function renderLinkedDocuments(
  trx: Trx,
  context: RenderContext,
  kind: LinkedPostKind,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  await lockItems(trx, ids);
  const records = await loadLinked(trx, kind, ids);
  const fingerprint = documentFingerprint(context.config);
  const rows: LinkedDocumentRow[] = [];
  const gone: number[] = [];
  for (const id of ids) {
    const record = records.get(id);
    if (record?.post.status !== 'publish') {
      gone.push(id);
      continue;
    }
    const item = serializeLinked(context, kind, record, { single: true });
    const entry = serializeLinked(context, kind, record, { single: false });
    rows.push({
      post_id: id,
      fingerprint,
      item: JSON.stringify(item),
      entry: JSON.stringify(entry),
      json_ld: item.json_ld === undefined ? '' : JSON.stringify(item.json_ld),
    });
  }
  await deleteLinkedDocuments(trx, gone);
  await writeLinkedDocuments(trx, rows);
}
