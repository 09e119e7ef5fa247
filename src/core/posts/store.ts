import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { renderContent } from '../../domain/html.ts';
import { nextSlugCandidates, slugCandidates, trashedSlug, untrashedSlug } from '../../domain/slugs.ts';
import { yieldIfBusy } from '../../store/event-loop.ts';
import { escapeLike, isRowId, isUniqueViolation, type Db, type Trx } from '../../store/store.ts';
import type { PostsTable } from '../../store/schema.ts';

export type PostRow = Selectable<PostsTable>;
export type PostType = PostsTable['type'];
export type NewPost = Omit<Insertable<PostsTable>, 'slug' | 'id'>;

/**
 * D31: posts read per query by {@link loadPostsOfType}. A post's content and excerpt may hold 256 KiB each, and SQLite
 * reads synchronously: ten such posts are about 30 ms of one turn of the event loop, a hundred would be 300 ms.
 */
export const POSTS_PER_READ = 10;

/** A post's description and excerpt as the API shows them (domain/html.ts renderContent). */
export interface RenderedText {
  content: string;
  excerpt: string;
}

/** Renders kept with the rows they were made from, for as long as those rows live (one request, usually). */
const renderedByRow = new WeakMap<PostRow, RenderedText>();

/**
 * The row's rendered description and excerpt: made once per row object, so serialising one item many times (a venue
 * embedded in every event of a page) renders its texts once, whatever the shared render cache could keep.
 */
export function renderedText(row: PostRow): RenderedText {
  let text = renderedByRow.get(row);
  if (!text) {
    text = { content: renderContent(row.content), excerpt: renderContent(row.excerpt) };
    renderedByRow.set(row, text);
  }
  return text;
}

/**
 * The posts of `type` among `ids` (any order), read {@link POSTS_PER_READ} at a time. Each row's content and excerpt
 * are rendered here (kept with the row for the serialisers, see {@link renderedText}), giving the event loop a turn
 * between rows when it is due: a first render of 256 KiB costs milliseconds, and an event embeds up to 50 organizers.
 */
export async function loadPostsOfType(db: Db, type: PostType, ids: readonly number[]): Promise<PostRow[]> {
  const chunks: number[][] = [];
  for (let start = 0; start < ids.length; start += POSTS_PER_READ) chunks.push(ids.slice(start, start + POSTS_PER_READ));
  // The type is checked here rather than in SQL: SQLite, without statistics, would otherwise walk an index on `type`
  // (every event) instead of looking the ids up by key (measured: 0.7 ms for ten events at 10,000, growing with the table).
  const rows = (await Promise.all(chunks.map((chunk) => db.selectFrom('posts').selectAll().where('id', 'in', chunk).execute())))
    .flat().filter((row) => row.type === type);
  for (const row of rows) {
    renderedText(row);
    await yieldIfBusy('row');
  }
  return rows;
}

export async function findPostById(db: Db, id: number): Promise<PostRow | undefined> {
  if (!isRowId(id)) return undefined;
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An empty or whitespace slug never matches anything. */
export async function findPostBySlug(db: Db, type: PostType, slug: string): Promise<PostRow | undefined> {
  if (slug.trim() === '') return undefined;
  return db.selectFrom('posts').selectAll().where('type', '=', type).where('slug', '=', slug).executeTakeFirst();
}


const PROBED_CANDIDATES = 50;

/**
 * The slugs that `base` and its numbered variants collide with. The first candidates are looked up through the
 * (type, slug) index; only when they are all taken does a pattern scan (which no index serves) list the rest.
 */
export async function takenSlugs(db: Db, type: PostType, base: string, exceptId?: number): Promise<string[]> {
  const select = () => {
    const query = db.selectFrom('posts').select('slug').where('type', '=', type);
    return exceptId === undefined ? query : query.where('id', '!=', exceptId);
  };
  const probed = slugCandidates(base, PROBED_CANDIDATES);
  const taken = (await select().where('slug', 'in', probed).execute()).map((row) => row.slug);
  if (taken.length < probed.length) return taken;
  return (await select().where((eb) => eb.or([eb('slug', '=', base), sql<boolean>`slug like ${`${escapeLike(base)}-%`} escape '\\'`])).execute())
    .map((row) => row.slug);
}

/** Enough for as many concurrent writers of one slug as a database has connections. */
const MAX_SLUG_ATTEMPTS = 200;

/**
 * Inserts with the first free slug among `base`, `base-2`, `base-3`… The unique (type, slug) index decides races: a
 * concurrent writer that took the same candidate makes the insert do nothing, and the next candidate is tried. A lost
 * candidate is remembered, because the winner's row may not be visible yet (it commits later).
 */
export async function insertPost(trx: Trx, values: NewPost, base: string): Promise<PostRow> {
  const lost: string[] = [];
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const slug = nextSlugCandidates(base, [...(await takenSlugs(trx, values.type, base)), ...lost]);
    const row = await trx.insertInto('posts').values({ ...values, slug })
      .onConflict((conflict) => conflict.columns(['type', 'slug']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) return row;
    lost.push(slug);
  }
  throw new Error(`no free slug for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/** Sets a new slug (made unique the same way); a lost race rolls back to a savepoint and tries the next candidate. */
export async function changeSlug(trx: Trx, row: PostRow, base: string): Promise<string> {
  const lost: string[] = [];
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const slug = nextSlugCandidates(base, [...(await takenSlugs(trx, row.type, base, row.id)), ...lost]);
    if (slug === row.slug) return slug;
    await sql`savepoint change_slug`.execute(trx);
    try {
      await trx.updateTable('posts').set({ slug }).where('id', '=', row.id).execute();
      await sql`release savepoint change_slug`.execute(trx);
      return slug;
    } catch (error) {
      await sql`rollback to savepoint change_slug`.execute(trx);
      if (!isUniqueViolation(error)) throw error;
      lost.push(slug);
    }
  }
  throw new Error(`no free slug for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}

export async function updatePost(trx: Trx, id: number, values: Updateable<PostsTable>): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await trx.updateTable('posts').set(values).where('id', '=', id).execute();
}

/** Trash keeps what the item was, so its owner's rights and a later restore can use it. */
export async function trashPost(trx: Trx, row: PostRow, modified: { local: string; utc: string }): Promise<void> {
  await updatePost(trx, row.id, {
    status: 'trash',
    status_before_trash: row.status,
    modified_local: modified.local,
    modified_utc: modified.utc,
  });
  await changeSlug(trx, { ...row }, trashedSlug(row.slug));
}

/** D2: a non-trash status sent for a trashed item restores it under a free slug without the `__trashed` suffix. */
export async function restorePost(trx: Trx, row: PostRow, status: string): Promise<void> {
  await updatePost(trx, row.id, { status, status_before_trash: '' });
  await changeSlug(trx, row, untrashedSlug(row.slug));
}

export async function deletePost(trx: Trx, id: number): Promise<void> {
  await trx.deleteFrom('posts').where('id', '=', id).execute();
}
