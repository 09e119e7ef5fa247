import { sql } from 'kysely';
import { canEditPost, scaleBackStatus } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates.ts';
import { escapeHtml, renderContent, sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify, trashedSlug } from '../../domain/slugs.ts';
import type { RequestContext } from '../../http/context.ts';
import type { Db, Trx } from '../../store/store.ts';
import { loadImages, readImageInput, resolveImage, serializeImage, type ImageRow } from '../images/images.ts';
import { globalId, nowStamp, postChanges, postHead, postLike, publicationDate, scheduleStatus } from '../posts/fields.ts';
import { insertPost, restorePost, trashPost, updatePost, type PostRow } from '../posts/store.ts';
import type { LinkedPostKind, Meta } from './kind.ts';

export interface LinkedRecord {
  post: PostRow;
  meta: Meta;
}

/** Posts, meta rows and images for many ids in three queries, whatever their number. */
export async function loadLinked(db: Db, kind: LinkedPostKind, ids: readonly number[]): Promise<Map<number, LinkedRecord & { image?: ImageRow }>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const [posts, metas] = await Promise.all([
    db.selectFrom('posts').selectAll().where('id', 'in', wanted).where('type', '=', kind.type).execute(),
    (db as Db).selectFrom(kind.metaTable as 'venues').selectAll().where('id', 'in', wanted).execute() as Promise<Meta[]>,
  ]);
  const images = await loadImages(db, posts.map((post) => post.image_id));
  const metaById = new Map(metas.map((meta) => [meta.id as number, meta]));
  const records = new Map<number, LinkedRecord & { image?: ImageRow }>();
  for (const post of posts) {
    const meta = metaById.get(post.id);
    if (meta) records.set(post.id, { post, meta, image: post.image_id === null ? undefined : images.get(post.image_id) });
  }
  return records;
}

const isEmpty = (value: unknown) =>
  value === '' || value === '0' || value === false || value === 0 || value === null || value === undefined
  || (Array.isArray(value) && value.length === 0);

/** §3.2/§3.3: empty values are dropped; `json_ld` only on single reads. */
export function serializeLinked(
  ctx: Pick<RequestContext, 'config' | 'now'>,
  kind: LinkedPostKind,
  record: LinkedRecord & { image?: ImageRow },
  options: { single: boolean },
): Record<string, unknown> {
  const { post, meta } = record;
  const description = renderContent(post.content);
  const full: Record<string, unknown> = {
    ...postHead(ctx.config, post, ctx.now),
    [kind.nameKey]: post.title,
    description,
    excerpt: renderContent(post.excerpt),
    slug: post.slug,
    image: serializeImage(record.image),
    ...kind.fields(meta),
  };
  const object: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(full)) {
    if (!isEmpty(value) || (kind.keepWhenEmpty.includes(key) && value !== null && value !== undefined)) object[key] = value;
  }
  if (options.single) {
    object.json_ld = kind.jsonLd({ name: post.title, description: escapeHtml(description), url: object.url as string }, meta);
  }
  Object.assign(object, kind.trailing(meta));
  const id = globalId(ctx.config, post.id);
  object.global_id = id;
  object.global_id_lineage = [id];
  return object;
}

export type Sent = Record<string, unknown>;

/** The image id an `image` field asks for: undefined when none was sent, null to clear it. */
export async function writeImage(trx: Trx, sent: Sent, authorId: number, ctx: RequestContext): Promise<number | null | undefined> {
  if (sent.image === undefined) return undefined;
  const input = readImageInput(sent.image);
  return input ? resolveImage(trx, input, authorId, nowStamp(ctx.now, ctx.config.siteTimezone)) : undefined;
}

/**
 * §7.2 duplicate avoidance: a non-trashed item with the same name (case-insensitive) and, when a description is
 * sent, the same content. D16: only items the caller may edit are candidates.
 */
async function findDuplicate(trx: Trx, ctx: RequestContext, kind: LinkedPostKind, name: string, content: string | undefined): Promise<PostRow | undefined> {
  let query = trx.selectFrom('posts').selectAll()
    .where('type', '=', kind.type)
    .where('status', '!=', 'trash')
    .where(ctx.store.lower(sql.ref('title')), '=', name.toLowerCase())
    .orderBy('id');
  if (content !== undefined) query = query.where('content', '=', content);
  const nowUtc = formatWp(ctx.now);
  return (await query.execute()).find((row) => canEditPost(ctx.viewer, postLike(row), nowUtc));
}

/** Creates the item, or reuses a duplicate and writes the sent fields onto it (`reused` tells which). */
export async function createLinked(trx: Trx, ctx: RequestContext, kind: LinkedPostKind, sent: Sent): Promise<{ id: number; reused: boolean }> {
  const name = sanitizeTitle(String(sent[kind.nameKey]));
  const content = sent.description === undefined ? undefined : sanitizeHtml(String(sent.description));
  const stamp = nowStamp(ctx.now, ctx.config.siteTimezone);

  const duplicate = await findDuplicate(trx, ctx, kind, name, content);
  if (duplicate) {
    // Only the item's own fields are written onto it: its name, status, author and publication date stay.
    const meta = Object.fromEntries([...Object.keys(kind.fieldArgs), 'image'].map((key) => [key, sent[key]]));
    await updateLinked(trx, ctx, kind, duplicate, meta);
    return { id: duplicate.id, reused: true };
  }

  const authorId = (sent.author as number | undefined) ?? ctx.viewer!.id;
  const published = publicationDate(sent, ctx.config.siteTimezone, ctx.now) ?? stamp;
  const status = scheduleStatus(scaleBackStatus(ctx.viewer, sent.status as string | undefined), published.utc, ctx.now);
  const post = await insertPost(trx, {
    type: kind.type,
    author_id: authorId,
    status,
    title: name,
    content: content ?? '',
    excerpt: '',
    date_local: published.local,
    date_utc: published.utc,
    modified_local: stamp.local,
    modified_utc: stamp.utc,
  }, status === 'trash' ? trashedSlug(slugify(name) || kind.type) : slugify(name) || kind.type);
  const imageId = await writeImage(trx, sent, authorId, ctx);
  if (imageId) await updatePost(trx, post.id, { image_id: imageId });
  await trx.insertInto(kind.metaTable as 'venues').values({ id: post.id, ...kind.metaForCreate(sent) } as never).execute();
  return { id: post.id, reused: false };
}

/** D2/D4: only what was sent changes; `modified` always advances; a non-trash status restores a trashed item. */
export async function updateLinked(trx: Trx, ctx: RequestContext, kind: LinkedPostKind, row: PostRow, sent: Sent): Promise<void> {
  const stamp = nowStamp(ctx.now, ctx.config.siteTimezone);
  const published = publicationDate(sent, ctx.config.siteTimezone, ctx.now);
  const changes = postChanges({ title: sent[kind.nameKey], content: sent.description, author: sent.author }, published, stamp);
  const imageId = await writeImage(trx, sent, row.author_id, ctx);
  if (imageId !== undefined) changes.image_id = imageId;
  await updatePost(trx, row.id, changes);

  if (sent.status !== undefined) {
    const status = scheduleStatus(scaleBackStatus(ctx.viewer, sent.status as string), published?.utc ?? row.date_utc, ctx.now);
    if (status === 'trash' && row.status !== 'trash') await trashLinked(trx, ctx, kind, row);
    else if (row.status === 'trash' && status !== 'trash') await restorePost(trx, row, status);
    else if (status !== 'trash') await updatePost(trx, row.id, { status });
  }

  const meta = kind.metaChanges(sent);
  if (Object.keys(meta).length > 0) {
    await trx.updateTable(kind.metaTable as 'venues').set(meta as never).where('id', '=', row.id).execute();
  }
}

export async function trashLinked(trx: Trx, ctx: RequestContext, kind: LinkedPostKind, row: PostRow): Promise<void> {
  await trashPost(trx, row, nowStamp(ctx.now, ctx.config.siteTimezone));
  await kind.unlinkFromEvents(trx, row.id);
}
