// Venue and organizer objects (§3.2/§3.3), loaded for many ids at once.
import type { Actor } from '../../domain/actor.ts';
import { escapeHtml } from '../../domain/html.ts';
import type { Db } from '../../store/store.ts';
import { loadImages, serializeImage, type ImageRow } from '../images/images.ts';
import { globalId, postHead, publicUrl, statusOf } from '../posts/fields.ts';
import { loadPostsOfType, renderedText, type PostRow } from '../posts/store.ts';
import type { LinkedPostKind, Meta } from './kind.ts';

export interface LinkedRecord {
  post: PostRow;
  meta: Meta;
}

/** Posts, meta rows and images for many ids in three queries, whatever their number. */
export async function loadLinked(
  db: Db,
  kind: LinkedPostKind,
  ids: readonly number[],
): Promise<Map<number, LinkedRecord & { image?: ImageRow }>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const [posts, metas] = await Promise.all([
    loadPostsOfType(db, kind.type, wanted),
    // Kysely types a row of either table as one with the columns of both: only `id` and Meta are relied on.
    db.selectFrom(kind.metaTable).selectAll().where('id', 'in', wanted).execute(),
  ]);
  const images = await loadImages(
    db,
    posts.map((post) => post.image_id),
  );
  const metaById = new Map<number, Meta>(metas.map((meta) => [meta.id, meta]));
  const records = new Map<number, LinkedRecord & { image?: ImageRow }>();
  for (const post of posts) {
    const meta = metaById.get(post.id);
    if (meta)
      records.set(post.id, { post, meta, image: post.image_id === null ? undefined : images.get(post.image_id) });
  }
  return records;
}

const isEmpty = (value: unknown) =>
  value === '' ||
  value === '0' ||
  value === false ||
  value === 0 ||
  value === null ||
  value === undefined ||
  (Array.isArray(value) && value.length === 0);

/** §3.2/§3.3: empty values are dropped; `json_ld` only on single reads. */
export function serializeLinked(
  ctx: Pick<Actor, 'config' | 'now'>,
  kind: LinkedPostKind,
  record: LinkedRecord & { image?: ImageRow },
  options: { single: boolean },
): Record<string, unknown> {
  const { post, meta } = record;
  const description = renderedText(post).content;
  const full: Record<string, unknown> = {
    ...postHead(ctx.config, post, ctx.now),
    [kind.nameKey]: post.title,
    description,
    excerpt: renderedText(post).excerpt,
    slug: post.slug,
    image: serializeImage(record.image),
    ...kind.fields(meta),
  };
  const object: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(full)) {
    if (!isEmpty(value) || (kind.keepWhenEmpty.includes(key) && value !== null && value !== undefined))
      object[key] = value;
  }
  if (options.single) {
    object.json_ld = kind.jsonLd(
      {
        name: post.title,
        description: escapeHtml(description),
        url: publicUrl(ctx.config, post, statusOf(post, ctx.now)),
      },
      meta,
    );
  }
  Object.assign(object, kind.trailing(meta));
  const id = globalId(ctx.config, post.id);
  object.global_id = id;
  object.global_id_lineage = [id];
  return object;
}
