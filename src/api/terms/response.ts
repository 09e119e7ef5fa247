import Type, { type TSchema } from 'typebox';
import { absoluteUrl, closedObject, component, emptyArray } from '../../http/schemas.ts';

const termUrls = closedObject(
  {
    self: absoluteUrl('This term in the API.'),
    collection: absoluteUrl('The list this term belongs to.'),
    up: Type.Optional(absoluteUrl('The parent category in the API, when there is one.')),
  },
  { description: 'API links of the term.' },
);

const termHead = (label: string) => ({
  id: Type.Integer({ minimum: 1, description: `The ${label} id (categories and tags share one id sequence).` }),
  count: Type.Integer({ minimum: 0, description: `How many events carry the ${label}.` }),
  description: Type.String({ description: `The ${label} description.` }),
  name: Type.String({ description: `The ${label} name.` }),
  slug: Type.String({
    description: `The ${label} slug, unique among ${label === 'category' ? 'categories' : 'tags'}.`,
  }),
});

const termTail = (label: string) => ({
  meta: emptyArray('Always [] (kept for compatibility).'),
  url: absoluteUrl(`The public archive page of the ${label}.`),
  urls: termUrls,
});

/** §3.4, the endpoint form, without `_links` (D7). */
export const CategorySchema = component(
  'Category',
  closedObject(
    {
      ...termHead('category'),
      taxonomy: Type.Literal('event_category', { description: 'Always event_category.' }),
      parent: Type.Integer({ minimum: 0, description: 'The parent category id; 0 for a top-level category.' }),
      ...termTail('category'),
    },
    { description: 'An event category.' },
  ),
);

export const TagSchema = component(
  'Tag',
  closedObject(
    {
      ...termHead('tag'),
      taxonomy: Type.Literal('event_tag', { description: 'Always event_tag.' }),
      ...termTail('tag'),
    },
    { description: 'An event tag.' },
  ),
);

/** §3.5, the raw term row embedded in an event's `categories` and `tags`. */
export const EmbeddedTermSchema = component(
  'EmbeddedTerm',
  closedObject(
    {
      name: Type.String({ description: 'The term name.' }),
      slug: Type.String({ description: 'The term slug.' }),
      term_group: Type.Integer({ description: 'Always 0 (kept for compatibility).' }),
      term_taxonomy_id: Type.Integer({ description: 'Equal to id (kept for compatibility).' }),
      taxonomy: Type.String({ enum: ['event_category', 'event_tag'], description: 'event_category or event_tag.' }),
      description: Type.String({ description: 'The term description.' }),
      parent: Type.Integer({ minimum: 0, description: 'The parent category id; always 0 for tags.' }),
      count: Type.Integer({ minimum: 0, description: 'How many events carry the term.' }),
      filter: Type.Literal('raw', { description: 'Always raw (kept for compatibility).' }),
      id: Type.Integer({ minimum: 1, description: 'The term id.' }),
      urls: termUrls,
    },
    { description: 'A category or tag as embedded in an event.' },
  ),
);

/** §9.1: a term page, in the reference's key order. */
const termListSchema = (key: 'categories' | 'tags', item: TSchema) =>
  closedObject(
    {
      rest_url: absoluteUrl("This page's URL, with every effective filter (D11)."),
      total: Type.Integer({ minimum: 0, description: 'How many terms match the filters, over all pages.' }),
      total_pages: Type.Integer({ minimum: 0, description: 'How many pages there are (0 when nothing matches).' }),
      [key]: Type.Array(item, { description: 'The terms of this page (empty beyond the last page).' }),
      next_rest_url: Type.Optional(absoluteUrl('The next page, when there is one.')),
      previous_rest_url: Type.Optional(absoluteUrl('The previous page, whenever page > 1.')),
    },
    { description: `A page of ${key}.` },
  );

/** Single reads, creates, updates and deletes answer with `item`; the list with `list`. */
export const TERM_RESPONSES = {
  categories: { item: CategorySchema, list: termListSchema('categories', CategorySchema) },
  tags: { item: TagSchema, list: termListSchema('tags', TagSchema) },
} as const;
