// The categories and tags core: term writes (each in its own transaction, logged in the change log), what event writes
// and event reads need of terms, and the endpoint form of many terms. Functions of (store or transaction, actor,
// input); they throw the domain errors of src/domain/errors.ts, which the HTTP edge maps to the contract's answers.
import { recordChange, recordChanges } from '../change-log/log.ts';
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { DomainError, invalidField, notAllowed } from '../../domain/errors.ts';
import { sanitizeHtml, sanitizeTitle } from '../../domain/html.ts';
import { slugify } from '../../domain/slugs.ts';
import { isRowId, outsideTransaction, type Db, type Store, type Trx } from '../../store/store.ts';
import { embeddedTerms, type TermReader } from './embedded-cache.ts';
import { byName, serializeTerm } from './serialize.ts';
import {
  ancestorSlugs,
  chooseTermSlug,
  deleteTerm,
  findNameClash,
  findTerm,
  lockChildTerms,
  findTermForWrite,
  findTermsByNames,
  findTermsByRefs,
  findTermsByRefsOf,
  insertTerm,
  loadHierarchy,
  lockTaxonomy,
  publishedEventCounts,
  setTermSlug,
  updateTermRow,
  withDescendants,
  wouldCreateCycle,
  type TermRow,
} from './store.ts';
import { termRefs } from './lookup.ts';
import { TAXONOMIES, type Taxonomy, type TaxonomyInfo } from './taxonomies.ts';
import type { WriteOptions } from '../posts/lifecycle.ts';

export type { Taxonomy };
// Event writes set an event's terms through the terms core; the statements are the terms repository's.
export { addNewEventTerms, setEventTerms } from './store.ts';

// ---------------------------------------------------------------------------------------------------------------------
// The change log (D21). A term's own create, update and delete are logged (its create and delete by the repository,
// store.ts, whose writes log themselves); so is every other item whose representation the write changes: descendants
// whose public URL (it holds every ancestor's slug) or parent changes, and events whose embedded term (§3.5: name,
// slug, description, parent, urls) changes or goes. Count changes are not logged.

const changeType = (info: TaxonomyInfo) => (info.hierarchical ? 'category' : 'tag');

const logTermUpdated = (trx: Trx, info: TaxonomyInfo, id: number) =>
  recordChange(trx, { type: changeType(info), id, action: 'updated' });

/** Logs `ids` (other terms of the taxonomy whose representation changed) as updated, in id order. */
const logTermsUpdated = (trx: Trx, info: TaxonomyInfo, ids: readonly number[]) =>
  recordChanges(
    trx,
    changeType(info),
    [...ids].sort((a, b) => a - b),
    'updated',
  );

/** The events that carry one of `termIds`, in id order. */
async function eventsCarrying(trx: Trx, termIds: readonly number[]): Promise<number[]> {
  if (termIds.length === 0) return [];
  const rows = await trx
    .selectFrom('event_terms')
    .select('event_id')
    .distinct()
    .where('term_id', 'in', [...new Set(termIds)])
    .orderBy('event_id')
    .execute();
  return rows.map((row) => row.event_id);
}

/** Logs `eventIds` as updated: their embedded terms changed (their own rows did not, unless `embedded` is false). */
const logEventsUpdated = (trx: Trx, eventIds: readonly number[], embedded = true) =>
  recordChanges(trx, 'event', eventIds, 'updated', { embedded });

/** The descendants of a category (itself excluded). */
async function descendantsOf(trx: Trx, info: TaxonomyInfo, id: number): Promise<number[]> {
  if (!info.hierarchical) return [];
  return (await withDescendants(trx, [id])).filter((descendant) => descendant !== id);
}

// ---------------------------------------------------------------------------------------------------------------------
// What event writes, event lists and event serialization use.

type ResolvedTerms = { ok: true; ids: number[] } | { ok: false; name: string };

/**
 * Event writes (§5.2 categories/tags), inside the event write's transaction: values are term ids, slugs or names (CSV
 * already split). Unknown numeric ids are skipped; unknown names/slugs are created (name as given, slug from it, logged
 * as created) when the actor may manage that taxonomy (D16: canManageCategories / canManageTags), otherwise the result
 * is { ok: false, name } so the caller answers 400 rest_invalid_param on `categories`/`tags`. Duplicates removed, order
 * kept.
 */
export async function resolveTermsForWrite(
  trx: Trx,
  store: Store,
  actor: Actor,
  taxonomy: Taxonomy,
  values: Array<string | number>,
): Promise<ResolvedTerms> {
  return (await resolveEventTermsForWrite(trx, store, actor, [{ taxonomy, values }]))[0];
}

/**
 * {@link resolveTermsForWrite} for each taxonomy an event write sends (its categories and tags), in order, their ids
 * and slugs read in one statement. Stops at the first refusal, which is then the last result: a later taxonomy is
 * neither read further nor written.
 */
export async function resolveEventTermsForWrite(
  trx: Trx,
  store: Store,
  actor: Actor,
  sent: ReadonlyArray<{ taxonomy: Taxonomy; values: Array<string | number> }>,
): Promise<ResolvedTerms[]> {
  const refs = sent.map(({ values }) => termRefs(values));
  const found = await findTermsByRefsOf(
    trx,
    sent.map(({ taxonomy }, index) => ({ taxonomy, refs: refs[index] })),
  );
  const results: ResolvedTerms[] = [];
  for (const [index, { taxonomy }] of sent.entries()) {
    const result = await resolveFound(trx, store, actor, taxonomy, refs[index], found[index]);
    results.push(result);
    if (!result.ok) break;
  }
  return results;
}

/** {@link resolveTermsForWrite} of `refs`, those found by id or slug given (`byRef`, which it completes). */
async function resolveFound(
  trx: Trx,
  store: Store,
  actor: Actor,
  taxonomy: Taxonomy,
  refs: readonly string[],
  byRef: Map<string, TermRow>,
): Promise<ResolvedTerms> {
  const info = TAXONOMIES[taxonomy];
  const unresolved = () => refs.filter((ref) => !/^\d+$/.test(ref) && !byRef.has(ref));
  const addNames = async () => {
    const byName = await findTermsByNames(store, trx, taxonomy, unresolved());
    for (const ref of unresolved()) {
      const row = byName.get(ref.toLowerCase());
      if (row) byRef.set(ref, row);
    }
  };
  await addNames();

  if (unresolved().length > 0) {
    if (!info.canManage(actor.viewer)) return { ok: false, name: unresolved()[0] };
    await lockTaxonomy(trx, store, taxonomy);
    await addNames(); // a concurrent writer may have created some of them meanwhile
    for (const ref of unresolved()) {
      const name = sanitizeTitle(ref);
      if (name === '') return { ok: false, name: ref };
      let row = await findNameClash(store, trx, taxonomy, name, info.hierarchical ? 0 : undefined);
      if (!row) {
        row = await insertTerm(
          trx,
          { taxonomy, name, description: '', parent_id: 0 },
          slugify(name) || info.fallbackSlug,
          [],
        );
      }
      byRef.set(ref, row);
    }
  }

  const ids = refs.map((ref) => byRef.get(ref)?.id).filter((id): id is number => id !== undefined);
  return { ok: true, ids: [...new Set(ids)] };
}

/**
 * Event list filters (§4.1): every value (id or slug) must exist in the taxonomy, else null; returns the ids plus,
 * for categories, all descendants.
 */
export async function resolveTermsForFilter(
  db: Db,
  taxonomy: Taxonomy,
  values: string[],
  reader?: TermReader,
): Promise<number[] | null> {
  const refs = values.map((value) => value.trim());
  if (refs.length === 0 || refs.includes('')) return null;
  // From the process's term snapshot when it holds at the version the request read (embedded-cache.ts), with no
  // statement; else read here. Both answer the same ids, in ascending order.
  const snapshots = reader?.caches?.embeddedTerms;
  // Never inside a transaction (its own writes must be seen), and only for the snapshots' own store.
  const held =
    reader !== undefined && snapshots !== undefined && outsideTransaction(db) === snapshots.store
      ? await snapshots.filterIds(reader, taxonomy, refs)
      : undefined;
  if (held !== undefined) return held;
  const found = await findTermsByRefs(db, taxonomy, refs);
  if (found.size !== new Set(refs).size) return null;
  const ids = [...new Set([...found.values()].map((row) => row.id))];
  return (TAXONOMIES[taxonomy].hierarchical ? await withDescendants(db, ids) : ids).sort((a, b) => a - b);
}

/** The embedded term objects of one event, categories and tags apart. */
interface EventTerms {
  categories: Record<string, unknown>[];
  tags: Record<string, unknown>[];
}

/**
 * Batch, constant query count: the embedded term objects (§3.5 key order, with urls and count) for each event id,
 * sorted by name (case-insensitive), categories and tags apart. Events without terms map to empty arrays.
 */
export async function loadEmbeddedTerms(
  db: Db,
  reader: TermReader,
  eventIds: readonly number[],
): Promise<Map<number, EventTerms>> {
  const wanted = [...new Set(eventIds)];
  const stored = wanted.filter(isRowId);
  const result = new Map<number, EventTerms>(wanted.map((id) => [id, { categories: [], tags: [] }]));
  if (stored.length === 0) return result;
  const links = await db
    .selectFrom('event_terms')
    .select(['event_id', 'term_id'])
    .where('event_id', 'in', stored)
    .execute();
  const terms = await embeddedTerms(
    db,
    reader,
    links.map((link) => link.term_id),
  );
  const embedded = links.flatMap((link) => {
    const term = terms.get(link.term_id);
    return term ? [{ eventId: link.event_id, ...term }] : [];
  });
  embedded.sort((a, b) => byName(a.row, b.row));
  for (const { eventId, row, object } of embedded)
    result.get(eventId)![TAXONOMIES[row.taxonomy].collection].push(object);
  return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// Reads and writes of terms themselves.

/** Categories or tags by id, each as GET by id shows it; ids that name none are left out (sync, webhooks). */
export async function serializeTermsById(
  db: Db,
  actor: Pick<Actor, 'now' | 'config'>,
  taxonomy: Taxonomy,
  ids: readonly number[],
): Promise<Map<number, Record<string, unknown>>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('terms')
    .selectAll()
    .where('taxonomy', '=', taxonomy)
    .where('id', 'in', [...ids])
    .execute();
  const serialized = await serializeTerms(db, actor, TAXONOMIES[taxonomy], rows);
  return new Map(rows.map((row, index) => [row.id, serialized[index]]));
}

/** The endpoint form (§3.4) of many terms of one taxonomy, in two queries whatever their number. */
export async function serializeTerms(
  db: Db,
  actor: Pick<Actor, 'now' | 'config'>,
  info: TaxonomyInfo,
  rows: readonly TermRow[],
  counts?: ReadonlyMap<number, number>,
): Promise<Record<string, unknown>[]> {
  const [usage, hierarchy] = await Promise.all([
    counts ??
      publishedEventCounts(
        db,
        rows.map((row) => row.id),
        formatWp(actor.now),
      ),
    info.hierarchical
      ? loadHierarchy(
          db,
          rows.map((row) => row.parent_id),
        )
      : new Map(),
  ]);
  return rows.map((row) => serializeTerm(actor.config, info, row, usage.get(row.id) ?? 0, hierarchy));
}

export interface TermInput {
  name?: string;
  description?: string;
  slug?: string;
  /** Categories only: 0 is the top level. */
  parent?: number;
}

/** §9.3: a name already used at the same level; the reference repeats the id in `additional_data`. */
const termExists = (info: TaxonomyInfo, existingId: number) =>
  new DomainError(
    'invalid',
    'term_exists',
    info.termExistsMessage,
    { term_id: existingId },
    { additional_data: [existingId, existingId] },
  );

const emptyName = () => new DomainError('invalid', 'empty_term_name', 'A name is required for this term.');

/** D7: 400 where the reference answers 500 with `data: null`. */
const duplicateSlug = (slug: string) =>
  new DomainError(
    'invalid',
    'duplicate_term_slug',
    `The slug &#8220;${slug}&#8221; is already in use by another term.`,
  );

/** §9.3: tags have no hierarchy. */
export const notHierarchical = () =>
  new DomainError('invalid', 'rest_taxonomy_not_hierarchical', 'Cannot set parent term, taxonomy is not hierarchical.');

const parentLoop = () =>
  invalidField('parent', {
    code: 'rest_term_parent_loop',
    message: 'A category cannot be placed under itself or under one of its descendants.',
    data: { param: 'parent' },
  });

/** §1.5: author or above manage categories, editor or above tags; then a parent is refused on a flat taxonomy. */
function checkWrite(actor: Actor, info: TaxonomyInfo, input: TermInput): void {
  if (!info.canManage(actor.viewer)) throw notAllowed();
  if (!info.hierarchical && input.parent !== undefined) throw notHierarchical();
}

/** Re-read under the taxonomy lock: a concurrent delete may have removed the parent since validation. */
async function requireParent(trx: Trx, info: TaxonomyInfo, parentId: number): Promise<void> {
  if (parentId !== 0 && !(await findTerm(trx, info.taxonomy, parentId))) throw invalidField('parent');
}

async function parentSlugsOf(trx: Trx, parentId: number): Promise<string[]> {
  return parentId === 0 ? [] : ancestorSlugs(await loadHierarchy(trx, [parentId]), parentId);
}

/** §9.3, in its own transaction: a name already used at the same level is refused; a taken slug is made unique. */
export async function createTerm(
  store: Store,
  actor: Actor,
  info: TaxonomyInfo,
  input: TermInput & { name: string },
): Promise<TermRow> {
  checkWrite(actor, info, input);
  return store.transaction(async (trx) => {
    await lockTaxonomy(trx, store, info.taxonomy);
    const name = sanitizeTitle(input.name);
    if (name === '') throw emptyName();
    const parentId = input.parent ?? 0;
    await requireParent(trx, info, parentId);
    const clash = await findNameClash(store, trx, info.taxonomy, name, info.hierarchical ? parentId : undefined);
    if (clash) throw termExists(info, clash.id);
    const base = slugify(input.slug ?? '') || slugify(name) || info.fallbackSlug;
    const row = await insertTerm(
      trx,
      {
        taxonomy: info.taxonomy,
        name,
        description: input.description === undefined ? '' : sanitizeHtml(input.description),
        parent_id: parentId,
      },
      base,
      await parentSlugsOf(trx, parentId),
    );
    return row;
  });
}

/**
 * §9.4, in its own transaction: only what was sent changes. A name or parent that would clash at the new level is
 * refused as on create; a parent that would make a cycle is refused; a slug another term holds is
 * `duplicate_term_slug` (D7). A term that is not there (any more) is an invalid `id`.
 */
export async function updateTerm(
  store: Store,
  actor: Actor,
  info: TaxonomyInfo,
  id: number,
  input: TermInput,
  options: WriteOptions = {},
): Promise<TermRow> {
  checkWrite(actor, info, input);
  return store.transaction(async (trx) => {
    await lockTaxonomy(trx, store, info.taxonomy);
    // Locked, so that the events carrying it, logged below, include one linked to it a moment before (findTermForWrite).
    const current = await findTermForWrite(trx, info.taxonomy, id);
    if (!current) throw invalidField('id');
    await options.precondition?.(trx);
    const name = input.name === undefined ? current.name : sanitizeTitle(input.name);
    if (name === '') throw emptyName();
    const parentId = input.parent ?? current.parent_id;

    if (parentId !== current.parent_id) {
      await requireParent(trx, info, parentId);
      if (parentId !== 0 && (await wouldCreateCycle(trx, current.id, parentId))) throw parentLoop();
    }
    if (input.name !== undefined || parentId !== current.parent_id) {
      const clash = await findNameClash(
        store,
        trx,
        info.taxonomy,
        name,
        info.hierarchical ? parentId : undefined,
        current.id,
      );
      if (clash) throw termExists(info, clash.id);
    }

    if (input.slug !== undefined) {
      const explicit = slugify(input.slug);
      // A slug that sanitises to nothing is read as "derive it from the name", as WordPress does.
      const slug =
        explicit ||
        (await chooseTermSlug(
          trx,
          info.taxonomy,
          slugify(name) || info.fallbackSlug,
          await parentSlugsOf(trx, parentId),
          current.slug,
        ));
      if (!(await setTermSlug(trx, current, slug))) throw duplicateSlug(slug);
    }
    const changes: Partial<Pick<TermRow, 'name' | 'description' | 'parent_id'>> = {};
    if (input.name !== undefined) changes.name = name;
    if (input.description !== undefined) changes.description = sanitizeHtml(input.description);
    if (parentId !== current.parent_id) changes.parent_id = parentId;
    await updateTermRow(trx, current.id, changes);
    const updated = (await findTerm(trx, info.taxonomy, current.id))!;

    logTermUpdated(trx, info, updated.id);
    // The public URL of every descendant holds this category's slug, under its ancestors' slugs.
    const moved = updated.slug !== current.slug || updated.parent_id !== current.parent_id;
    if (moved) logTermsUpdated(trx, info, await descendantsOf(trx, info, updated.id));
    const embeddedChanged = moved || updated.name !== current.name || updated.description !== current.description;
    if (embeddedChanged) logEventsUpdated(trx, await eventsCarrying(trx, [updated.id]));
    return updated;
  });
}

/**
 * §9.5, in its own transaction: permanent; the term leaves every event and its children move up to its parent.
 * Answers the row as it was; a term that is not there (any more: a concurrent delete won) is an invalid `id`.
 */
export async function removeTerm(
  store: Store,
  actor: Actor,
  info: TaxonomyInfo,
  id: number,
  options: WriteOptions = {},
): Promise<TermRow> {
  checkWrite(actor, info, {});
  return store.transaction(async (trx) => {
    await lockTaxonomy(trx, store, info.taxonomy);
    const current = await findTerm(trx, info.taxonomy, id);
    if (!current) throw invalidField('id');
    await options.precondition?.(trx);
    // Its descendants' public URLs lose its slug; its children also get a new parent, and so do the events carrying them.
    const descendants = await descendantsOf(trx, info, current.id);
    // The events its children embed it in (their parent changes), read once the children are locked: an event another
    // process is linking to one of them meanwhile has committed by then, and is logged too. And those it leaves:
    // deleteTerm answers each event it unlinked, one linked by another process a moment before included.
    const children = info.hierarchical ? await lockChildTerms(trx, info.taxonomy, current.id) : [];
    const carriers = await eventsCarrying(trx, children);
    const unlinked = await deleteTerm(trx, current);
    logTermsUpdated(trx, info, descendants);
    logEventsUpdated(
      trx,
      [...new Set([...carriers, ...unlinked])].sort((a, b) => a - b),
      false,
    );
    return current;
  });
}
