import { sql } from 'kysely';
import { formatWp } from '../../domain/dates.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify } from '../../domain/slugs.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParam } from '../../http/errors.ts';
import { isRowId, type Db, type Trx } from '../../store/store.ts';
import { byName, serializeEmbeddedTerm, serializeTerm } from './serialize.ts';
import {
  ancestorSlugs, chooseTermSlug, deleteTerm, findNameClash, findTerm, findTermsByNames, findTermsByRefs, insertTerm,
  loadHierarchy, lockTaxonomy, publishedEventCounts, setTermSlug, withDescendants, wouldCreateCycle, type TermRow,
} from './store.ts';
import { TAXONOMIES, type Taxonomy, type TaxonomyInfo } from './taxonomies.ts';

export type { Taxonomy };

// ---------------------------------------------------------------------------------------------------------------------
// What event writes, event lists and event serialization use.

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * Numbers and numeric strings are ids, as in the reference (`is_numeric`): kept as canonical digits when they can name
 * a term, dropped otherwise (an unknown id is skipped anyway). Anything else is a slug or a name; blanks are dropped.
 */
function writeRefs(values: ReadonlyArray<string | number>): string[] {
  const refs: string[] = [];
  for (const value of values) {
    const text = String(value).trim();
    if (text === '') continue;
    if (typeof value !== 'number' && !NUMERIC.test(text)) refs.push(text);
    else if (isRowId(Number(text))) refs.push(String(Number(text)));
  }
  return refs;
}

/**
 * Event writes (§5.2 categories/tags): values are term ids, slugs or names (CSV already split). Unknown numeric ids are
 * skipped; unknown names/slugs are created (name as given, slug from it) when the caller may manage that taxonomy
 * (D16: canManageCategories / canManageTags), otherwise the result is { ok: false, name } so the route answers 400
 * rest_invalid_param on `categories`/`tags`. Duplicates removed, order kept.
 */
export async function resolveTermsForWrite(
  trx: Trx, ctx: RequestContext, taxonomy: Taxonomy, values: Array<string | number>,
): Promise<{ ok: true; ids: number[] } | { ok: false; name: string }> {
  const info = TAXONOMIES[taxonomy];
  const refs = writeRefs(values);
  const byRef = await findTermsByRefs(trx, taxonomy, refs);
  const unresolved = () => refs.filter((ref) => !/^\d+$/.test(ref) && !byRef.has(ref));
  const addNames = async () => {
    const byName = await findTermsByNames(ctx.store, trx, taxonomy, unresolved());
    for (const ref of unresolved()) {
      const row = byName.get(ref.toLowerCase());
      if (row) byRef.set(ref, row);
    }
  };
  await addNames();

  if (unresolved().length > 0) {
    if (!info.canManage(ctx.viewer)) return { ok: false, name: unresolved()[0] };
    await lockTaxonomy(trx, ctx.store.dialect, taxonomy);
    await addNames(); // a concurrent writer may have created some of them meanwhile
    for (const ref of unresolved()) {
      const name = sanitizeTitle(ref);
      if (name === '') return { ok: false, name: ref };
      const row = (await findNameClash(ctx.store, trx, taxonomy, name, info.hierarchical ? 0 : undefined))
        ?? await insertTerm(trx, { taxonomy, name, description: '', parent_id: 0 }, slugify(name) || info.fallbackSlug, []);
      byRef.set(ref, row);
    }
  }

  const ids = refs.map((ref) => byRef.get(ref)?.id).filter((id): id is number => id !== undefined);
  return { ok: true, ids: [...new Set(ids)] };
}

/** Replaces an event's terms of one taxonomy (ids of other taxonomies are ignored). */
export async function setEventTerms(trx: Trx, eventId: number, taxonomy: Taxonomy, termIds: number[]): Promise<void> {
  await trx.deleteFrom('event_terms').where('event_id', '=', eventId)
    .where('term_id', 'in', trx.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy))
    .execute();
  const wanted = [...new Set(termIds)].filter(isRowId);
  if (wanted.length === 0) return;
  await trx.insertInto('event_terms').columns(['event_id', 'term_id'])
    .expression(trx.selectFrom('terms')
      .select([sql<number>`cast(${eventId} as integer)`.as('event_id'), 'id as term_id'])
      .where('taxonomy', '=', taxonomy)
      .where('id', 'in', wanted))
    .execute();
}

/**
 * Event list filters (§4.1): every value (id or slug) must exist in the taxonomy, else null; returns the ids plus,
 * for categories, all descendants.
 */
export async function resolveTermsForFilter(db: Db, taxonomy: Taxonomy, values: string[]): Promise<number[] | null> {
  const refs = values.map((value) => value.trim());
  if (refs.length === 0 || refs.includes('')) return null;
  const found = await findTermsByRefs(db, taxonomy, refs);
  if (found.size !== new Set(refs).size) return null;
  const ids = [...new Set([...found.values()].map((row) => row.id))];
  return TAXONOMIES[taxonomy].hierarchical ? withDescendants(db, ids) : ids;
}

/**
 * Batch, constant query count: the embedded term objects (§3.5 key order, with urls and count) for each event id,
 * sorted by name (case-insensitive), categories and tags apart. Events without terms map to empty arrays.
 */
export async function loadEmbeddedTerms(
  ctx: RequestContext, eventIds: readonly number[],
): Promise<Map<number, { categories: Record<string, unknown>[]; tags: Record<string, unknown>[] }>> {
  const wanted = [...new Set(eventIds)];
  const stored = wanted.filter(isRowId);
  const result = new Map(wanted.map((id) => [id, { categories: [] as Record<string, unknown>[], tags: [] as Record<string, unknown>[] }]));
  if (stored.length === 0) return result;
  const rows = await ctx.store.db.selectFrom('event_terms')
    .innerJoin('terms', 'terms.id', 'event_terms.term_id')
    .selectAll('terms')
    .select('event_terms.event_id')
    .where('event_terms.event_id', 'in', stored)
    .execute();
  const counts = await publishedEventCounts(ctx.store.db, rows.map((row) => row.id), formatWp(ctx.now));
  rows.sort(byName);
  for (const { event_id: eventId, ...term } of rows) {
    const info = TAXONOMIES[term.taxonomy];
    result.get(eventId)![info.collection].push(serializeEmbeddedTerm(ctx.config, info, term, counts.get(term.id) ?? 0));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// What the term routes use.

/** The endpoint form (§3.4) of many terms of one taxonomy, in two queries whatever their number. */
export async function serializeTerms(ctx: RequestContext, info: TaxonomyInfo, rows: readonly TermRow[], counts?: ReadonlyMap<number, number>): Promise<Record<string, unknown>[]> {
  const [usage, hierarchy] = await Promise.all([
    counts ?? publishedEventCounts(ctx.store.db, rows.map((row) => row.id), formatWp(ctx.now)),
    info.hierarchical ? loadHierarchy(ctx.store.db, rows.map((row) => row.parent_id)) : new Map(),
  ]);
  return rows.map((row) => serializeTerm(ctx.config, info, row, usage.get(row.id) ?? 0, hierarchy));
}

export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  /** Categories only: 0 is the top level. */
  parent?: number;
}

const termExists = (info: TaxonomyInfo, existingId: number) =>
  new ApiError(400, 'term_exists', info.termExistsMessage, { term_id: existingId }, { extra: { additional_data: [existingId, existingId] } });

const emptyName = () => new ApiError(400, 'empty_term_name', 'A name is required for this term.');

/** D7: 400 where the reference answers 500 with `data: null`. */
const duplicateSlug = (slug: string) =>
  new ApiError(400, 'duplicate_term_slug', `The slug &#8220;${slug}&#8221; is already in use by another term.`);

const parentLoop = () => invalidParam('parent', {
  code: 'rest_term_parent_loop',
  message: 'A category cannot be placed under itself or under one of its descendants.',
  data: { param: 'parent' },
});

/** Re-read under the taxonomy lock: a concurrent delete may have removed the parent since validation. */
async function requireParent(trx: Trx, info: TaxonomyInfo, parentId: number): Promise<void> {
  if (parentId !== 0 && !(await findTerm(trx, info.taxonomy, parentId))) throw invalidParam('parent');
}

async function parentSlugsOf(trx: Trx, parentId: number): Promise<string[]> {
  return parentId === 0 ? [] : ancestorSlugs(await loadHierarchy(trx, [parentId]), parentId);
}

/** §9.3: a name already used at the same level is refused; a taken slug is made unique. */
export async function createTerm(trx: Trx, ctx: RequestContext, info: TaxonomyInfo, input: TermInput & { name: string }): Promise<TermRow> {
  await lockTaxonomy(trx, ctx.store.dialect, info.taxonomy);
  const name = sanitizeTitle(input.name);
  if (name === '') throw emptyName();
  const parentId = input.parent ?? 0;
  await requireParent(trx, info, parentId);
  const clash = await findNameClash(ctx.store, trx, info.taxonomy, name, info.hierarchical ? parentId : undefined);
  if (clash) throw termExists(info, clash.id);
  const base = slugify(input.slug ?? '') || slugify(name) || info.fallbackSlug;
  return insertTerm(trx, {
    taxonomy: info.taxonomy,
    name,
    description: input.description === undefined ? '' : sanitizeHtml(input.description),
    parent_id: parentId,
  }, base, await parentSlugsOf(trx, parentId));
}

/**
 * §9.4: only what was sent changes. A name or parent that would clash at the new level is refused as on create; a
 * parent that would make a cycle is refused; a slug another term holds is `duplicate_term_slug` (D7).
 */
export async function updateTerm(trx: Trx, ctx: RequestContext, info: TaxonomyInfo, id: number, input: TermInput): Promise<TermRow> {
  await lockTaxonomy(trx, ctx.store.dialect, info.taxonomy);
  const current = await findTerm(trx, info.taxonomy, id);
  if (!current) throw invalidParam('id');
  const name = input.name === undefined ? current.name : sanitizeTitle(input.name);
  if (name === '') throw emptyName();
  const parentId = input.parent ?? current.parent_id;

  if (parentId !== current.parent_id) {
    await requireParent(trx, info, parentId);
    if (parentId !== 0 && await wouldCreateCycle(trx, current.id, parentId)) throw parentLoop();
  }
  if (input.name !== undefined || parentId !== current.parent_id) {
    const clash = await findNameClash(ctx.store, trx, info.taxonomy, name, info.hierarchical ? parentId : undefined, current.id);
    if (clash) throw termExists(info, clash.id);
  }

  if (input.slug !== undefined) {
    const explicit = slugify(input.slug);
    // A slug that sanitises to nothing is read as "derive it from the name", as WordPress does.
    const slug = explicit
      || await chooseTermSlug(trx, info.taxonomy, slugify(name) || info.fallbackSlug, await parentSlugsOf(trx, parentId), current.slug);
    if (!(await setTermSlug(trx, current, slug))) throw duplicateSlug(slug);
  }
  const changes: Partial<Pick<TermRow, 'name' | 'description' | 'parent_id'>> = {};
  if (input.name !== undefined) changes.name = name;
  if (input.description !== undefined) changes.description = sanitizeHtml(input.description);
  if (parentId !== current.parent_id) changes.parent_id = parentId;
  if (Object.keys(changes).length > 0) await trx.updateTable('terms').set(changes).where('id', '=', current.id).execute();
  return (await findTerm(trx, info.taxonomy, current.id))!;
}

/** §9.5: permanent delete; false when the term was already gone (a concurrent delete won). */
export async function removeTerm(trx: Trx, ctx: RequestContext, info: TaxonomyInfo, id: number): Promise<boolean> {
  await lockTaxonomy(trx, ctx.store.dialect, info.taxonomy);
  const current = await findTerm(trx, info.taxonomy, id);
  if (!current) return false;
  await deleteTerm(trx, current);
  return true;
}
