import type { Config } from '../../config.ts';
import { ancestorSlugs, type Hierarchy, type TermRow } from './store.ts';
import type { TaxonomyInfo } from './taxonomies.ts';

/** §3.4 `urls`: the term's own API URL, its collection, and its parent's when it has one. */
export function termUrls(config: Config, info: TaxonomyInfo, row: TermRow): Record<string, string> {
  const collection = `${config.apiRoot}/${info.collection}`;
  const urls: Record<string, string> = { self: `${collection}/${row.id}`, collection };
  if (row.parent_id !== 0) urls.up = `${collection}/${row.parent_id}`;
  return urls;
}

/** D1: `{SITE_URL}/events/category/<ancestors…>/<slug>/` for categories, `{SITE_URL}/events/tag/<slug>/` for tags. */
export function publicTermUrl(config: Config, info: TaxonomyInfo, row: TermRow, hierarchy: Hierarchy): string {
  const path = row.parent_id === 0 ? [] : ancestorSlugs(hierarchy, row.parent_id).reverse();
  return `${config.siteUrl}/${info.publicPath}/${[...path, row.slug].join('/')}/`;
}

/** §3.4, the endpoint form, without WordPress's `_links` (D7); `parent` only for hierarchical taxonomies. */
export function serializeTerm(
  config: Config,
  info: TaxonomyInfo,
  row: TermRow,
  count: number,
  hierarchy: Hierarchy,
): Record<string, unknown> {
  const term: Record<string, unknown> = {
    id: row.id,
    count,
    description: row.description,
    name: row.name,
    slug: row.slug,
    taxonomy: row.taxonomy,
  };
  if (info.hierarchical) term.parent = row.parent_id;
  term.meta = [];
  term.url = publicTermUrl(config, info, row, hierarchy);
  term.urls = termUrls(config, info, row);
  return term;
}

/** §3.5, the raw term row as embedded in an event; `term_taxonomy_id` is the term id. */
export function serializeEmbeddedTerm(
  config: Config,
  info: TaxonomyInfo,
  row: TermRow,
  count: number,
): Record<string, unknown> {
  return {
    name: row.name,
    slug: row.slug,
    term_group: 0,
    term_taxonomy_id: row.id,
    taxonomy: row.taxonomy,
    description: row.description,
    parent: row.parent_id,
    count,
    filter: 'raw',
    id: row.id,
    urls: termUrls(config, info, row),
  };
}

/** Name order, case-insensitive for every script (D11), then id. */
export const byName = (a: TermRow, b: TermRow) => {
  const left = a.name.toLowerCase();
  const right = b.name.toLowerCase();
  return left < right ? -1 : left > right ? 1 : a.id - b.id;
};
