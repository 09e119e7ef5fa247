import { arg, type Args, type Validator } from '../input/args.ts';
import type { CommandContext } from '../input/context.ts';
import { nonEmptyString } from '../input/validators.ts';
import { isPostOfType, MAX_SEARCH_LENGTH, pagingArgs } from '../posts/input.ts';
import { findTerm, findTermsByRefs, type TermRow } from './store.ts';
import type { TaxonomyInfo } from './taxonomies.ts';

/** A term of the taxonomy by id, loaded once per request (validators and handlers share it). */
export const loadTerm = (ctx: CommandContext, info: TaxonomyInfo, id: number): Promise<TermRow | undefined> =>
  ctx.memo(`term:${info.taxonomy}:${id}`, () => findTerm(ctx.store.db, info.taxonomy, id));

/** Terms named by id or slug, loaded once per request. */
export const loadTermRefs = (
  ctx: CommandContext,
  info: TaxonomyInfo,
  refs: readonly string[],
): Promise<Map<string, TermRow>> =>
  ctx.memo(`term-refs:${info.taxonomy}:${JSON.stringify(refs)}`, () =>
    findTermsByRefs(ctx.store.db, info.taxonomy, refs),
  );

const isTermOf =
  (info: TaxonomyInfo): Validator<number> =>
  async (id, ctx) =>
    (await loadTerm(ctx, info, id)) !== undefined;

/** `is_term_of_taxonomy`: a non-empty list whose every item is an existing term (id or slug) of the taxonomy. */
const areTermsOf =
  (info: TaxonomyInfo): Validator<string[]> =>
  async (refs, ctx) =>
    refs.length > 0 && (await loadTermRefs(ctx, info, refs)).size === new Set(refs).size;

export function termIdArg(info: TaxonomyInfo) {
  return arg.integer({
    description: `The ${info.collection === 'categories' ? 'event category' : 'event tag'} term id.`,
    required: true,
    in: 'path',
    validate: isTermOf(info),
  });
}

/** §9.1, in the reference's order. `parent` exists for hierarchical taxonomies only. */
export function listArgs(info: TaxonomyInfo): Args {
  return {
    ...pagingArgs,
    search: arg.string({
      description: `Only terms whose name or slug contains this text (case-insensitive; at most ${MAX_SEARCH_LENGTH} characters).`,
      validate: nonEmptyString,
      maxLength: MAX_SEARCH_LENGTH,
    }),
    exclude: arg.stringList({ description: 'Leave out these terms (ids or slugs).', validate: areTermsOf(info) }),
    include: arg.stringList({ description: 'Only these terms (ids or slugs).', validate: areTermsOf(info) }),
    order: arg.string({ description: 'asc (the default) or desc.', validate: nonEmptyString }),
    orderby: arg.string({
      description:
        'Sort by id, name (the default; case-insensitive), slug, count, description, term_group or include (the order of the include list); ties are broken by id.',
      validate: nonEmptyString,
    }),
    hide_empty: arg.boolean({ description: 'Whether to hide terms that no published event carries.', default: '1' }),
    ...(info.hierarchical
      ? { parent: arg.integer({ description: 'Only the direct children of this category.', validate: isTermOf(info) }) }
      : {}),
    post: arg.integer({ description: 'Only the terms of this event.', validate: isPostOfType('event') }),
    event: arg.integer({
      description: 'Only the terms of this event (an alias of post).',
      validate: isPostOfType('event'),
    }),
    password: arg.string({
      description: 'The password of a password-protected event named by post or event (D33).',
      maxLength: 255,
    }),
    slug: arg.string({ description: 'Only the term with this slug.', validate: nonEmptyString }),
  };
}

/** §9.3/§9.4. On update `parent` may also be 0, which moves the category to the top level. */
export function writeArgs(info: TaxonomyInfo, mode: 'create' | 'update'): Args {
  const noun = info.collection === 'categories' ? 'event category' : 'event tag';
  const parentValidator: Validator<number> =
    mode === 'create' ? isTermOf(info) : (id, ctx, name) => id === 0 || isTermOf(info)(id, ctx, name);
  return {
    name:
      mode === 'create'
        ? arg.string({ description: `The ${noun} name.`, required: true, validate: nonEmptyString, maxLength: 200 })
        : arg.string({ description: `The ${noun} name.`, validate: nonEmptyString, maxLength: 200 }),
    description: arg.string({ description: `The ${noun} description (HTML, sanitised).`, validate: nonEmptyString }),
    slug: arg.string({
      description: `The ${noun} slug; made unique on create.`,
      validate: nonEmptyString,
      maxLength: 200,
    }),
    ...(info.hierarchical
      ? {
          parent: arg.integer({
            description:
              mode === 'create' ? 'The parent category id.' : 'The parent category id, or 0 for the top level.',
            validate: parentValidator,
          }),
        }
      : {}),
  };
}
