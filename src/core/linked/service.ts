// Venue and organizer writes (§7, D2, D4, D16, D18) on the one post lifecycle (posts/lifecycle.ts). Entry points take
// the store and run one transaction each; `createLinked` also runs inside an event write's transaction for inline
// venues and organizers.
import { lockItems } from '../item-locks.ts';
import { optionalNumberArg, optionalStringArg } from '../input/values.ts';
import { sql } from 'kysely';
import { canDeletePost, canEditPost } from '../../domain/access.ts';
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { DomainError, invalidField } from '../../domain/errors.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify, trashedSlug } from '../../domain/slugs.ts';
import { recordChanges } from '../change-log/log.ts';
import type { Db, Store, Trx } from '../../store/store.ts';
import { nowStamp, postChanges, postLike, publicationDate } from '../posts/fields.ts';
import {
  claimExisting,
  claimForWrite,
  createPost,
  createPostsOf,
  deletePostForever,
  trashClaimedPost,
  updatePostRow,
  type OnTrash,
  type WriteOptions,
} from '../posts/lifecycle.ts';
import type { PostRow, PostType } from '../posts/store.ts';
import type { LinkedPostKind } from './kind.ts';
import { insertMetaRow, insertMetaRows, updateMetaRow } from './store.ts';

export type Sent = Record<string, unknown>;

/** Deleted while the request waited: as if the id had never named one. */
const notFound = (_kind: LinkedPostKind) => () => invalidField('id');
const inTrash = (kind: LinkedPostKind) => () => new DomainError('gone', ...kind.messages.inTrash);

/**
 * §7.2 duplicate avoidance: a non-trashed item with the same name and, when a description is sent, the same content
 * (both case-insensitive). D16: only items the caller may edit are candidates. Creates of one name take a lock on it
 * first, so that simultaneous creates find each other's item instead of each adding one.
 */
async function findDuplicate(
  trx: Trx,
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  name: string,
  content: string | undefined,
): Promise<PostRow | undefined> {
  await store.lock(trx, `${kind.type}-name:${name.toLowerCase()}`);
  const nowUtc = formatWp(actor.now);
  return (await duplicateCandidates(trx, store, kind.type, name, content).execute()).find((row) =>
    canEditPost(actor.viewer, postLike(row), nowUtc),
  );
}

/** D31: the rows of one name, found through the `posts_type_lower_title` index (migration 0009), never a scan. */
export function duplicateCandidates(
  db: Db,
  store: Pick<Store, 'lower'>,
  type: PostType,
  name: string,
  content: string | undefined,
) {
  let query = db
    .selectFrom('posts')
    .selectAll()
    .where('type', '=', type)
    .where('status', '!=', 'trash')
    .where(store.lower(sql.ref('title')), '=', name.toLowerCase())
    .orderBy('id');
  // The reference compares in its database's case-insensitive collation: the description in other letter case is the same.
  if (content !== undefined) query = query.where(store.lower(sql.ref('content')), '=', content.toLowerCase());
  return query;
}

/** A trashed or deleted item leaves its events (which are logged as updated: they no longer show it). */
const unlinkFromEvents =
  (kind: LinkedPostKind): OnTrash =>
  async (trx, row) => {
    await kind.unlinkFromEvents(trx, row.id);
  };

/** Creates the item, or reuses a duplicate and writes the sent fields onto it (`reused` tells which). */
export async function createLinked(
  trx: Trx,
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  sent: Sent,
): Promise<{ id: number; reused: boolean }> {
  const name = sanitizeTitle(String(sent[kind.nameKey]));
  const content = sent.description === undefined ? undefined : sanitizeHtml(String(sent.description));

  const duplicate = await findDuplicate(trx, store, actor, kind, name, content);
  if (duplicate) {
    // Only the item's own fields are written onto it: its name, status, author and publication date stay.
    const meta = Object.fromEntries([...kind.fieldNames, 'image'].map((key) => [key, sent[key]]));
    await updateLinked(trx, actor, kind, await claimExisting(trx, duplicate.id, notFound(kind)), meta);
    return { id: duplicate.id, reused: true };
  }

  const published = publicationDate(sent, actor.config.siteTimezone, actor.now);
  const status = optionalStringArg(sent, 'status');
  const post = await createPost(trx, actor, {
    type: kind.type,
    author_id: optionalNumberArg(sent, 'author') ?? actor.viewer!.id,
    status,
    title: name,
    content: content ?? '',
    excerpt: '',
    published,
    slugBase: status === 'trash' ? trashedSlug(slugify(name) || kind.type) : slugify(name) || kind.type,
    image: sent.image,
  });
  await insertMetaRow(trx, kind.metaTable, { id: post.id, ...kind.metaForCreate(sent) });
  return { id: post.id, reused: false };
}

/**
 * {@link createLinked} for many items of one kind in `trx` (the import's new venues and organizers): the names locked
 * in one statement, their duplicates read in one, the new items written in a few whatever their number, with the
 * same columns, slugs, statuses, images and change-log records. An item whose name has a duplicate (§7.2) is written
 * by createLinked itself, reused and updated as one create would. The caller sends each name (case-insensitive) once.
 * Answers the ids in input order.
 */
export async function createLinkedItems(
  trx: Trx,
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  sentItems: readonly Sent[],
): Promise<number[]> {
  if (sentItems.length === 0) return [];
  const items = sentItems.map((sent) => {
    const name = sanitizeTitle(String(sent[kind.nameKey]));
    const content = sent.description === undefined ? undefined : sanitizeHtml(String(sent.description));
    return { sent, name, lowerName: name.toLowerCase(), lowerContent: content?.toLowerCase(), content };
  });
  const names = [...new Set(items.map((item) => item.lowerName))].sort();
  // findDuplicate's locks, taken together in one order (two imports naming the same places cannot deadlock).
  await store.lockAll(
    trx,
    names.map((name) => `${kind.type}-name:${name}`),
  );
  const nowUtc = formatWp(actor.now);
  // findDuplicate's candidates of every name at once, compared as its query compares them (the stored text lowered by
  // the database, the sent text by JavaScript).
  const candidates = (
    await trx
      .selectFrom('posts')
      .selectAll()
      .select([store.lower(sql.ref('title')).as('lower_title'), store.lower(sql.ref('content')).as('lower_content')])
      .where('type', '=', kind.type)
      .where('status', '!=', 'trash')
      .where(store.lower(sql.ref('title')), 'in', names)
      .execute()
  ).filter((row) => canEditPost(actor.viewer, postLike(row), nowUtc));
  const hasDuplicate = (item: (typeof items)[number]) =>
    candidates.some(
      (row) =>
        row.lower_title === item.lowerName &&
        (item.lowerContent === undefined || row.lower_content === item.lowerContent),
    );

  const ids: number[] = new Array(items.length);
  const fresh = items.flatMap((item, index) => (hasDuplicate(item) ? [] : [{ ...item, index }]));
  const created = await createPostsOf(
    trx,
    actor,
    kind.type,
    fresh.map(({ sent, name, content }) => {
      const status = optionalStringArg(sent, 'status');
      return {
        author_id: optionalNumberArg(sent, 'author') ?? actor.viewer!.id,
        status,
        title: name,
        content: content ?? '',
        excerpt: '',
        published: publicationDate(sent, actor.config.siteTimezone, actor.now),
        slugBase: status === 'trash' ? trashedSlug(slugify(name) || kind.type) : slugify(name) || kind.type,
        image: sent.image,
      };
    }),
  );
  if (created.length > 0)
    await insertMetaRows(
      trx,
      kind.metaTable,
      created.map((post, position) => ({ id: post.id, ...kind.metaForCreate(fresh[position].sent) })),
    );
  for (const [position, item] of fresh.entries()) ids[item.index] = created[position].id;
  for (const [index, item] of items.entries())
    if (ids[index] === undefined) ids[index] = (await createLinked(trx, store, actor, kind, item.sent)).id;
  return ids;
}

/** D2/D4 on the claimed `row`: only what was sent changes; `modified` always advances. */
async function updateLinked(trx: Trx, actor: Actor, kind: LinkedPostKind, row: PostRow, sent: Sent): Promise<void> {
  const published = publicationDate(sent, actor.config.siteTimezone, actor.now);
  const stamp = nowStamp(actor.now, actor.config.siteTimezone);
  await updatePostRow(
    trx,
    actor,
    kind.type,
    row,
    {
      changes: postChanges(
        { title: sent[kind.nameKey], content: sent.description, author: sent.author },
        published,
        stamp,
      ),
      status: optionalStringArg(sent, 'status'),
      image: sent.image,
    },
    unlinkFromEvents(kind),
  );
  await updateMetaRow(trx, kind.metaTable, row.id, kind.metaChanges(sent));
  await logEmbeddingEvents(trx, kind, row.id);
}

/**
 * Events that embed the item show its new state (name, address, status, url…): they changed too, so that a sync client
 * (D24) or an ETag (D22) never keeps the old copy. A trashed item has left its events already (unlinkFromEvents).
 */
async function logEmbeddingEvents(trx: Trx, kind: LinkedPostKind, id: number): Promise<void> {
  const rows =
    kind.type === 'venue'
      ? await trx.selectFrom('events').select('id as event_id').where('venue_id', '=', id).orderBy('id').execute()
      : await trx
          .selectFrom('event_organizers')
          .select('event_id')
          .distinct()
          .where('organizer_id', '=', id)
          .orderBy('event_id')
          .execute();
  recordChanges(
    trx,
    'event',
    rows.map((row) => row.event_id),
    'updated',
    { embedded: true },
  );
}

/** POST /venues, /organizers: one item (or the reused duplicate). */
export function createLinkedItem(
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  sent: Sent,
): Promise<{ id: number; reused: boolean }> {
  return store.transaction((trx) => createLinked(trx, store, actor, kind, sent));
}

/**
 * The item's row claimed for a write (posts/lifecycle.ts claimForWrite), after the item's lock: an event write that
 * links the item takes it too (events/service.ts), before it writes the link, so that of a link and this write one
 * waits for the other, and the events this write logs as changed (logEmbeddingEvents, unlinkFromEvents) include an
 * event linked a moment before. The lock comes first, before any row lock, in both.
 */
const claimFor = async (
  trx: Trx,
  actor: Actor,
  kind: LinkedPostKind,
  id: number,
  may: typeof canEditPost,
  options: WriteOptions,
) => {
  await lockItems(trx, [id]);
  return claimForWrite(trx, actor, id, may, notFound(kind), options);
};

export function updateLinkedItem(
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  id: number,
  sent: Sent,
  options: WriteOptions = {},
): Promise<void> {
  return store.transaction(async (trx) =>
    updateLinked(trx, actor, kind, await claimFor(trx, actor, kind, id, canEditPost, options), sent),
  );
}

/** §7.4: to the trash, leaving every event that referenced it; of two simultaneous trashes one is `gone` (410). */
export function trashLinkedItem(
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  id: number,
  options: WriteOptions = {},
): Promise<void> {
  return store.transaction(async (trx) => {
    const row = await claimFor(trx, actor, kind, id, canDeletePost, options);
    await trashClaimedPost(trx, actor, kind.type, row, inTrash(kind), unlinkFromEvents(kind));
  });
}

/** D18: deleted for good; `snapshot` reads what it was, in the same transaction, before it goes. */
export function deleteLinkedItem<T>(
  store: Store,
  actor: Actor,
  kind: LinkedPostKind,
  id: number,
  snapshot: (trx: Trx) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  return store.transaction(async (trx) => {
    const row = await claimFor(trx, actor, kind, id, canDeletePost, options);
    const previous = await snapshot(trx);
    await unlinkFromEvents(kind)(trx, row);
    await deletePostForever(trx, actor, kind.type, row);
    return previous;
  });
}
