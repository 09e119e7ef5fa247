import {
  booleanArg,
  numberArg,
  optionalNumberArg,
  optionalStringArg,
  optionalStringsArg,
  stringArg,
} from '../../core/input/values.ts';
import { canAccessProtected, canEditPost, canReadPost } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, forbidden, invalidParams } from '../../http/errors.ts';
import type { PostRow } from '../../core/posts/store.ts';
import { ifMatchPrecondition, jsonTag, NOT_MODIFIED, PRECONDITION_FAILED } from '../../http/etag.ts';
import { clampPerPage, type EchoedQuery } from '../../domain/lists.ts';
import { buildUrl, listHeaders, totalPages, type ListLinks } from '../../http/list.ts';
import { hasParam, type ParamMap } from '../../core/input/params.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { loadPost } from '../../core/posts/input.ts';
import { postLike } from '../../core/posts/fields.ts';
import { queryTerms } from '../../core/terms/query.ts';
import { readSyncCursor, syncCursorHeader } from '../changes/header.ts';
import { TERM_RESPONSES } from './response.ts';
import { listArgs, loadTerm, loadTermRefs, termIdArg, writeArgs } from '../../core/terms/input.ts';
import {
  createTerm,
  notHierarchical,
  removeTerm,
  serializeTerms,
  updateTerm,
  type TermInput,
} from '../../core/terms/service.ts';
import { findTerm, type TermRow } from '../../core/terms/store.ts';
import type { Db } from '../../store/store.ts';
import { TAXONOMIES, type Taxonomy, type TaxonomyInfo } from '../../core/terms/taxonomies.ts';

interface ListParams {
  page: number;
  per_page?: number;
  search?: string;
  exclude?: string[];
  include?: string[];
  order?: string;
  orderby?: string;
  hide_empty: boolean;
  parent?: number;
  post?: number;
  event?: number;
  password?: string;
  slug?: string;
}

/** The list's arguments (listArgs), as their validators left them; `page` and `hide_empty` have defaults. */
const readListParams = (values: Record<string, unknown>): ListParams => ({
  page: numberArg(values, 'page'),
  per_page: optionalNumberArg(values, 'per_page'),
  search: optionalStringArg(values, 'search'),
  exclude: optionalStringsArg(values, 'exclude'),
  include: optionalStringsArg(values, 'include'),
  order: optionalStringArg(values, 'order'),
  orderby: optionalStringArg(values, 'orderby'),
  hide_empty: booleanArg(values, 'hide_empty'),
  parent: optionalNumberArg(values, 'parent'),
  post: optionalNumberArg(values, 'post'),
  event: optionalNumberArg(values, 'event'),
  password: optionalStringArg(values, 'password'),
  slug: optionalStringArg(values, 'slug'),
});

/**
 * §9.1 links: `rest_url` carries every filter sent (D11); `next_rest_url` while a next page exists; `previous_rest_url`
 * whenever page > 1, even beyond the last page, as the reference does.
 */
function termListLinks(base: string, query: EchoedQuery, page: number, pages: number): ListLinks {
  const withoutPage = query.filter(([name]) => name !== 'page');
  const links: ListLinks = { restUrl: buildUrl(base, query) };
  if (page < pages) links.nextRestUrl = buildUrl(base, [...withoutPage, ['page', page + 1]]);
  if (page > 1)
    links.previousRestUrl = buildUrl(base, page - 1 === 1 ? withoutPage : [...withoutPage, ['page', page - 1]]);
  return links;
}

/** §9.3: tags have no hierarchy; WordPress refuses a `parent` in the handler, after the permission check. */
function refuseParentOnFlatTaxonomy(info: TaxonomyInfo, raw: ParamMap): void {
  if (!info.hierarchical && hasParam(raw, 'parent')) throw notHierarchical();
}

/**
 * D19: an event's terms are listed only to those who could open that event, or edit it in the trash. This is not a
 * route permission (the list is public); the reference, which skips WordPress's own check, lists them to anyone.
 */
function maySeeEvent(ctx: RequestContext, post: PostRow): boolean {
  const event = postLike(post);
  const nowUtc = formatWp(ctx.now);
  return canReadPost(ctx.viewer, 'event', event, nowUtc) || canEditPost(ctx.viewer, event, nowUtc);
}

/**
 * D33: the terms of a password-protected event are listed, as the event itself is read, only with its password or to
 * those who may edit it (context=edit is not needed here: nothing else in the answer depends on it).
 */
function mayReadProtected(ctx: RequestContext, post: PostRow, password: unknown): boolean {
  return canAccessProtected({
    postPassword: post.password,
    suppliedPassword: password,
    contextEdit: true,
    canEdit: canEditPost(ctx.viewer, postLike(post), formatWp(ctx.now)),
  });
}

const termInput = (params: Record<string, unknown>): TermInput => ({
  name: optionalStringArg(params, 'name'),
  description: optionalStringArg(params, 'description'),
  slug: optionalStringArg(params, 'slug'),
  parent: optionalNumberArg(params, 'parent'),
});

export function termRoutes(taxonomy: Taxonomy): RouteGroup[] {
  const info = TAXONOMIES[taxonomy];
  const noun = info.collection === 'categories' ? 'event category' : 'event tag';
  const collectionUrl = (ctx: RequestContext) => `${ctx.config.apiRoot}/${info.collection}`;
  const mayManage = (ctx: RequestContext) => info.canManage(ctx.viewer);
  const serializeOne = async (ctx: RequestContext, row: TermRow, db: Db = ctx.store.db) =>
    (await serializeTerms(db, ctx, info, [row]))[0];
  /**
   * D22: the term's current ETag, read through `db` (a write's transaction). Terms read the same for every caller, and
   * GET, update and the answers all use `serializeOne`, so a write's answer body is the GET's and its tag is the new ETag.
   */
  const ifMatch = (ctx: RequestContext, id: number) =>
    ifMatchPrecondition(ctx.ifMatch, async (db: Db) => {
      const row = await findTerm(db, info.taxonomy, id);
      return row === undefined ? undefined : jsonTag(await serializeOne(ctx, row, db));
    });
  const idArgs = { id: termIdArg(info) };
  const schemas = TERM_RESPONSES[info.collection];

  const list = endpoint({
    methods: ['GET'],
    summary: `List ${info.collection}`,
    // D24: the read cache reads its data version with the list's sync cursor, first of all.
    readsDataVersion: readSyncCursor,
    responses: {
      200: { description: `A page of ${info.collection}; a page beyond the last is empty.`, schema: schemas.list },
      ...NOT_MODIFIED,
      400: { description: 'Invalid parameter.' },
      401: { description: 'Filtered by an event that is not public, without logging in.' },
      403: { description: 'Filtered by an event the caller may not see.' },
    },
    args: listArgs(info),
    async handler(ctx, rawParams) {
      const params = readListParams(rawParams);
      const [eventName, eventId] = params.event !== undefined ? ['event', params.event] : ['post', params.post];
      if (eventId !== undefined) {
        // Validated as an event's id; one deleted since is answered as one that never was.
        const event = await loadPost(ctx, eventId);
        if (!event) throw invalidParams({ [eventName]: null });
        if (!maySeeEvent(ctx, event)) throw forbidden(ctx.viewer !== null);
        if (!mayReadProtected(ctx, event, params.password))
          throw new ApiError(
            403,
            'event-password-protected',
            'The requested event is not accessible without a password',
          );
      }
      // D24: read before the list's queries, so that following /changes from it loses nothing.
      const syncCursor = await syncCursorHeader(ctx);
      const perPage = clampPerPage(params.per_page, ctx.config.perPageDefault, ctx.config.perPageMax);
      const idsOf = async (refs: string[] | undefined) => {
        if (refs === undefined) return undefined;
        const found = await loadTermRefs(ctx, info, refs);
        return [...new Set(refs.map((ref) => found.get(ref)!.id))];
      };
      const { rows, total } = await queryTerms(ctx.store, info, formatWp(ctx.now), {
        search: params.search,
        include: await idsOf(params.include),
        exclude: await idsOf(params.exclude),
        parent: params.parent,
        eventId,
        slug: params.slug,
        hideEmpty: params.hide_empty,
        orderby: params.orderby,
        order: params.order,
        page: params.page,
        perPage,
      });
      const items = await serializeTerms(ctx.store.db, ctx, info, rows, new Map(rows.map((row) => [row.id, row.uses])));

      const echoed: EchoedQuery = [
        ['page', params.page],
        ['per_page', perPage],
        ['search', params.search],
        ['exclude', params.exclude?.join(',')],
        ['include', params.include?.join(',')],
        ['order', params.order],
        ['orderby', params.orderby],
        ['hide_empty', params.hide_empty ? 'true' : 'false'],
        ['parent', params.parent],
        [eventName, eventId],
        ['slug', params.slug],
      ];
      const pages = totalPages(total, perPage);
      const links = termListLinks(`${collectionUrl(ctx)}/`, echoed, params.page, pages);
      const body: Record<string, unknown> = {
        rest_url: links.restUrl,
        total,
        total_pages: pages,
        [info.collection]: items,
      };
      if (links.nextRestUrl) body.next_rest_url = links.nextRestUrl;
      if (links.previousRestUrl) body.previous_rest_url = links.previousRestUrl;
      return { body, headers: { ...listHeaders(total, pages, links), ...syncCursor } };
    },
  });

  const create = endpoint({
    methods: ['POST'],
    summary: `Create an ${noun}`,
    responses: {
      201: { description: `The created ${noun}.`, schema: schemas.item },
      400: { description: 'Invalid parameter, or a term with that name already exists at that level (term_exists).' },
      401: { description: 'Not logged in.' },
      403: { description: 'Not allowed.' },
    },
    acceptsIdempotencyKey: true,
    args: writeArgs(info, 'create'),
    allows: mayManage,
    permission: mayManage,
    async handler(ctx, params, raw) {
      refuseParentOnFlatTaxonomy(info, raw);
      const row = await createTerm(ctx.store, ctx, info, { ...termInput(params), name: stringArg(params, 'name') });
      const body = await serializeOne(ctx, row);
      return { status: 201, body, headers: { Location: `${collectionUrl(ctx)}/${row.id}`, ETag: jsonTag(body) } };
    },
  });

  const get = endpoint({
    methods: ['GET'],
    summary: `Get one ${noun}`,
    responses: {
      200: { description: `The ${noun}.`, schema: schemas.item },
      ...NOT_MODIFIED,
      400: { description: `No ${noun} with that id.` },
    },
    args: idArgs,
    async handler(ctx, params) {
      return { body: await serializeOne(ctx, (await loadTerm(ctx, info, params.id))!) };
    },
  });

  const update = endpoint({
    methods: ['POST', 'PUT', 'PATCH'],
    summary: `Update an ${noun}: only the fields sent change`,
    responses: {
      200: { description: `The updated ${noun}.`, schema: schemas.item },
      400: {
        description:
          'Invalid parameter, a name taken at that level (term_exists) or a slug taken (duplicate_term_slug).',
      },
      401: { description: 'Not logged in.' },
      403: { description: 'Not allowed.' },
      ...PRECONDITION_FAILED,
    },
    args: { ...idArgs, ...writeArgs(info, 'update') },
    allows: mayManage,
    permission: mayManage,
    async handler(ctx, params, raw) {
      refuseParentOnFlatTaxonomy(info, raw);
      const row = await updateTerm(
        ctx.store,
        ctx,
        info,
        numberArg(params, 'id'),
        termInput(params),
        ifMatch(ctx, numberArg(params, 'id')),
      );
      const body = await serializeOne(ctx, row);
      return { body, headers: { ETag: jsonTag(body) } };
    },
  });

  const remove = endpoint({
    methods: ['DELETE'],
    summary: `Delete an ${noun} permanently (it leaves every event; its children move up to its parent)`,
    responses: {
      200: { description: `The ${noun} as it was before deletion.`, schema: schemas.item },
      400: { description: `No ${noun} with that id.` },
      401: { description: 'Not logged in.' },
      403: { description: 'Not allowed.' },
      ...PRECONDITION_FAILED,
    },
    args: idArgs,
    allows: mayManage,
    permission: mayManage,
    async handler(ctx, params) {
      const previous = await serializeOne(ctx, (await loadTerm(ctx, info, params.id))!);
      await removeTerm(ctx.store, ctx, info, params.id, ifMatch(ctx, params.id));
      return { body: previous };
    },
  });

  return [
    { path: `/${info.collection}`, pattern: `/${info.collection}`, endpoints: [list, create] },
    {
      path: `/${info.collection}/:id(^\\d+$)`,
      pattern: `/${info.collection}/(?P<id>\\d+)`,
      endpoints: [get, update, remove],
    },
  ];
}
