import { numberArg, stringArg } from '../input/values.ts';
import type { Updateable } from 'kysely';
import type { DateTime } from 'luxon';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import type { PostsTable } from '../../store/schema.ts';
import type { Config } from '../../config.ts';
import { canEditPost, effectiveStatus, type PostLike, type Viewer } from '../../domain/access.ts';
import { parseDateInput } from '../../domain/dates/input-grammar.ts';
import { formatWp, utcToLocal } from '../../domain/dates/stored-format.ts';
import type { PostRow } from './store.ts';

/** Public page prefixes (D1). */
const PUBLIC_PATH: Record<string, string> = { event: 'event', venue: 'venue', organizer: 'organizer' };

export const postLike = (row: PostRow): PostLike => ({
  authorId: row.author_id,
  status: row.status,
  publishedUtc: row.date_utc,
  statusBeforeTrash: row.status_before_trash || undefined,
});

export const statusOf = (row: PostRow, now: DateTime) => effectiveStatus(postLike(row), formatWp(now));

/** D1: published items have a pretty permalink; unpublished and trashed ones `?p=<id>`. */
export function publicUrl(config: Config, row: PostRow, status: string): string {
  return status === 'publish' || status === 'private'
    ? `${config.siteUrl}/${PUBLIC_PATH[row.type]}/${row.slug}/`
    : `${config.siteUrl}/?p=${row.id}`;
}

/** `<host><path>?id=<id>` with no scheme or port (§3.1). */
export function globalId(config: Config, id: number): string {
  const url = new URL(config.siteUrl);
  return `${url.hostname}${url.pathname.replace(/\/$/, '')}?id=${id}`;
}

/** The shared head of every post-like object, in the contract's key order. */
export function postHead(config: Config, row: PostRow, now: DateTime): Record<string, unknown> {
  const status = statusOf(row, now);
  return {
    id: row.id,
    author: String(row.author_id),
    status,
    date: row.date_local,
    date_utc: row.date_utc,
    modified: row.modified_local,
    modified_utc: row.modified_utc,
    url: publicUrl(config, row, status),
  };
}

export interface PublicationDate {
  local: string;
  utc: string;
}

export const nowStamp = (now: DateTime, siteZone: string): PublicationDate => ({
  local: formatWp(now.setZone(siteZone)),
  utc: formatWp(now.toUTC()),
});

/**
 * The publication date as WordPress stores it: `date` (read in the site's zone) and `date_utc` sent together are both
 * kept as sent, even when they disagree (`post_date` and `post_date_gmt` are two columns); one alone gives the other
 * through the site's zone; neither means now. The values were validated already, so a parse failure cannot happen here.
 */
export function publicationDate(
  input: { date?: unknown; date_utc?: unknown },
  siteZone: string,
  now: DateTime,
): PublicationDate | undefined {
  const utc = input.date_utc === undefined ? null : parseDateInput(input.date_utc, 'UTC', now);
  const local = input.date === undefined ? null : parseDateInput(input.date, siteZone, now);
  if (utc && local) return { utc: formatWp(utc), local: formatWp(local) };
  if (utc) return { utc: formatWp(utc), local: utcToLocal(formatWp(utc), siteZone) };
  if (local) return { local: formatWp(local), utc: formatWp(local.toUTC()) };
  return undefined;
}

/** WordPress: a `publish` dated in the future becomes `future`, and a `future` whose date has come is `publish`. */
export function scheduleStatus(status: string, publishedUtc: string, now: DateTime): string {
  const nowUtc = formatWp(now.toUTC());
  if (status === 'publish' && publishedUtc > nowUtc) return 'future';
  if (status === 'future' && publishedUtc <= nowUtc) return 'publish';
  return status;
}

/**
 * Naming someone else as the author takes the right to edit that person's items (WordPress core's rule), so that
 * contributors and authors cannot put their work under another user's name.
 */
export function mayAssignAuthor(ctx: { viewer: Viewer; now: DateTime }, authorId: number | undefined): boolean {
  if (authorId === undefined || authorId === ctx.viewer?.id) return true;
  const nowUtc = formatWp(ctx.now);
  return canEditPost(ctx.viewer, { authorId, status: 'draft', publishedUtc: nowUtc }, nowUtc);
}

/** What a write may send for the shared post columns, under the names each resource uses for them. */
export interface SentPostFields {
  title?: unknown;
  content?: unknown;
  excerpt?: unknown;
  author?: unknown;
  password?: unknown;
}

/** D2: the posts columns an update changes: only what was sent, sanitised; `modified` always advances. */
export function postChanges(
  sent: SentPostFields,
  published: PublicationDate | undefined,
  stamp: PublicationDate,
): Updateable<PostsTable> {
  const changes: Updateable<PostsTable> = { modified_local: stamp.local, modified_utc: stamp.utc };
  if (sent.title !== undefined) changes.title = sanitizeTitle(String(sent.title));
  if (sent.content !== undefined) changes.content = sanitizeHtml(String(sent.content));
  if (sent.excerpt !== undefined) changes.excerpt = sanitizeHtml(String(sent.excerpt));
  if (sent.author !== undefined) changes.author_id = numberArg(sent, 'author');
  if (sent.password !== undefined) changes.password = stringArg(sent, 'password');
  if (published) {
    changes.date_local = published.local;
    changes.date_utc = published.utc;
  }
  return changes;
}
