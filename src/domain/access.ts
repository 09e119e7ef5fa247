// Roles, capabilities, status visibility and passwords (reference §1.5, §5.2, §10, §11; D5, D15–D19). What a protected
// event shows instead of its content (§3.10) is the events slice's concern (core/events/protected.ts).
// Events, venues and organizers each have their own copy of the WordPress post capabilities, but every default role
// holds the same ones on all three types, so one capability table serves them all.
import { isOneOf } from './lists.ts';
import { createHash, timingSafeEqual } from 'node:crypto';

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
export const ROLES: readonly Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

/** An authenticated user. */
export interface Caller {
  id: number;
  role: Role;
}
/** `null` is an anonymous caller. */
export type Viewer = Caller | null;

export type PostType = 'event' | 'venue' | 'organizer';
export type PostStatus = 'publish' | 'future' | 'draft' | 'pending' | 'private' | 'trash';
/**
 * The registered statuses: the only ones accepted as input and as list filters. WordPress's internal `auto-draft` and
 * `inherit` are left out, because this service never stores them.
 */
export const POST_STATUSES: readonly PostStatus[] = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

export interface PostLike {
  /** 0 when the item has no author. */
  authorId: number;
  status: string;
  /** Publication date in UTC, `YYYY-MM-DD HH:MM:SS`. */
  publishedUtc: string;
  /**
   * For a trashed item, the status it had before it was trashed (WordPress's `_wp_trash_meta_status`). Its owner needs
   * the `*_published` capability to edit or delete it when it was published, or when this is unknown.
   */
  statusBeforeTrash?: string;
}

type Capability =
  | 'edit_posts'
  | 'edit_others_posts'
  | 'edit_published_posts'
  | 'edit_private_posts'
  | 'delete_posts'
  | 'delete_others_posts'
  | 'delete_published_posts'
  | 'delete_private_posts'
  | 'publish_posts'
  | 'read_private_posts'
  | 'manage_categories'
  | 'upload_files';

const EDITOR_CAPABILITIES: readonly Capability[] = [
  'edit_posts',
  'edit_others_posts',
  'edit_published_posts',
  'edit_private_posts',
  'delete_posts',
  'delete_others_posts',
  'delete_published_posts',
  'delete_private_posts',
  'publish_posts',
  'read_private_posts',
  'manage_categories',
  'upload_files',
];

const ROLE_CAPABILITIES: Readonly<Record<Role, readonly Capability[]>> = {
  administrator: EDITOR_CAPABILITIES,
  editor: EDITOR_CAPABILITIES,
  author: [
    'edit_posts',
    'edit_published_posts',
    'delete_posts',
    'delete_published_posts',
    'publish_posts',
    'upload_files',
  ],
  contributor: ['edit_posts', 'delete_posts'],
  subscriber: [],
};

function can(viewer: Viewer, capability: Capability): boolean {
  return viewer !== null && ROLE_CAPABILITIES[viewer.role].includes(capability);
}

function isOwner(caller: Caller, post: PostLike): boolean {
  return post.authorId > 0 && caller.id === post.authorId;
}

/** D17: a scheduled item whose publication date has come (at or before `nowUtc`) is published. */
export function effectiveStatus(post: PostLike, nowUtc: string): string {
  return post.status === 'future' && post.publishedUtc <= nowUtc ? 'publish' : post.status;
}

/** The type's `edit_posts`: create items (contributor and up). */
export function canCreatePosts(viewer: Viewer): boolean {
  return can(viewer, 'edit_posts');
}

/** WordPress's `upload_files` (author and up): add media, such as an image record for a URL (D6). */
export function canUploadFiles(viewer: Viewer): boolean {
  return can(viewer, 'upload_files');
}

export function canPublish(viewer: Viewer): boolean {
  return can(viewer, 'publish_posts');
}

export function canReadPrivate(viewer: Viewer): boolean {
  return can(viewer, 'read_private_posts');
}

const MODIFY_CAPABILITIES = {
  edit: {
    own: 'edit_posts',
    others: 'edit_others_posts',
    published: 'edit_published_posts',
    private: 'edit_private_posts',
  },
  delete: {
    own: 'delete_posts',
    others: 'delete_others_posts',
    published: 'delete_published_posts',
    private: 'delete_private_posts',
  },
} as const satisfies Record<'edit' | 'delete', Record<'own' | 'others' | 'published' | 'private', Capability>>;

function countsAsPublished(status: string): boolean {
  return status === 'publish' || status === 'future';
}

// WordPress map_meta_cap for edit_post/delete_post. A scheduled item counts as published whether or not it is due, so a
// contributor cannot change an item once an editor has scheduled it. A trashed item is judged, for its owner, by the
// status it had before (unknown counts as published); others need only the `*_others` capability, as in WordPress.
function canModify(action: 'edit' | 'delete', viewer: Viewer, post: PostLike): boolean {
  if (viewer === null) return false;
  const capabilities = MODIFY_CAPABILITIES[action];
  if (isOwner(viewer, post)) {
    const judgedStatus = post.status === 'trash' ? (post.statusBeforeTrash ?? 'publish') : post.status;
    return can(viewer, countsAsPublished(judgedStatus) ? capabilities.published : capabilities.own);
  }
  const extra = countsAsPublished(post.status)
    ? capabilities.published
    : post.status === 'private'
      ? capabilities.private
      : null;
  return can(viewer, capabilities.others) && (extra === null || can(viewer, extra));
}

/** `edit_post` on the item. `_nowUtc` keeps the signature uniform with `canReadPost`; due or not, `future` counts as published. */
export function canEditPost(viewer: Viewer, post: PostLike, _nowUtc: string): boolean {
  return canModify('edit', viewer, post);
}

/** `delete_post` on the item (trash, and D18's permanent delete). */
export function canDeletePost(viewer: Viewer, post: PostLike, _nowUtc: string): boolean {
  return canModify('delete', viewer, post);
}

/**
 * May the viewer open this item by id or slug (§10)? Published: everyone. Otherwise the owner always may (WordPress
 * read_post); others need `read_private` for private items and edit rights for the rest (draft, pending, not-yet-due
 * future, and trashed venues/organizers). A trashed event is refused to everybody: the route checks trash first to
 * answer `event-no-longer-available` rather than `event-not-accessible`.
 */
export function canReadPost(viewer: Viewer, type: PostType, post: PostLike, nowUtc: string): boolean {
  const status = effectiveStatus(post, nowUtc);
  if (status === 'publish') return true;
  if (status === 'trash' && type === 'event') return false;
  if (viewer === null) return false;
  if (isOwner(viewer, post)) return true;
  if (status === 'private') return canReadPrivate(viewer);
  return canEditPost(viewer, post, nowUtc);
}

/** Event categories: `edit_tribe_events` and the taxonomy's manage_terms, `publish_tribe_events` (author and up). */
export function canManageCategories(viewer: Viewer): boolean {
  return can(viewer, 'edit_posts') && can(viewer, 'publish_posts');
}

/** Event tags: `edit_tribe_events` and `manage_categories` (editor and up). */
export function canManageTags(viewer: Viewer): boolean {
  return can(viewer, 'edit_posts') && can(viewer, 'manage_categories');
}

/**
 * §5.2 "Status": publishers get what they asked for, or `publish`; others cannot publish or schedule (`pending`
 * instead) and get `draft` when they asked for nothing. An empty string counts as nothing, as in the reference.
 */
export function scaleBackStatus(viewer: Viewer, requested: string | undefined): string {
  if (canPublish(viewer)) return requested || 'publish';
  if (requested === 'publish' || requested === 'future') return 'pending';
  return requested || 'draft';
}

/** `status=any`: every registered status except trash. */
const ANY_STATUSES: readonly PostStatus[] = POST_STATUSES.filter((status) => status !== 'trash');

function isPostStatus(value: string): value is PostStatus {
  return isOneOf(POST_STATUSES, value);
}

/**
 * The `status` filter of a list (§10, D19). Without the type's `edit_posts` (anonymous, subscribers) only exactly
 * `['publish']` is allowed, and it is the default. Others may send `any` alone, or a list of registered statuses
 * (duplicates dropped, order kept); the default is `any`. An empty list is refused.
 *
 * The statuses are effective ones (D17): `publish` matches stored `publish` plus `future` items whose publication date
 * has come, and `future` matches only `future` items still to come.
 */
export function listStatusesAllowed(
  viewer: Viewer,
  requested: string[] | undefined,
): { ok: true; statuses: PostStatus[] } | { ok: false } {
  if (!canCreatePosts(viewer)) {
    const onlyPublish = requested === undefined || (requested.length === 1 && requested[0] === 'publish');
    return onlyPublish ? { ok: true, statuses: ['publish'] } : { ok: false };
  }
  if (requested === undefined || (requested.length === 1 && requested[0] === 'any')) {
    return { ok: true, statuses: [...ANY_STATUSES] };
  }
  if (requested.length === 0 || !requested.every(isPostStatus)) return { ok: false };
  return { ok: true, statuses: [...new Set(requested)] };
}

/**
 * Which rows a list may show the viewer besides the status filter, so that a list never shows an item the viewer could
 * not open by id (D19). The query builder adds it to the WHERE clause:
 * - `all`: no condition (editors and up can read every item, private and trashed ones included);
 * - `published-or-own`: effective status `publish` OR `author_id = authorId` (authors and contributors: others' drafts,
 *   pending, scheduled, private and trashed items are hidden; their own are shown, as by id);
 * - `published-only`: effective status `publish` (anonymous callers and subscribers, who may only filter on `publish`).
 * Trashed events are listed (for `status=trash`) to those who could read them were it not for the event-only
 * "no longer available" rule, as the reference lists them to editors.
 */
export type ListVisibility =
  | { scope: 'all' }
  | { scope: 'published-or-own'; authorId: number }
  | { scope: 'published-only' };

export function listVisibilityScope(viewer: Viewer): ListVisibility {
  if (viewer === null || !canCreatePosts(viewer)) return { scope: 'published-only' };
  if (can(viewer, 'edit_others_posts') && canReadPrivate(viewer)) return { scope: 'all' };
  return { scope: 'published-or-own', authorId: viewer.id };
}

/**
 * Which rows the viewer may edit (`canEditPost`), as a query condition (D33: a search matches a protected event's
 * excerpt and content only for those who may edit it, or who sent its password):
 * - `all`: editors and up;
 * - `own`: the viewer's own items (authors: whatever their status but trash; contributors: not published or scheduled
 *   either, as `canEditPost` judges them); trashed items are left out (their status before the trash is not at hand);
 * - `none`: anonymous callers and subscribers.
 */
export type EditScope =
  | { scope: 'all' }
  | { scope: 'own'; authorId: number; statuses: 'any' | 'unpublished' }
  | { scope: 'none' };

export function editScope(viewer: Viewer): EditScope {
  if (viewer === null || !can(viewer, 'edit_posts')) return { scope: 'none' };
  if (can(viewer, 'edit_others_posts') && can(viewer, 'edit_published_posts') && can(viewer, 'edit_private_posts'))
    return { scope: 'all' };
  return { scope: 'own', authorId: viewer.id, statuses: can(viewer, 'edit_published_posts') ? 'any' : 'unpublished' };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * §11: may the caller see a password-protected item's content? Comparing digests keeps the comparison constant-time
 * and hides the password's length. Only a string can match; an empty `postPassword` means the item is not protected.
 */
export function canAccessProtected(opts: {
  postPassword: string;
  suppliedPassword: unknown;
  contextEdit: boolean;
  canEdit: boolean;
}): boolean {
  if (opts.postPassword === '') return true;
  if (opts.contextEdit && opts.canEdit) return true;
  return (
    typeof opts.suppliedPassword === 'string' &&
    timingSafeEqual(sha256(opts.postPassword), sha256(opts.suppliedPassword))
  );
}
