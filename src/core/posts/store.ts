import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { renderContent } from '../../domain/html.ts';
import { assignUniqueSlugs, slugCandidates, trashedSlug, untrashedSlug } from '../../domain/slugs.ts';
import { chunks } from '../../store/chunks.ts';
import { yieldIfBusy } from '../../store/event-loop.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import { underSavepoint } from '../../store/savepoint.ts';
import { escapeLike, isRowId, isUniqueViolation, storeOf, type Db, type Trx } from '../../store/store.ts';
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

const largestId = preparedQuery((db) => db.selectFrom('posts').select((eb) => eb.fn.max('id').as('id')));

/** The largest post id there is, 0 when there are none: where a walk over every post's id ends. */
export async function largestPostId(db: Db): Promise<number> {
  return Number((await largestId.first(db))?.id ?? 0);
}

/**
 * The posts of `type` among `ids` (any order), read {@link POSTS_PER_READ} at a time. Each row's content and excerpt
 * are rendered here (kept with the row for the serialisers, see {@link renderedText}), giving the event loop a turn
 * between rows when it is due: a first render of 256 KiB costs milliseconds, and an event embeds up to 50 organizers.
 */
export async function loadPostsOfType(db: Db, type: PostType, ids: readonly number[]): Promise<PostRow[]> {
  const chunks: number[][] = [];
  for (let start = 0; start < ids.length; start += POSTS_PER_READ)
    chunks.push(ids.slice(start, start + POSTS_PER_READ));
  // The type is checked here rather than in SQL: SQLite, without statistics, would otherwise walk an index on `type`
  // (every event) instead of looking the ids up by key (measured: 0.7 ms for ten events at 10,000, growing with the table).
  const rows = (await Promise.all(chunks.map((chunk) => postsByIds.rows(db, chunk))))
    .flat()
    .filter((row) => row.type === type);
  for (const row of rows) {
    renderedText(row);
    await yieldIfBusy('row');
  }
  return rows;
}

const postsByIds = preparedQuery((db, ids: readonly number[]) =>
  db.selectFrom('posts').selectAll().where('id', 'in', ids),
);

const postById = preparedQuery((db, id: number) => db.selectFrom('posts').selectAll().where('id', '=', id));

export async function findPostById(db: Db, id: number): Promise<PostRow | undefined> {
  if (!isRowId(id)) return undefined;
  return postById.first(db, id);
}

/**
 * Whether a scheduled post's publication time falls in (`afterUtc`, `untilUtc`]: such a post went live in between
 * without any write. One seek of the status and date index.
 */
export async function scheduledDueBetween(db: Db, afterUtc: string, untilUtc: string): Promise<boolean> {
  if (untilUtc <= afterUtc) return false;
  const row = await db
    .selectFrom('posts')
    .select('id')
    .where('status', '=', 'future')
    .where('date_utc', '>', afterUtc)
    .where('date_utc', '<=', untilUtc)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether a trashed post (of any type) was last modified after `afterUtc` and no later than `untilUtc`: what a window
 * of days measured back from the clock (a feed's cancelled events) loses as the clock moves. One seek of the trashed
 * posts' own index (migration 0026), whose condition the statement names as written, not as a value to bind: neither
 * database would prove a bound value matches it.
 */
export async function trashedModifiedBetween(db: Db, afterUtc: string, untilUtc: string): Promise<boolean> {
  if (untilUtc <= afterUtc) return false;
  const row = await db
    .selectFrom('posts')
    .select('id')
    .where('status', '=', sql.lit('trash'))
    .where('modified_utc', '>', afterUtc)
    .where('modified_utc', '<=', untilUtc)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** An empty or whitespace slug never matches anything. */
export async function findPostBySlug(db: Db, type: PostType, slug: string): Promise<PostRow | undefined> {
  if (slug.trim() === '') return undefined;
  return db.selectFrom('posts').selectAll().where('type', '=', type).where('slug', '=', slug).executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------------------------------
// The writes of `posts`: this module alone writes them (test/store/table-owners.test.ts), with one slug algorithm
// (freeSlugs) and one savepoint retry (unlessSlugTaken) for one post and for many. The change-log rows that must follow
// a write of an event, venue or organizer are written by the post lifecycle (lifecycle.ts) around these; the few
// callers that log in an order of their own (a series' sync, a user's deletion) log themselves.

const PROBED_CANDIDATES = 50;

/** The probe of a new post's slug (every create): compiled once for its fixed number of candidates. */
const probedSlugs = preparedQuery(
  (db, type: PostType, candidates: readonly string[]) =>
    db.selectFrom('posts').select('slug').where('type', '=', type).where('slug', 'in', candidates),
  { longestList: PROBED_CANDIDATES },
);

/**
 * The slugs that `base` and its numbered variants collide with. The first candidates are looked up through the
 * (type, slug) index; only when they are all taken does a pattern scan (which no index serves) list the rest.
 */
async function takenSlugs(db: Db, type: PostType, base: string, exceptId?: number): Promise<string[]> {
  const select = () => {
    const query = db.selectFrom('posts').select('slug').where('type', '=', type);
    return exceptId === undefined ? query : query.where('id', '!=', exceptId);
  };
  const probed = slugCandidates(base, PROBED_CANDIDATES);
  const taken = (
    exceptId === undefined
      ? await probedSlugs.rows(db, type, probed)
      : await select().where('slug', 'in', probed).execute()
  ).map((row) => row.slug);
  if (taken.length < probed.length) return taken;
  return (
    await select()
      .where((eb) => eb.or([eb('slug', '=', base), sql<boolean>`slug like ${`${escapeLike(base)}-%`} escape '\\'`]))
      .execute()
  ).map((row) => row.slug);
}

/** Enough for as many concurrent writers of one slug as a database has connections. */
const MAX_SLUG_ATTEMPTS = 200;

/**
 * Free slugs for `bases`, in order (the one slug algorithm of posts): each the first of `base`, `base-2`, … that no
 * other post of `type` uses (`exceptId` aside: a post renamed keeps its own slug free), nor `lost` (candidates lost to
 * concurrent writers whose rows are not visible yet), nor an earlier pick of the same call. One base is read with
 * {@link takenSlugs}; many with one query for all of them, then {@link takenSlugs} for each base in use or repeated.
 */
async function freeSlugs(
  trx: Trx,
  type: PostType,
  bases: readonly string[],
  options: { exceptId?: number; lost?: readonly string[] } = {},
): Promise<string[]> {
  const distinct = [...new Set(bases)];
  const taken = new Set(options.lost);
  if (distinct.length === 1) {
    for (const slug of await takenSlugs(trx, type, distinct[0], options.exceptId)) taken.add(slug);
    return assignUniqueSlugs(bases, taken);
  }
  const colliding = new Set<string>();
  for (const chunk of chunks(distinct)) {
    for (const row of await trx
      .selectFrom('posts')
      .select('slug')
      .where('type', '=', type)
      .where('slug', 'in', chunk)
      .execute())
      colliding.add(row.slug);
  }
  const seen = new Set<string>();
  for (const base of bases) {
    if (seen.has(base)) colliding.add(base);
    seen.add(base);
  }
  for (const base of colliding) for (const slug of await takenSlugs(trx, type, base)) taken.add(slug);
  return assignUniqueSlugs(bases, taken);
}

/**
 * Runs the slug write `write` under a savepoint (the one retry point of slug writes): when the unique (type, slug)
 * index refuses it, a concurrent writer took a slug meanwhile; the transaction goes back to the savepoint, still
 * usable (PostgreSQL would otherwise have aborted it), and the answer is undefined. Any other error is thrown.
 */
async function unlessSlugTaken<T>(trx: Trx, write: () => Promise<T>): Promise<{ value: T } | undefined> {
  try {
    return { value: await underSavepoint(trx, 'slug_write', write) };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return undefined;
  }
}

const insertedPost = preparedQuery((db, row: NewPost & { slug: string }) =>
  db
    .insertInto('posts')
    .values(row)
    .onConflict((conflict) => conflict.columns(['type', 'slug']).doNothing())
    .returningAll(),
);

/**
 * Inserts with the first free slug among `base`, `base-2`, `base-3`… The unique (type, slug) index decides races: a
 * concurrent writer that took the same candidate makes the insert do nothing, and the next candidate is tried. A lost
 * candidate is remembered, because the winner's row may not be visible yet (it commits later).
 */
export async function insertPost(trx: Trx, values: NewPost, base: string): Promise<PostRow> {
  const lost: string[] = [];
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const [slug] = await freeSlugs(trx, values.type, [base], { lost });
    const row = await insertedPost.first(trx, { ...values, slug });
    if (row) return row;
    lost.push(slug);
  }
  throw new Error(`no free slug for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/** A new post of {@link insertPosts}: its columns (its type is the call's) and the base of its slug. */
export type NewPostWithSlugBase = Omit<NewPost, 'type'> & { slugBase: string };

/**
 * Many posts of one type, each with a unique slug (see {@link freeSlugs}), in few statements whatever their number;
 * returns their ids in input order (Store.insertRowsReturningIds). Should a concurrent writer have taken one of the
 * slugs (the unique index refuses the whole statement, and only once that writer has committed), the slugs are read
 * again, now seeing its row, and the posts inserted again.
 */
export function insertPosts(trx: Trx, type: PostType, posts: readonly NewPostWithSlugBase[]): Promise<number[]> {
  return insertWithFreeSlugs(trx, type, posts, (rows) => storeOf(trx).insertRowsReturningIds(trx, 'posts', rows));
}

/**
 * {@link insertPosts}, answering the new posts whole, in input order, from the inserts themselves
 * (Store.insertRowsReturningAll): for a writer that tells its transaction's followers how it left them.
 */
export function insertPostRows(trx: Trx, type: PostType, posts: readonly NewPostWithSlugBase[]): Promise<PostRow[]> {
  return insertWithFreeSlugs(trx, type, posts, (rows) => storeOf(trx).insertRowsReturningAll(trx, 'posts', rows, 'id'));
}

async function insertWithFreeSlugs<T>(
  trx: Trx,
  type: PostType,
  posts: readonly NewPostWithSlugBase[],
  insert: (rows: Insertable<PostsTable>[]) => Promise<T[]>,
): Promise<T[]> {
  if (posts.length === 0) return [];
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const slugs = await freeSlugs(
      trx,
      type,
      posts.map((post) => post.slugBase),
    );
    const rows = posts.map(({ slugBase: _base, ...post }, index) => ({ ...post, type, slug: slugs[index] }));
    const inserted = await unlessSlugTaken(trx, () => insert(rows));
    if (inserted) return inserted.value;
  }
  throw new Error(`no free slugs for ${posts.length} ${type} posts after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/** Sets a new slug (made unique the same way); a lost race rolls back to a savepoint and tries the next candidate. */
export async function changeSlug(trx: Trx, row: Pick<PostRow, 'id' | 'type' | 'slug'>, base: string): Promise<string> {
  const lost: string[] = [];
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const [slug] = await freeSlugs(trx, row.type, [base], { exceptId: row.id, lost });
    if (slug === row.slug) return slug;
    if (await unlessSlugTaken(trx, () => trx.updateTable('posts').set({ slug }).where('id', '=', row.id).execute()))
      return slug;
    lost.push(slug);
  }
  throw new Error(`no free slug for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/** Rows per CASE statement: two parameters a row, far below every limit. */
const ROWS_PER_CASE = 100;

/**
 * Each post's slug changed to a free one for its new `base` ({@link freeSlugs}): in one CASE statement per
 * {@link ROWS_PER_CASE} posts; a chunk a concurrent writer got in the way of goes one post at a time ({@link changeSlug}).
 */
async function changeSlugs(
  trx: Trx,
  type: PostType,
  renames: ReadonlyArray<{ id: number; slug: string; base: string }>,
): Promise<void> {
  const wanted = renames.filter(({ slug, base }) => slug !== base);
  const slugs = await freeSlugs(
    trx,
    type,
    wanted.map(({ base }) => base),
  );
  const chosen = wanted.map((rename, index) => ({ ...rename, next: slugs[index] }));
  for (const chunk of chunks(chosen, ROWS_PER_CASE)) {
    const written = await unlessSlugTaken(trx, () =>
      trx
        .updateTable('posts')
        .set({
          slug: sql<string>`case ${sql.ref('id')} ${sql.join(
            chunk.map(({ id, next }) => sql`when ${id} then ${next}`),
            sql` `,
          )} end`,
        })
        .where(
          'id',
          'in',
          chunk.map(({ id }) => id),
        )
        .execute(),
    );
    if (written) continue;
    for (const { id, slug, base } of chunk) await changeSlug(trx, { id, type, slug }, base);
  }
}

export async function updatePost(trx: Trx, id: number, values: Updateable<PostsTable>): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await postChanged.affected(trx, id, values);
}

/** Compiled once per set of columns changed (prepared-query.ts). */
const postChanged = preparedQuery((db, id: number, values: Updateable<PostsTable>) =>
  db.updateTable('posts').set(values).where('id', '=', id),
);

/** The same `values` on every post of `ids`, one statement per 500. */
export async function updatePosts(trx: Trx, ids: readonly number[], values: Updateable<PostsTable>): Promise<void> {
  if (Object.keys(values).length === 0) return;
  for (const chunk of chunks(ids)) await trx.updateTable('posts').set(values).where('id', 'in', chunk).execute();
}

/**
 * The current row, locked until the transaction ends; undefined when there is no such post (any more). See
 * posts/lifecycle.ts claimPost. Where several writers run at once (PostgreSQL) the row's lock is a write of nothing
 * (`id = id`); where one does (SQLite, whose write transactions hold the database's write lock from their start) the
 * row is read: on SQLite that write would move the row's index entries, its id being the rowid.
 */
export async function lockPost(trx: Trx, id: number): Promise<PostRow | undefined> {
  return storeOf(trx).writers === 'one' ? postById.first(trx, id) : lockedPost.first(trx, id);
}

const lockedPost = preparedQuery((db, id: number) =>
  db
    .updateTable('posts')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', id)
    .returningAll(),
);

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

/** {@link trashPost} for many posts of one type: one statement per 500 for the status, few for the slugs. */
export async function trashPostRows(
  trx: Trx,
  type: PostType,
  rows: ReadonlyArray<Pick<PostRow, 'id' | 'slug'>>,
  modified: { local: string; utc: string },
): Promise<void> {
  for (const chunk of chunks(rows.map((row) => row.id))) {
    // The right-hand side reads the row as it was: each keeps its own status to restore.
    await trx
      .updateTable('posts')
      .set({
        status: 'trash',
        status_before_trash: sql.ref('status'),
        modified_local: modified.local,
        modified_utc: modified.utc,
      })
      .where('id', 'in', chunk)
      .execute();
  }
  await changeSlugs(
    trx,
    type,
    rows.map((row) => ({ id: row.id, slug: row.slug, base: trashedSlug(row.slug) })),
  );
}

/** D2: a non-trash status sent for a trashed item restores it under a free slug without the `__trashed` suffix. */
export async function restorePost(trx: Trx, row: PostRow, status: string): Promise<void> {
  await updatePost(trx, row.id, { status, status_before_trash: '' });
  await changeSlug(trx, row, untrashedSlug(row.slug));
}

/** {@link restorePost} for many posts of one type, all to `status`; `modified` advances too. */
export async function restorePostRows(
  trx: Trx,
  type: PostType,
  rows: ReadonlyArray<Pick<PostRow, 'id' | 'slug'>>,
  status: string,
  modified: { local: string; utc: string },
): Promise<void> {
  await updatePosts(
    trx,
    rows.map((row) => row.id),
    { status, status_before_trash: '', modified_local: modified.local, modified_utc: modified.utc },
  );
  await changeSlugs(
    trx,
    type,
    rows.map((row) => ({ id: row.id, slug: row.slug, base: untrashedSlug(row.slug) })),
  );
}

export async function deletePost(trx: Trx, id: number): Promise<void> {
  await deletePostRows(trx, [id]);
}

/** Posts gone for good, one DELETE per 500: their own rows (events, venues…) go with them by the foreign keys' cascades. */
export async function deletePostRows(trx: Trx, ids: readonly number[]): Promise<void> {
  for (const chunk of chunks(ids)) await trx.deleteFrom('posts').where('id', 'in', chunk).execute();
}

/** Every post of `fromAuthorId` passes to `toAuthorId` (a user deleted); answers what each was, for the change log. */
export async function reassignPosts(trx: Trx, fromAuthorId: number, toAuthorId: number) {
  return trx
    .updateTable('posts')
    .set({ author_id: toAuthorId })
    .where('author_id', '=', fromAuthorId)
    .returning(['id', 'type', 'status', 'date_utc'])
    .execute();
}
