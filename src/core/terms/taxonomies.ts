import { canManageCategories, canManageTags, type Viewer } from '../../domain/access.ts';

/** D1: the two term taxonomies. */
export type Taxonomy = 'event_category' | 'event_tag';

/** What makes categories and tags differ; everything else about terms is shared. */
export interface TaxonomyInfo {
  taxonomy: Taxonomy;
  /** The route segment and the list body's key. */
  collection: 'categories' | 'tags';
  /** Categories nest (`parent`, `urls.up`, nested public URLs); tags do not. */
  hierarchical: boolean;
  /** D1: public archive pages live under `{SITE_URL}/<publicPath>/`. */
  publicPath: string;
  /** The slug of a term whose name leaves nothing usable (e.g. only symbols or untransliterable script). */
  fallbackSlug: string;
  /** §1.5 (and D16 for terms created from event writes). */
  canManage(viewer: Viewer): boolean;
  /** §9.3: the `term_exists` message differs between hierarchical and flat taxonomies. */
  termExistsMessage: string;
}

export const TAXONOMIES: Readonly<Record<Taxonomy, TaxonomyInfo>> = {
  event_category: {
    taxonomy: 'event_category',
    collection: 'categories',
    hierarchical: true,
    publicPath: 'events/category',
    fallbackSlug: 'category',
    canManage: canManageCategories,
    termExistsMessage: 'A term with the name provided already exists with this parent.',
  },
  event_tag: {
    taxonomy: 'event_tag',
    collection: 'tags',
    hierarchical: false,
    publicPath: 'events/tag',
    fallbackSlug: 'tag',
    canManage: canManageTags,
    termExistsMessage: 'A term with the name provided already exists in this taxonomy.',
  },
};
