// The one post lifecycle of events, venues and organizers: create, merge-update, trash, restore and permanent delete,
// each appending to the change log in its own transaction. What differs per kind (an event's schedule and links, a
// venue's meta row) is done by the kind's service around these steps.
//
// Every write to an existing item first claims its row: on PostgreSQL the row stays locked until the transaction
// ends, so a concurrent write of the same item waits and then works on what the first one committed (no lost
// update, one 410 of two simultaneous trashes); on SQLite the claim takes the write lock at once.
import { canUploadFiles, effectiveStatus, scaleBackStatus, type PostLike, type Viewer } from '../../domain/access.ts';
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { type DomainError, invalidField, notAllowed } from '../../domain/errors.ts';
import { trashedSlug } from '../../domain/slugs.ts';
import { recordChange, recordChanges, type ChangeAction, type ListedBefore } from '../change-log/log.ts';
import type { Trx } from '../../store/store.ts';
import { readImageInput, resolveImage } from '../images/images.ts';
import { nowStamp, postLike, scheduleStatus, type PublicationDate } from './fields.ts';
import {
  changeSlug,
  deletePost,
  deletePostRows,
  insertPost,
  insertPostRows,
  insertPosts,
  lockPost,
  restorePost,
  restorePostRows,
  trashPost,
  trashPostRows,
  updatePost,
  type NewPost,
  type NewPostWithSlugBase,
  type PostRow,
} from './store.ts';
import type { Updateable } from 'kysely';
import type { PostsTable } from '../../store/schema.ts';
import type { DateTime } from 'luxon';

export type LifecyclePostType = 'event' | 'venue' | 'organizer';

/**
 * What a surface may check inside a write's transaction, once the item is claimed and before anything changes (D22:
 * `If-Match` compared with the item as the caller would read it now); it throws to refuse the write.
 */
export interface WriteOptions {
  precondition?: (trx: Trx) => Promise<void>;
}

/**
 * Who could list the item as `row` stands, for the change log (D24): read before a write changes it. A scheduled item
 * counts as public once its publication time is no later than the write may commit (`commitWithinMs` after `now`, the
 * write's deadline): until the commit, a sync client reading at a later clock sees it as come due and may keep a copy,
 * which it must then be told to drop. (An anonymous client may so be told to drop an item scheduled to go public
 * within that time that it never saw: only its type and id.)
 */
export const listedBefore = (post: PostLike, now: DateTime, commitWithinMs: number): ListedBefore => ({
  status: effectiveStatus(post, formatWp(now.plus({ milliseconds: commitWithinMs }))),
  authorId: post.authorId,
});

/** {@link listedBefore} for a write by `actor`, which commits within its request's deadline (D31) or not at all. */
export const listedBeforeWrite = (post: PostLike, actor: Pick<Actor, 'now' | 'config'>): ListedBefore =>
  listedBefore(post, actor.now, actor.config.deadlines.requestMs);

/** The current row, locked until the transaction ends; undefined when there is no such post (any more). */
export async function claimPost(trx: Trx, id: number): Promise<PostRow | undefined> {
  return lockPost(trx, id);
}

/** {@link claimPost} for a write that needs the item: a post deleted meanwhile is a 404 of the kind's own. */
export async function claimExisting(trx: Trx, id: number, notFound: () => Error): Promise<PostRow> {
  const row = await claimPost(trx, id);
  if (!row) throw notFound();
  return row;
}

/**
 * The start of every write to an existing item: its row claimed, the caller's right checked again on the row as it
 * now is (it may have changed since the request read it), then the surface's precondition.
 */
export async function claimForWrite(
  trx: Trx,
  actor: Actor,
  id: number,
  may: (viewer: Viewer, post: PostLike, nowUtc: string) => boolean,
  notFound: () => Error,
  options: WriteOptions,
): Promise<PostRow> {
  const row = await claimExisting(trx, id, notFound);
  if (!may(actor.viewer, postLike(row), formatWp(actor.now))) throw notAllowed();
  await options.precondition?.(trx);
  return row;
}

/** The status a write asks for, after the caller's rights (contributors submit for review) and the schedule. */
function requestedStatus(actor: Actor, status: string | undefined, publishedUtc: string): string {
  return scheduleStatus(scaleBackStatus(actor.viewer, status), publishedUtc, actor.now);
}

export interface NewPostInput
  extends Omit<NewPost, 'type' | 'date_local' | 'date_utc' | 'modified_local' | 'modified_utc' | 'status'> {
  type: LifecyclePostType;
  /** As sent (undefined: the default), scaled back and scheduled here. */
  status: string | undefined;
  published: PublicationDate | undefined;
  slugBase: string;
  /** The `image` field as sent, if it was. */
  image?: unknown;
}

/** A new post with a unique slug and its image, logged as created. */
export async function createPost(trx: Trx, actor: Actor, input: NewPostInput): Promise<PostRow> {
  const { type, status, published: sentPublished, slugBase, image, ...columns } = input;
  const stamp = nowStamp(actor.now, actor.config.siteTimezone);
  const published = sentPublished ?? stamp;
  let row = await insertPost(
    trx,
    {
      ...columns,
      type,
      status: requestedStatus(actor, status, published.utc),
      date_local: published.local,
      date_utc: published.utc,
      modified_local: stamp.local,
      modified_utc: stamp.utc,
    },
    slugBase,
  );
  const imageId = await writeImage(trx, actor, image, row.author_id);
  if (imageId) {
    await updatePost(trx, row.id, { image_id: imageId });
    row = { ...row, image_id: imageId };
  }
  recordChange(trx, { type, id: row.id, action: 'created' });
  return row;
}

/** The image id an `image` field asks for: undefined when none was sent, null to clear it. */
async function writeImage(
  trx: Trx,
  actor: Actor,
  image: unknown,
  authorId: number,
): Promise<number | null | undefined> {
  if (image === undefined) return undefined;
  if (!imageAllowed(actor, image)) throw invalidField('image');
  const input = readImageInput(image);
  return input ? resolveImage(trx, input, authorId, nowStamp(actor.now, actor.config.siteTimezone)) : undefined;
}

/**
 * Whether `actor` may send this `image` field: a URL adds an image record, media only those who may upload files add
 * (every surface, not only the API's checks).
 */
export function imageAllowed(actor: Actor, image: unknown): boolean {
  if (image === undefined) return true;
  const input = readImageInput(image);
  return !(input && 'url' in input && !canUploadFiles(actor.viewer));
}

export interface PostUpdate {
  /** The posts columns to set (postChanges: only what was sent, `modified` always). */
  changes: Updateable<PostsTable>;
  /** A status as sent, if it was. */
  status?: string;
  /** A new slug base, if one was sent. */
  slugBase?: string;
  image?: unknown;
}

/** What the kind does when one of its items goes to the trash (venues and organizers leave their events). */
export type OnTrash = (trx: Trx, row: PostRow) => Promise<void>;

/**
 * D2, a merge onto the claimed `row`: only what was sent changes; `modified` always advances; a trash status trashes,
 * a non-trash status restores a trashed item. Logged as updated, trashed or restored.
 */
export async function updatePostRow(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  row: PostRow,
  update: PostUpdate,
  onTrash?: OnTrash,
): Promise<void> {
  const changes = { ...update.changes };
  const imageId = await writeImage(trx, actor, update.image, row.author_id);
  if (imageId !== undefined) changes.image_id = imageId;
  await updatePost(trx, row.id, changes);

  const status =
    update.status === undefined
      ? undefined
      : requestedStatus(
          actor,
          update.status,
          // A date sent is a plain value (postChanges); the column also types a SQL expression, which it never is.
          typeof changes.date_utc === 'string' ? changes.date_utc : row.date_utc,
        );
  const staysTrashed = row.status === 'trash' && (status === undefined || status === 'trash');
  let current: PostRow = row;
  if (update.slugBase !== undefined) {
    current = {
      ...row,
      slug: await changeSlug(trx, row, staysTrashed ? trashedSlug(update.slugBase) : update.slugBase),
    };
  }
  let action: ChangeAction = 'updated';
  if (status === 'trash' && row.status !== 'trash') {
    await trashPost(trx, current, nowStamp(actor.now, actor.config.siteTimezone));
    await onTrash?.(trx, current);
    action = 'trashed';
  } else if (row.status === 'trash' && status !== undefined && status !== 'trash') {
    await restorePost(trx, current, status);
    action = 'restored';
  } else if (status !== undefined && status !== 'trash') {
    await updatePost(trx, row.id, { status });
  }
  recordChange(trx, { type, id: row.id, action, before: listedBeforeWrite(postLike(row), actor) });
}

/**
 * §5.4/§7.4: the claimed `row` to the trash with the `__trashed` slug. The claim waited for any concurrent write of
 * it, so of two simultaneous trashes exactly one succeeds and the other finds it trashed: `gone`.
 */
export async function trashClaimedPost(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  row: PostRow,
  gone: () => DomainError,
  onTrash?: OnTrash,
): Promise<void> {
  if (row.status === 'trash') throw gone();
  await trashPost(trx, row, nowStamp(actor.now, actor.config.siteTimezone));
  await onTrash?.(trx, row);
  recordChange(trx, { type, id: row.id, action: 'trashed', before: listedBeforeWrite(postLike(row), actor) });
}

/** D18: the claimed `row` gone for good (its own rows follow by cascade); logged as deleted. */
export async function deletePostForever(trx: Trx, actor: Actor, type: LifecyclePostType, row: PostRow): Promise<void> {
  await deletePost(trx, row.id);
  recordChange(trx, { type, id: row.id, action: 'deleted', before: listedBeforeWrite(postLike(row), actor) });
}

// ---------------------------------------------------------------------------------------------------------------------
// The same lifecycle for many posts of one kind at once (the occurrences of a series, D25; the batch import): a few
// statements whatever their number, each write logged as its single form logs it.

/** A post as the bulk operations need it: its id and slug, and who could list it (read before the write). */
export interface PostOfMany extends PostLike {
  id: number;
  slug: string;
}

/** Each post logged with who could list it before this write. */
function logMany(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  posts: readonly PostOfMany[],
  action: ChangeAction,
): void {
  for (const post of posts) recordChange(trx, { type, id: post.id, action, before: listedBeforeWrite(post, actor) });
}

/** New posts of one kind, each with a unique slug (posts/store.ts insertPosts), logged as created; ids in input order. */
export async function createPosts(
  trx: Trx,
  type: LifecyclePostType,
  posts: readonly NewPostWithSlugBase[],
): Promise<number[]> {
  const ids = await insertPosts(trx, type, posts);
  recordChanges(trx, type, ids, 'created');
  return ids;
}

/** {@link createPosts}, answering the new posts whole, in input order (posts/store.ts insertPostRows). */
async function createPostRows(
  trx: Trx,
  type: LifecyclePostType,
  posts: readonly NewPostWithSlugBase[],
): Promise<PostRow[]> {
  const rows = await insertPostRows(trx, type, posts);
  recordChanges(
    trx,
    type,
    rows.map((row) => row.id),
    'created',
  );
  return rows;
}

/**
 * {@link createPost} for many new posts of one kind in `trx` (the batch import): the same columns, statuses, unique slugs,
 * images and change-log records as one createPost each, in a few statements whatever their number. Images are checked
 * before anything is written. Answers each post as stored, in input order.
 */
export async function createPostsOf(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  inputs: ReadonlyArray<Omit<NewPostInput, 'type'>>,
): Promise<PostRow[]> {
  for (const input of inputs) if (!imageAllowed(actor, input.image)) throw invalidField('image');
  const stamp = nowStamp(actor.now, actor.config.siteTimezone);
  const rows = inputs.map(({ status, published: sentPublished, image: _image, ...columns }) => {
    const published = sentPublished ?? stamp;
    return {
      ...columns,
      status: requestedStatus(actor, status, published.utc),
      date_local: published.local,
      date_utc: published.utc,
      modified_local: stamp.local,
      modified_utc: stamp.utc,
    };
  });
  const posts = await createPostRows(trx, type, rows);
  for (const [index, input] of inputs.entries()) {
    const imageId = await writeImage(trx, actor, input.image, rows[index].author_id);
    if (!imageId) continue;
    await updatePost(trx, posts[index].id, { image_id: imageId });
    posts[index] = { ...posts[index], image_id: imageId };
  }
  return posts;
}

/** Posts to the trash with their `__trashed` slugs, each keeping its status to restore; logged as trashed. */
export async function trashPosts(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  posts: readonly PostOfMany[],
): Promise<void> {
  await trashPostRows(trx, type, posts, nowStamp(actor.now, actor.config.siteTimezone));
  logMany(trx, actor, type, posts, 'trashed');
}

/** Trashed posts restored to `status` under free slugs without the `__trashed` suffix; logged as restored. */
export async function restorePosts(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  posts: readonly PostOfMany[],
  status: string,
): Promise<void> {
  await restorePostRows(trx, type, posts, status, nowStamp(actor.now, actor.config.siteTimezone));
  logMany(trx, actor, type, posts, 'restored');
}

/** Posts gone for good (their own rows follow by cascade); logged as deleted. */
export async function deletePostsForever(
  trx: Trx,
  actor: Actor,
  type: LifecyclePostType,
  posts: readonly PostOfMany[],
): Promise<void> {
  await deletePostRows(
    trx,
    posts.map((post) => post.id),
  );
  logMany(trx, actor, type, posts, 'deleted');
}
