// Renders the stored documents (D34) of the items a transaction changed, in that transaction: the owner of the
// documents follows the change log's record (change-log/log.ts onChangesRecorded), so every writer that records its
// changes keeps the documents exact without knowing of them. A document is kept only for an item whose answer is the
// same for every reader who may read it and does not depend on the clock (published, no password); every other
// item's document is deleted, and its readers render it live.
import type { Actor } from '../../domain/actor.ts';
import { storeOf, type Trx } from '../../store/store.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { loadLinked, serializeLinked } from '../linked/serialize.ts';
import { loadEventBundle, serializeEvent, type EventBundle } from '../events/serialize.ts';
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
  const alone: EventBundle = { ...bundle, venues: new Map(), organizers: new Map() };
  const hasVenue = bundle.records.get(id)!.event.venue_id !== null;
  const { json_ld: ld, ...object } = serializeEvent(anyone(context), alone, id, { single: true });
  const entry = JSON.stringify({
    ...object,
    categories: token('categories'),
    tags: token('tags'),
    venue: hasVenue ? token('venue') : [],
    organizer: token('organizer'),
  });
  const item = `${entry.slice(0, -1)},"json_ld":${JSON.stringify(jsonLdTemplate(ld as Record<string, unknown>, hasVenue))}}`;
  return { item, entry };
}

/**
 * Takes the documents' locks of `ids` (in id order, so that two renders never wait on each other in a circle) before
 * anything is read for them. Two transactions may render one item (an event's own write, and a venue's trash that
 * unlinks it): with several processes on PostgreSQL, the second to lock reads after the first has committed, so the
 * document last written is always rendered from the item's latest state. A no-op on SQLite, which has one writer.
 */
async function lockDocuments(trx: Trx, ids: readonly number[]): Promise<void> {
  const store = storeOf(trx);
  if (store.writers === 'one') return;
  for (const id of [...ids].sort((a, b) => a - b)) await store.lock(trx, `document:${id}`);
}

/** Renders (or deletes) the documents of events `ids`. */
export async function renderEventDocuments(trx: Trx, context: RenderContext, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await lockDocuments(trx, ids);
  const bundle = await loadEventBundle(trx, anyone(context), ids);
  const fingerprint = documentFingerprint(context.config);
  const rows: EventDocumentRow[] = [];
  const gone: number[] = [];
  for (const id of ids) {
    const record = bundle.records.get(id);
    if (record?.post.status !== 'publish' || record.post.password !== '') {
      gone.push(id);
      continue;
    }
    const terms = bundle.terms.get(id) ?? { categories: [], tags: [] };
    rows.push({
      event_id: id,
      fingerprint,
      ...eventTemplates(context, bundle, id),
      venue_id: record.event.venue_id,
      organizer_ids: JSON.stringify(bundle.organizerIds.get(id) ?? []),
      term_ids: JSON.stringify([...terms.categories, ...terms.tags].map((term) => term.id)),
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
  await lockDocuments(trx, ids);
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
