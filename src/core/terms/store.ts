import { chunks } from '../../store/chunks.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { TermsTable } from '../../store/schema.ts';
import {
  isRowId,
  isUniqueViolation,
  lastWrite,
  recordTermCountDeltas,
  storeOf,
  type Db,
  type Store,
  type Trx,
} from '../../store/store.ts';
import { recordChange, recordChanges } from '../change-log/log.ts';
import { uniqueTermSlug } from './slugs.ts';
import type { Taxonomy } from './taxonomies.ts';

export type TermRow = Selectable<TermsTable>;
export type NewTerm = Omit<Insertable<TermsTable>, 'id' | 'slug'>;

/** A term's place in the hierarchy: enough to build nested public URLs and child slugs. */
export type Hierarchy = ReadonlyMap<number, { slug: string; parent_id: number }>;

/** A reference to a term by id (all digits), not by slug: how every filter and write reads its values. */
export const isNumeric = (value: string) => /^\d+$/.test(value);
const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

export async function findTerm(db: Db, taxonomy: Taxonomy, id: number): Promise<TermRow | undefined> {
  if (!isRowId(id)) return undefined;
  return termById(db, taxonomy, id).executeTakeFirst();
}

const termById = (db: Db, taxonomy: Taxonomy, id: number) =>
  db.selectFrom('terms').selectAll().where('taxonomy', '=', taxonomy).where('id', '=', id);

/**
 * {@link findTerm} for a write that changes what events embed of it (its name, parent, slug, or its removal), its row
 * locked until `trx` ends where several processes write (`FOR UPDATE`). A transaction linking an event to the term
 * holds a share of that lock (its foreign key check) until it commits: so it has committed, and its link is visible,
 * before this returns, or it waits for `trx` (and for a removed term then fails). The events carrying the term, read
 * after this, are then all of them, and each is logged as changed: without the lock an event linked a moment before
 * would keep the term's old state (or the removed term) in a syncing client's copy. With one writer (SQLite) nobody
 * else can be linking it meanwhile.
 */
export async function findTermForWrite(trx: Trx, taxonomy: Taxonomy, id: number): Promise<TermRow | undefined> {
  if (!isRowId(id)) return undefined;
  return termById(trx, taxonomy, id)
    .$if(storeOf(trx).writers === 'many', (query) => query.forUpdate())
    .executeTakeFirst();
}

/**
 * The ids of a term's children, in id order, locked as {@link findTermForWrite} locks a term: an event write linking
 * one of them holds a share of its row until it commits, so a read after this one sees that link.
 */
export async function lockChildTerms(trx: Trx, taxonomy: Taxonomy, parentId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('terms')
    .select('id')
    .where('taxonomy', '=', taxonomy)
    .where('parent_id', '=', parentId)
    .orderBy('id')
    .$if(storeOf(trx).writers === 'many', (query) => query.forUpdate())
    .execute();
  return rows.map((row) => row.id);
}

/** The terms of several taxonomies named by id or slug: per taxonomy, its ids and its slugs (one of them not empty). */
const termsByRefs = preparedQuery(
  (
    db,
    taxonomies: readonly Taxonomy[],
    ids: ReadonlyArray<readonly number[]>,
    slugs: ReadonlyArray<readonly string[]>,
  ) =>
    db
      .selectFrom('terms')
      .selectAll()
      .where((eb) =>
        eb.or(
          taxonomies.map((taxonomy, index) =>
            eb.and([
              eb('taxonomy', '=', taxonomy),
              eb.or([
                ...(ids[index].length > 0 ? [eb('id', 'in', ids[index])] : []),
                ...(slugs[index].length > 0 ? [eb('slug', 'in', slugs[index])] : []),
              ]),
            ]),
          ),
        ),
      ),
);

/** Terms named by id (all-digit values) or by slug, in one query; each reference maps to its term when it exists. */
export async function findTermsByRefs(
  db: Db,
  taxonomy: Taxonomy,
  refs: readonly string[],
): Promise<Map<string, TermRow>> {
  return (await findTermsByRefsOf(db, [{ taxonomy, refs }]))[0];
}

/**
 * {@link findTermsByRefs} of several taxonomies in one query (an event write's categories and tags): for each one
 * asked for, in order, its references mapped to their terms.
 */
export async function findTermsByRefsOf(
  db: Db,
  wanted: ReadonlyArray<{ taxonomy: Taxonomy; refs: readonly string[] }>,
): Promise<Array<Map<string, TermRow>>> {
  const asked = wanted.map(({ taxonomy, refs }) => ({
    taxonomy,
    refs,
    ids: refs.filter(isNumeric).map(Number).filter(isRowId),
    slugs: refs.filter((ref) => !isNumeric(ref)),
  }));
  const read = asked.filter(({ ids, slugs }) => ids.length > 0 || slugs.length > 0);
  const rows =
    read.length === 0
      ? []
      : await termsByRefs.rows(
          db,
          read.map(({ taxonomy }) => taxonomy),
          read.map(({ ids }) => ids),
          read.map(({ slugs }) => slugs),
        );
  return asked.map(({ taxonomy, refs }) => {
    const ofTaxonomy = rows.filter((row) => row.taxonomy === taxonomy);
    const byId = new Map(ofTaxonomy.map((row) => [String(row.id), row]));
    const bySlug = new Map(ofTaxonomy.map((row) => [row.slug, row]));
    const found = new Map<string, TermRow>();
    for (const ref of refs) {
      const row = isNumeric(ref) ? byId.get(String(Number(ref))) : bySlug.get(ref);
      if (row) found.set(ref, row);
    }
    return found;
  });
}

/** Terms whose name equals one of `names`, case-insensitively for every script (D11); keyed by the lowered name. */
export async function findTermsByNames(
  store: Pick<Store, 'lower'>,
  db: Db,
  taxonomy: Taxonomy,
  names: readonly string[],
): Promise<Map<string, TermRow>> {
  const lowered = [...new Set(names.map((name) => name.toLowerCase()))];
  if (lowered.length === 0) return new Map();
  const rows = await termsByLoweredNames(store, db, taxonomy, lowered).execute();
  const found = new Map<string, TermRow>();
  for (const row of rows) if (!found.has(row.name.toLowerCase())) found.set(row.name.toLowerCase(), row);
  return found;
}

/** D31: through the `terms_taxonomy_lower_name` index (migration 0009), never a scan. */
export const termsByLoweredNames = (
  store: Pick<Store, 'lower'>,
  db: Db,
  taxonomy: Taxonomy,
  lowered: readonly string[],
) =>
  db
    .selectFrom('terms')
    .selectAll()
    .where('taxonomy', '=', taxonomy)
    .where(store.lower(sql.ref('name')), 'in', lowered)
    .orderBy('id');

/**
 * Another term of the taxonomy with this name (case-insensitive) at the same level: under `parentId` for
 * categories, anywhere for tags (`parentId` undefined).
 */
export async function findNameClash(
  store: Pick<Store, 'lower'>,
  db: Db,
  taxonomy: Taxonomy,
  name: string,
  parentId: number | undefined,
  exceptId?: number,
): Promise<TermRow | undefined> {
  let query = db
    .selectFrom('terms')
    .selectAll()
    .where('taxonomy', '=', taxonomy)
    .where(store.lower(sql.ref('name')), '=', name.toLowerCase())
    .orderBy('id');
  if (parentId !== undefined) query = query.where('parent_id', '=', parentId);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

/**
 * Per used term, the events with effective status publish (D17) that carry it: the stored count (kept true by every
 * event write, see counts.ts) plus the scheduled events whose date has come, which are few.
 */
export function publishedUsage(db: Db, nowUtc: string) {
  // Started from the (few) scheduled posts, through their index: a join would let the planner walk every event_terms row.
  // D25: a series counts once, by its own row.
  const dueEvents = db
    .selectFrom('posts')
    .select('posts.id')
    .where('posts.status', '=', 'future')
    .where('posts.date_utc', '<=', nowUtc)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('events')
            .select('events.id')
            .whereRef('events.id', '=', 'posts.id')
            .whereRef('events.series_id', '!=', 'events.id'),
        ),
      ),
    );
  const due = db
    .selectFrom('event_terms')
    .where('event_terms.event_id', 'in', dueEvents)
    .groupBy('event_terms.term_id')
    .select((eb) => ['event_terms.term_id', eb.fn.countAll<number | string>().as('due')]);
  const uses = sql<number | string>`terms.published_count + coalesce(due.due, 0)`;
  return db
    .selectFrom('terms')
    .leftJoin(due.as('due'), 'due.term_id', 'terms.id')
    .select(['terms.id as term_id', uses.as('uses')])
    .where(uses, '>', 0);
}

const publishedUsageOf = preparedQuery((db, nowUtc: string, termIds: readonly number[]) =>
  publishedUsage(db, nowUtc).where('terms.id', 'in', termIds),
);

/** §3.4 `count` for many terms in one query; terms nobody uses are absent (count 0). */
export async function publishedEventCounts(
  db: Db,
  termIds: readonly number[],
  nowUtc: string,
): Promise<Map<number, number>> {
  if (termIds.length === 0) return new Map();
  const rows = await publishedUsageOf.rows(db, nowUtc, [...new Set(termIds)]);
  return new Map(rows.map((row) => [row.term_id, Number(row.uses)]));
}

/**
 * The ids of categories that are not empty in WordPress's hierarchical sense: used by a published event themselves,
 * or an ancestor of one that is (an empty parent of a used child stays listed with `hide_empty`).
 */
export function usedOrAncestorOfUsed(db: Db, nowUtc: string) {
  return db
    .withRecursive('used(id)', (qb) =>
      qb
        .selectFrom(publishedUsage(db, nowUtc).as('usage'))
        .select('usage.term_id as id')
        .union((inner) =>
          inner
            .selectFrom('terms')
            .innerJoin('used', 'used.id', 'terms.id')
            .where('terms.parent_id', '!=', 0)
            .select('terms.parent_id as id'),
        ),
    )
    .selectFrom('used')
    .select('used.id');
}

/** `ids` and all their ancestors, in one recursive query (`union` stops on a damaged, cyclic hierarchy). */
export async function loadHierarchy(db: Db, ids: readonly number[]): Promise<Hierarchy> {
  const wanted = [...new Set(ids.filter((id) => id !== 0))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .withRecursive('chain(id, slug, parent_id)', (qb) =>
      qb
        .selectFrom('terms')
        .where('id', 'in', wanted)
        .select(['id', 'slug', 'parent_id'])
        .union((inner) =>
          inner
            .selectFrom('terms')
            .innerJoin('chain', 'chain.parent_id', 'terms.id')
            .select(['terms.id', 'terms.slug', 'terms.parent_id']),
        ),
    )
    .selectFrom('chain')
    .selectAll()
    .execute();
  return new Map(rows.map((row) => [Number(row.id), { slug: row.slug, parent_id: Number(row.parent_id) }]));
}

/** The slugs from `startId` up to the root, nearest first (`startId` itself included). */
export function ancestorSlugs(hierarchy: Hierarchy, startId: number): string[] {
  const slugs: string[] = [];
  const seen = new Set<number>();
  for (let id = startId; id !== 0 && !seen.has(id); id = hierarchy.get(id)?.parent_id ?? 0) {
    seen.add(id);
    const node = hierarchy.get(id);
    if (!node) break;
    slugs.push(node.slug);
  }
  return slugs;
}

/** Whether `candidateParent` is `id` itself or one of its descendants (moving `id` under it would make a cycle). */
export async function wouldCreateCycle(db: Db, id: number, candidateParent: number): Promise<boolean> {
  const hierarchy = await loadHierarchy(db, [candidateParent]);
  const seen = new Set<number>();
  for (let node = candidateParent; node !== 0 && !seen.has(node); node = hierarchy.get(node)?.parent_id ?? 0) {
    if (node === id) return true;
    seen.add(node);
  }
  return false;
}

/** `ids` plus every descendant, in one recursive query. */
export async function withDescendants(db: Db, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const rows = await descendantsOf.rows(db, wanted);
  return rows.map((row) => Number(row.id));
}

const descendantsOf = preparedQuery((db, ids: readonly number[]) =>
  db
    .withRecursive('tree(id)', (qb) =>
      qb
        .selectFrom('terms')
        .where('id', 'in', ids)
        .select('id')
        .union((inner) => inner.selectFrom('terms').innerJoin('tree', 'tree.id', 'terms.parent_id').select('terms.id')),
    )
    .selectFrom('tree')
    .select('tree.id'),
);

/**
 * Serialises term writes of one taxonomy until the transaction ends, so that two writers cannot both pass the name
 * and hierarchy checks (Store.lock: nothing to do on SQLite, whose writers are serialised).
 */
export async function lockTaxonomy(trx: Trx, store: Pick<Store, 'lock'>, taxonomy: Taxonomy): Promise<void> {
  await store.lock(trx, `terms:${taxonomy}`);
}

/**
 * The first free slug for `base` ({@link uniqueTermSlug}); `ownSlug` is the slug of the term being renamed, which
 * does not count as taken.
 */
export async function chooseTermSlug(
  db: Db,
  taxonomy: Taxonomy,
  base: string,
  parentSlugs: readonly string[],
  ownSlug?: string,
): Promise<string> {
  // Every candidate starts with the base (a numbered one with a shortened base when the base is very long).
  const prefix = base.slice(0, 180);
  const rows = await db
    .selectFrom('terms')
    .select('slug')
    .where('taxonomy', '=', taxonomy)
    .where(sql<boolean>`slug like ${`${escapeLike(prefix)}%`} escape '\\'`)
    .execute();
  const taken = new Set(rows.map((row) => row.slug).filter((slug) => slug !== ownSlug));
  return uniqueTermSlug(base, parentSlugs, taken);
}

// ---------------------------------------------------------------------------------------------------------------------
// The writes of `terms` and `event_terms`: this module alone writes them (test/store/table-owners.test.ts). A term's
// create and delete log themselves in the change log (D21); `terms.published_count` follows every write of the events
// of a term (counts.ts says how), and the batch import's event terms count themselves here.

const MAX_SLUG_ATTEMPTS = 20;

/** A taxonomy's items in the change log. */
const changeTypeOf = (taxonomy: Taxonomy) => (taxonomy === 'event_category' ? 'category' : 'tag');

/**
 * Inserts with the first free slug (§9.3), logged as created. The unique (taxonomy, slug) index decides races: a
 * concurrent writer that took the same candidate makes the insert do nothing, and the next candidate is tried.
 */
export async function insertTerm(
  trx: Trx,
  values: NewTerm,
  base: string,
  parentSlugs: readonly string[],
): Promise<TermRow> {
  for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
    const slug = await chooseTermSlug(trx, values.taxonomy, base, parentSlugs);
    const row = await trx
      .insertInto('terms')
      .values({ ...values, slug })
      .onConflict((conflict) => conflict.columns(['taxonomy', 'slug']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) {
      recordChange(trx, { type: changeTypeOf(row.taxonomy), id: row.id, action: 'created' });
      return row;
    }
  }
  throw new Error(`no free term slug for "${base}" after ${MAX_SLUG_ATTEMPTS} attempts`);
}

/**
 * Terms of one taxonomy with the slugs given (the batch import: slugs already made unique), through the store's row
 * writer; logged as created. Answers their ids in input order.
 */
export async function insertTerms(
  trx: Trx,
  taxonomy: Taxonomy,
  rows: ReadonlyArray<Omit<Insertable<TermsTable>, 'taxonomy'>>,
): Promise<number[]> {
  const ids = await storeOf(trx).insertRowsReturningIds(
    trx,
    'terms',
    rows.map((row) => ({ ...row, taxonomy })),
  );
  recordChanges(trx, changeTypeOf(taxonomy), ids, 'created');
  return ids;
}

/** The name, description or parent of a term; nothing when none is given. */
export async function updateTermRow(
  trx: Trx,
  id: number,
  changes: Updateable<Pick<TermsTable, 'name' | 'description' | 'parent_id'>>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await trx.updateTable('terms').set(changes).where('id', '=', id).execute();
}

/**
 * Adds each delta to its term's published count. In a transaction of Store.transaction the deltas are summed and
 * written once, as its last write before it enters commit order (a lastWrite hook, after the stored documents are
 * rendered): every event write moves the counts of the terms it carries, so on PostgreSQL two writes sharing a
 * popular term would otherwise wait for each other's commit from the moment the first moved it (its row lock), for
 * the whole rest of its work, and a batch of writes would send one statement per write. Nothing in a write reads a
 * count back before its commit (the answers, webhooks and snapshot read after it), and no savepoint that may be
 * rolled back encloses a call. Outside Store.transaction they are written at once.
 */
export async function addToPublishedCounts(trx: Trx, deltas: ReadonlyMap<number, number>): Promise<void> {
  const changed = new Map([...deltas].filter(([, delta]) => delta !== 0));
  if (changed.size === 0) return;
  if (!recordTermCountDeltas(trx, changed)) return writePublishedCounts(trx, changed);
  let pending = pendingCounts.get(trx);
  if (pending === undefined) {
    const sums = new Map<number, number>();
    pendingCounts.set(trx, sums);
    lastWrite(trx, async () => {
      pendingCounts.delete(trx);
      await writePublishedCounts(trx, sums);
    });
    pending = sums;
  }
  for (const [termId, delta] of changed) pending.set(termId, (pending.get(termId) ?? 0) + delta);
}

/** The deltas of each open transaction not written yet (see {@link addToPublishedCounts}). */
const pendingCounts = new WeakMap<Trx, Map<number, number>>();

/**
 * One statement for up to 200 terms (a round trip each on PostgreSQL), which finds the rows by key in id order, so
 * two writes touching the same terms lock them in the same order.
 */
async function writePublishedCounts(trx: Trx, deltas: ReadonlyMap<number, number>): Promise<void> {
  const changed = [...deltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => a - b);
  for (const part of chunks(changed, 200))
    await addedToCounts.affected(
      trx,
      part.map(([termId]) => termId),
      part.map(([, delta]) => delta),
    );
}

const addedToCounts = preparedQuery((db, termIds: readonly number[], deltas: readonly number[]) => {
  const added = sql.join(
    termIds.map((termId, index) => sql`when ${termId} then cast(${deltas[index]} as integer)`),
    sql` `,
  );
  return db
    .updateTable('terms')
    .set({ published_count: sql`published_count + case id ${added} end` })
    .where('id', 'in', termIds);
});

/** Replaces an event's terms of one taxonomy (ids of other taxonomies are ignored). */
export async function setEventTerms(trx: Trx, eventId: number, taxonomy: Taxonomy, termIds: number[]): Promise<void> {
  await trx
    .deleteFrom('event_terms')
    .where('event_id', '=', eventId)
    .where('term_id', 'in', trx.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy))
    .execute();
  await addEventTerms(trx, eventId, [{ taxonomy, termIds }]);
}

/** Terms of an event per taxonomy: only ids of terms of that taxonomy count. */
type TermsOfTaxonomies = ReadonlyArray<{ taxonomy: Taxonomy; termIds: readonly number[] }>;

/**
 * Links an event to terms of one or more taxonomies (a write's categories and tags at once), in one statement through
 * the terms table: an id of another taxonomy, or of a term deleted since it was found, is left out. Answers the ids
 * linked.
 */
async function addEventTerms(trx: Trx, eventId: number, terms: TermsOfTaxonomies): Promise<number[]> {
  const wanted = terms
    .map(({ taxonomy, termIds }) => ({ taxonomy, termIds: [...new Set(termIds)].filter(isRowId) }))
    .filter(({ termIds }) => termIds.length > 0);
  if (wanted.length === 0) return [];
  const rows = await eventTermsAdded.rows(
    trx,
    eventId,
    wanted.map(({ taxonomy }) => taxonomy),
    wanted.map(({ termIds }) => termIds),
  );
  return rows.map((row) => row.term_id);
}

/**
 * The terms of an event created in `trx` (it has none yet), with their counts when it is stored as published (a series
 * by its own row, D25): counted from what the insert linked, with no read back. Answers the ids linked.
 */
export async function addNewEventTerms(
  trx: Trx,
  eventId: number,
  terms: TermsOfTaxonomies,
  published: boolean,
): Promise<number[]> {
  const linked = await addEventTerms(trx, eventId, terms);
  if (published) await addToPublishedCounts(trx, new Map(linked.map((termId) => [termId, 1])));
  return linked;
}

const eventTermsAdded = preparedQuery(
  (db, eventId: number, taxonomies: readonly Taxonomy[], termIds: ReadonlyArray<readonly number[]>) =>
    db
      .insertInto('event_terms')
      .columns(['event_id', 'term_id'])
      .expression(
        db
          .selectFrom('terms')
          .select([sql<number>`cast(${eventId} as integer)`.as('event_id'), 'id as term_id'])
          .where((eb) =>
            eb.or(
              taxonomies.map((taxonomy, index) =>
                eb.and([eb('taxonomy', '=', taxonomy), eb('id', 'in', termIds[index])]),
              ),
            ),
          ),
      )
      .returning('term_id'),
);

/**
 * The terms of new events (the batch import), through the store's row writer, with the counts of their terms: each
 * event says whether it is stored as published, so the counts need no read-back.
 */
export async function insertNewEventTerms(
  trx: Trx,
  events: ReadonlyArray<{ eventId: number; published: boolean; termIds: readonly number[] }>,
): Promise<void> {
  await storeOf(trx).insertRows(
    trx,
    'event_terms',
    events.flatMap(({ eventId, termIds }) => termIds.map((termId) => ({ event_id: eventId, term_id: termId }))),
  );
  const deltas = new Map<number, number>();
  for (const { published, termIds } of events)
    if (published) for (const termId of termIds) deltas.set(termId, (deltas.get(termId) ?? 0) + 1);
  await addToPublishedCounts(trx, deltas);
}

/**
 * The series' terms of `taxonomies` copied onto its occurrences `ids` (replacing theirs). No count changes: a series
 * counts once, by its own row (D25).
 */
export async function copySeriesTerms(
  trx: Trx,
  seriesId: number,
  ids: readonly number[],
  taxonomies: readonly Taxonomy[],
): Promise<void> {
  if (taxonomies.length === 0) return;
  const ofTaxonomies = trx.selectFrom('terms').select('terms.id').where('terms.taxonomy', 'in', taxonomies);
  await trx.deleteFrom('event_terms').where('event_id', 'in', ids).where('term_id', 'in', ofTaxonomies).execute();
  await trx
    .insertInto('event_terms')
    .columns(['event_id', 'term_id'])
    .expression((eb) =>
      eb
        .selectFrom('events')
        .crossJoin('event_terms')
        .select(['events.id', 'event_terms.term_id'])
        .where('event_terms.event_id', '=', seriesId)
        .where('events.id', 'in', ids)
        .where('event_terms.term_id', 'in', ofTaxonomies),
    )
    .execute();
}

/**
 * Sets a slug that must be free; false when another term holds it (checked first, then enforced by the index). After
 * false the caller must abandon the transaction: on PostgreSQL a violated index has aborted it.
 */
export async function setTermSlug(trx: Trx, row: TermRow, slug: string): Promise<boolean> {
  if (slug === row.slug) return true;
  const holder = await trx
    .selectFrom('terms')
    .select('id')
    .where('taxonomy', '=', row.taxonomy)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (holder) return false;
  try {
    await trx.updateTable('terms').set({ slug }).where('id', '=', row.id).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * §9.5: permanent; the term leaves every event and its children move up to its parent. Logged as deleted. Answers the
 * events whose link it removed, all of them even while other processes link the term: the links are removed, then the
 * term's row is locked as {@link findTermForWrite} locks it (a transaction that linked it meanwhile has committed
 * then, and no other can link it any more), then the links committed meanwhile are removed too. Locking first would
 * let an event write that is replacing the links of an event carrying the term (holding that link, about to link the
 * term again) and this removal wait for each other.
 */
export async function deleteTerm(trx: Trx, row: TermRow): Promise<number[]> {
  const unlink = async () =>
    (await trx.deleteFrom('event_terms').where('term_id', '=', row.id).returning('event_id').execute()).map(
      (link) => link.event_id,
    );
  const unlinked = await unlink();
  if (storeOf(trx).writers === 'many') {
    await findTermForWrite(trx, row.taxonomy, row.id);
    unlinked.push(...(await unlink()));
  }
  await trx
    .updateTable('terms')
    .set({ parent_id: row.parent_id })
    .where('taxonomy', '=', row.taxonomy)
    .where('parent_id', '=', row.id)
    .execute();
  await trx.deleteFrom('terms').where('id', '=', row.id).execute();
  recordChange(trx, { type: changeTypeOf(row.taxonomy), id: row.id, action: 'deleted' });
  return [...new Set(unlinked)];
}
