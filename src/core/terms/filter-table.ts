// The `categories` and `tags` filters of a list (§4.1) resolved from a table of a taxonomy's terms held in memory
// (the term snapshot's, embedded-cache.ts), as resolveTermsForFilter resolves them with two statements: every value,
// an id or a slug, must name a term, else the filter is invalid (null); a category brings its descendants. Pure.
import { isRowId } from '../../store/store.ts';
import { isNumeric } from './store.ts';

/** A taxonomy's terms, as much of each as a filter reads. */
export interface TermTable {
  /** By id: the term's slug and its parent's id (0 for none). */
  byId: ReadonlyMap<number, { slug: string; parentId: number }>;
  /** By slug: the term's id. */
  bySlug: ReadonlyMap<string, number>;
  /** By parent id: its children's ids. */
  children: ReadonlyMap<number, readonly number[]>;
}

/** The table of `rows` (one taxonomy's terms, every one of them). */
export function termTable(rows: Iterable<{ id: number; slug: string; parent_id: number }>): TermTable {
  const byId = new Map<number, { slug: string; parentId: number }>();
  const bySlug = new Map<string, number>();
  const children = new Map<number, number[]>();
  for (const row of rows) {
    const id = Number(row.id);
    const parentId = Number(row.parent_id);
    byId.set(id, { slug: row.slug, parentId });
    bySlug.set(row.slug, id);
    const siblings = children.get(parentId);
    if (siblings === undefined) children.set(parentId, [id]);
    else siblings.push(id);
  }
  return { byId, bySlug, children };
}

/**
 * The ids `refs` (trimmed, none empty) name in `table`, each distinct one once, with every descendant when
 * `hierarchical`; null when one of them names no term. In ascending order.
 */
export function resolveFilterRefs(table: TermTable, refs: readonly string[], hierarchical: boolean): number[] | null {
  const named = new Set<number>();
  for (const ref of new Set(refs)) {
    const id = isNumeric(ref)
      ? isRowId(Number(ref)) && table.byId.has(Number(ref))
        ? Number(ref)
        : undefined
      : table.bySlug.get(ref);
    if (id === undefined) return null;
    named.add(id);
  }
  if (hierarchical) {
    // Breadth first; a term reached twice (it cannot be, parents form a tree) is followed once.
    const queue = [...named];
    for (let at = 0; at < queue.length; at++)
      for (const child of table.children.get(queue[at]) ?? [])
        if (!named.has(child)) {
          named.add(child);
          queue.push(child);
        }
  }
  return [...named].sort((a, b) => a - b);
}
