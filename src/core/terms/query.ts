import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Store } from '../../store/store.ts';
import { publishedUsage, usedOrAncestorOfUsed, type TermRow } from './store.ts';
import type { TaxonomyInfo } from './taxonomies.ts';

export interface TermListQuery {
  search?: string;
  include?: number[];
  exclude?: number[];
  parent?: number;
  eventId?: number;
  slug?: string;
  hideEmpty: boolean;
  orderby?: string;
  order?: string;
  page: number;
  perPage: number;
}

export type TermSortKey = 'id' | 'name' | 'slug' | 'count' | 'description' | 'term_group' | 'include';

/** §9.1 `orderby`, read case-insensitively; unknown values (and `include` without an include list) sort by name. */
export function termSortKey(orderby: string | undefined, hasInclude: boolean): TermSortKey {
  const key = (orderby ?? 'name').toLowerCase();
  switch (key) {
    case 'id':
    case 'term_id':
      return 'id';
    case 'slug':
    case 'count':
    case 'description':
    case 'term_group':
      return key;
    case 'include':
      return hasInclude ? 'include' : 'name';
    default:
      return 'name';
  }
}

/** WordPress `parse_order`: `asc` in any case is ascending, absent is ascending, anything else descending. */
export const termSortDirection = (order: string | undefined): 'asc' | 'desc' =>
  order === undefined || order.toLowerCase() === 'asc' ? 'asc' : 'desc';

/**
 * One page of terms with their published-event counts, and the filtered total: two queries whatever the page size.
 * Every order ends with id ascending (D11). Text orders compare code points on both databases.
 */
export async function queryTerms(
  store: Store,
  info: TaxonomyInfo,
  nowUtc: string,
  filters: TermListQuery,
): Promise<{ rows: Array<TermRow & { uses: number }>; total: number }> {
  const db = store.db;
  const textOrder = (expression: RawBuilder<string> | Expression<string>) => store.orderByCodePoint(expression);

  let query = db
    .selectFrom('terms')
    .leftJoin(publishedUsage(db, nowUtc).as('usage'), 'usage.term_id', 'terms.id')
    .where('terms.taxonomy', '=', info.taxonomy);
  if (filters.search !== undefined) {
    const search = filters.search;
    query = query.where(
      sql<SqlBool>`(${store.containsText(sql.ref('terms.name'), search)} or ${store.containsText(sql.ref('terms.slug'), search)})`,
    );
  }
  if (filters.include !== undefined) query = query.where('terms.id', 'in', filters.include);
  if (filters.exclude !== undefined) query = query.where('terms.id', 'not in', filters.exclude);
  if (filters.parent !== undefined) query = query.where('terms.parent_id', '=', filters.parent);
  if (filters.eventId !== undefined) {
    query = query.where(
      'terms.id',
      'in',
      db.selectFrom('event_terms').select('term_id').where('event_id', '=', filters.eventId),
    );
  }
  if (filters.slug !== undefined) query = query.where('terms.slug', '=', filters.slug);
  if (filters.hideEmpty) {
    query = info.hierarchical
      ? query.where('terms.id', 'in', usedOrAncestorOfUsed(db, nowUtc))
      : query.where('usage.uses', 'is not', null);
  }

  const uses = sql<number | string>`coalesce(${sql.ref('usage.uses')}, 0)`;
  const direction = termSortDirection(filters.order);
  const sortKey = termSortKey(filters.orderby, filters.include !== undefined);
  const sortExpression: Expression<unknown> | undefined = {
    id: undefined,
    term_group: undefined,
    name: textOrder(store.lower(sql.ref('terms.name'))),
    slug: textOrder(sql.ref<string>('terms.slug')),
    description: textOrder(store.lower(sql.ref('terms.description'))),
    count: uses,
    include: sql`case ${sql.join(
      (filters.include ?? []).map((id, position) => sql`when ${sql.ref('terms.id')} = ${id} then ${sql.lit(position)}`),
      sql` `,
    )} end`,
  }[sortKey];

  let pageQuery = query.selectAll('terms').select(uses.as('uses'));
  if (sortExpression) pageQuery = pageQuery.orderBy(sortExpression, direction);
  pageQuery = pageQuery.orderBy('terms.id', sortKey === 'id' ? direction : 'asc');

  const [{ total }, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
    pageQuery
      .limit(filters.perPage)
      .offset((filters.page - 1) * filters.perPage)
      .execute(),
  ]);
  return { rows: rows.map((row) => ({ ...row, uses: Number(row.uses) })), total: Number(total) };
}
