import { numberArg, optionalNumberArg, optionalStringsArg, stringArg } from '../../core/input/values.ts';
import { sql, type Expression, type SqlBool } from 'kysely';
import { canCreatePosts, canDeletePost, canEditPost, canReadPost, listStatusesAllowed } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { arg, type Args } from '../../core/input/args.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParams as invalidFields } from '../../http/errors.ts';
import {
  ifMatchPrecondition,
  jsonTag,
  lastModifiedHeader,
  NOT_MODIFIED,
  PRECONDITION_FAILED,
} from '../../http/etag.ts';
import { itemStream } from '../../http/bounded-json.ts';
import { clampPerPage, type EchoedQuery } from '../../domain/lists.ts';
import { postListReply } from '../../http/list.ts';
import { endpoint, type AnyEndpoint, type Reply, type RouteGroup } from '../../http/routes.ts';
import type { Db } from '../../store/store.ts';
import {
  forceArg,
  isPostOfType,
  isSlugOfType,
  listStatusArg,
  loadPost,
  loadPostBySlug,
  pagingArgs,
  searchArg,
} from '../../core/posts/input.ts';
import { mayAssignAuthor, postLike } from '../../core/posts/fields.ts';
import type { PostRow } from '../../core/posts/store.ts';
import { visibleInList } from '../../core/posts/visibility.ts';
import { readSyncCursor, syncCursorHeader } from '../changes/header.ts';
import { linkedFieldArgs } from '../../core/linked/write-args.ts';
import type { LinkedPostKind } from '../../core/linked/kind.ts';
import { linkedResponseSchemas } from './response.ts';
import { loadLinked, serializeLinked } from '../../core/linked/serialize.ts';
import {
  createLinkedItem,
  deleteLinkedItem,
  trashLinkedItem,
  updateLinkedItem,
  type Sent,
} from '../../core/linked/service.ts';

/** Extra list filters a later slice adds (the event-related ones): args, a WHERE clause and what rest_url echoes. */
export interface ListFilter {
  args: Args;
  where(
    params: Record<string, unknown>,
    ctx: RequestContext,
  ): Expression<SqlBool> | undefined | Promise<Expression<SqlBool> | undefined>;
  echo(params: Record<string, unknown>, ctx: RequestContext): EchoedQuery;
}

/**
 * §6: words split on anything but letters, digits and `-`; an item matches when one field holds every word. D31: as
 * WordPress does, more than 9 words are searched as one phrase (the whole value), which bounds the work per row.
 */
export function searchWords(search: string): string[] {
  const words = search
    .toLowerCase()
    .split(/[^\p{L}\p{N}-]+/u)
    .filter(Boolean);
  if (words.length <= 9) return words;
  const phrase = search
    .replace(/[\r\n]/g, '')
    .trim()
    .toLowerCase();
  return phrase === '' ? [] : [phrase];
}

/**
 * A search's condition on a linked post: every word in its title, content or excerpt, or in one of its kind's own
 * columns (a venue's city…), which are read from its table by id, not joined: the list then reads only the posts of
 * its kind (a join let PostgreSQL walk every post, events included, in id order: 12 ms for 500 venues beside 14,000
 * events, measured).
 */
function matchesSearch(ctx: RequestContext, kind: LinkedPostKind, words: string[]): Expression<SqlBool> {
  const allWords = (column: string) =>
    sql`(${sql.join(
      words.map((word) => ctx.store.containsText(sql.ref(column), word)),
      sql` and `,
    )})`;
  const ownColumns = kind.searchColumns.map((column) => allWords(`meta.${column}`));
  const postColumns = ['posts.title', 'posts.content', 'posts.excerpt'].map(allWords);
  const inOwnColumns =
    ownColumns.length === 0
      ? []
      : [
          sql`${sql.ref('posts.id')} in (select ${sql.ref('meta.id')} from ${sql.table(kind.metaTable)} as meta where ${sql.join(ownColumns, sql` or `)})`,
        ];
  return sql<SqlBool>`(${sql.join([...postColumns, ...inOwnColumns], sql` or `)})`;
}

/** D11: the filters the reference echoes, in its order (§6), then the ones it leaves out. */
const ECHO_ORDER = ['page', 'per_page', 'event', 'has_events', 'status', 'search', 'only_with_upcoming'];

const inEchoOrder = (query: EchoedQuery): EchoedQuery => {
  const rank = (name: string) => (ECHO_ORDER.includes(name) ? ECHO_ORDER.indexOf(name) : ECHO_ORDER.length);
  return [...query].sort(([a], [b]) => rank(a) - rank(b));
};

export function linkedPostRoutes(kind: LinkedPostKind, listFilters: ListFilter[] = []): RouteGroup[] {
  const [notAccessibleCode, notAccessibleMessage] = kind.messages.notAccessible;
  const [pageCode, pageMessage] = kind.messages.pageNotFound;
  const collectionUrl = (ctx: RequestContext) => `${ctx.config.apiRoot}/${kind.collection}`;
  const schemas = linkedResponseSchemas(kind);

  const serializeOne = async (ctx: RequestContext, id: number, single: boolean, db: Db = ctx.store.db) => {
    const record = (await loadLinked(db, kind, [id])).get(id);
    // Deleted by another request since this one found it: answered as an id that names nothing.
    if (!record) throw invalidFields({ id: null });
    return serializeLinked(ctx, kind, record, { single });
  };

  /** D22: the body GET by id or slug would answer this caller (json_ld included), or undefined when it refuses (403). */
  const asRead = (ctx: RequestContext, record: Parameters<typeof serializeLinked>[2] | undefined) =>
    record && canReadPost(ctx.viewer, kind.type, postLike(record.post), formatWp(ctx.now))
      ? serializeLinked(ctx, kind, record, { single: true })
      : undefined;

  /** D22: the item's current ETag for this caller, read through `db` (a write's transaction). */
  const currentTag =
    (ctx: RequestContext, id: number) =>
    async (db: Db): Promise<string | undefined> => {
      const body = asRead(ctx, (await loadLinked(db, kind, [id])).get(id));
      return body === undefined ? undefined : jsonTag(body);
    };

  /** A write's answer (list form) with the ETag the item's GET would now give this caller, from the same load. */
  const writeAnswer = async (
    ctx: RequestContext,
    id: number,
    status = 200,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const record = (await loadLinked(ctx.store.db, kind, [id])).get(id);
    // Another request deleted it between this write's commit and this read: the write stands (and is in the change
    // log), but the item is gone, and the answer says so as a request naming it now would.
    if (!record) throw invalidFields({ id: null });
    const read = asRead(ctx, record);
    return {
      status,
      body: serializeLinked(ctx, kind, record, { single: false }),
      headers: read ? { ...headers, ETag: jsonTag(read) } : headers,
    };
  };

  const sentFields = (params: Record<string, unknown>, exclude: string[]): Sent => {
    const sent: Sent = {};
    for (const [key, value] of Object.entries(params))
      if (value !== undefined && !exclude.includes(key)) sent[key] = value;
    return sent;
  };

  const checkFields = (_ctx: RequestContext, params: Record<string, unknown>) => {
    const problems = kind.checkFields?.(params);
    if (problems) throw invalidFields(problems);
  };

  const fieldArgs = (nameRequired: boolean) => linkedFieldArgs(kind, nameRequired);

  const list = endpoint({
    methods: ['GET'],
    summary: `List ${kind.collection}`,
    // D24: the read cache reads its data version with the list's sync cursor, first of all.
    readsDataVersion: readSyncCursor,
    responses: {
      200: { description: `A page of ${kind.collection}.`, schema: schemas.list },
      ...NOT_MODIFIED,
      400: { description: 'Invalid parameter.' },
      404: { description: 'Page beyond the last.' },
    },
    args: {
      ...pagingArgs,
      search: searchArg,
      status: listStatusArg,
      ...Object.fromEntries<Args[string]>(listFilters.flatMap((filter) => Object.entries(filter.args))),
    },
    async handler(ctx, params) {
      // D24: read before the list's queries, so that following /changes from it loses nothing.
      const syncCursor = await syncCursorHeader(ctx);
      const db: Db = ctx.store.db;
      const perPage = clampPerPage(params.per_page, ctx.config.perPageDefault, ctx.config.perPageMax);
      const page = params.page;
      const access = listStatusesAllowed(ctx.viewer, optionalStringsArg(params, 'status'));
      // Validation refused the statuses this caller may not ask for.
      const statuses = access.ok ? access.statuses : ['publish' as const];
      const nowUtc = formatWp(ctx.now);
      const words = params.search === undefined ? [] : searchWords(params.search);
      const extraWhere = (await Promise.all(listFilters.map((filter) => filter.where(params, ctx)))).filter(
        (clause) => clause !== undefined,
      );

      // The posts of the kind alone (each has its row in the kind's table, written with it): see matchesSearch.
      let query = db
        .selectFrom('posts')
        .where('posts.type', '=', kind.type)
        .where((eb) => visibleInList(eb, ctx.viewer, statuses, nowUtc));
      if (params.search !== undefined)
        query = query.where(words.length > 0 ? matchesSearch(ctx, kind, words) : sql<SqlBool>`1 = 0`);
      for (const clause of extraWhere) query = query.where(clause!);

      const [{ total }, rows] = await Promise.all([
        query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
        query
          .select('posts.id')
          .orderBy('posts.date_utc', 'desc')
          .orderBy('posts.id', 'asc')
          .limit(perPage)
          .offset((page - 1) * perPage)
          .execute(),
      ]);
      if (rows.length === 0 && page > 1) throw new ApiError(404, pageCode, pageMessage);
      const records = await loadLinked(
        db,
        kind,
        rows.map((row) => row.id),
      );
      // D31: built and serialised one at a time, under the response budget (http/bounded-json.ts).
      // An item deleted for good between the page's query and this load is left out, as if the page were read after.
      const items = itemStream(
        rows.filter((row) => records.has(row.id)),
        (row) => serializeLinked(ctx, kind, records.get(row.id)!, { single: false }),
      );

      const echoed: EchoedQuery = [
        ['page', page],
        ['per_page', perPage],
        ...listFilters.flatMap((filter) => filter.echo(params, ctx)),
        ['status', params.status?.join(',') ?? (statuses.length === 1 ? 'publish' : 'any')],
        ['search', params.search],
      ];
      const reply = postListReply(
        kind.collection,
        items,
        Number(total),
        { page, perPage },
        `${collectionUrl(ctx)}/`,
        inEchoOrder(echoed),
      );
      return { ...reply, headers: { ...reply.headers, ...syncCursor } };
    },
  });

  const create = endpoint({
    methods: ['POST'],
    summary: `Create a ${kind.type} (or reuse an identical one)`,
    responses: {
      201: { description: `The ${kind.type} created or reused.`, schema: schemas.item },
      400: { description: 'Invalid parameter.' },
      401: { description: 'Not logged in.' },
      403: { description: 'Not allowed.' },
    },
    acceptsIdempotencyKey: true,
    args: fieldArgs(true),
    allows: (ctx) => canCreatePosts(ctx.viewer),
    check: checkFields,
    permission: (ctx, params) =>
      canCreatePosts(ctx.viewer) && mayAssignAuthor(ctx, optionalNumberArg(params, 'author')),
    async handler(ctx, params) {
      const sent = sentFields(params, []);
      const { id } = await createLinkedItem(ctx.store, ctx, kind, sent);
      return writeAnswer(ctx, id, 201, { Location: `${collectionUrl(ctx)}/${id}` });
    },
  });

  /** The item endpoints for one way of naming the item (by id or by slug). */
  const itemEndpoints = (key: 'id' | 'slug'): AnyEndpoint[] => {
    const keyArg: Args =
      key === 'id'
        ? {
            id: arg.integer({
              description: `The ${kind.type} id.`,
              required: true,
              in: 'path',
              validate: isPostOfType(kind.type),
            }),
          }
        : {
            slug: arg.string({
              description: `The ${kind.type} slug.`,
              required: true,
              in: 'path',
              validate: isSlugOfType(kind.type),
            }),
          };
    const row = async (ctx: RequestContext, params: Record<string, unknown>): Promise<PostRow> => {
      const post =
        key === 'id'
          ? await loadPost(ctx, numberArg(params, 'id'))
          : await loadPostBySlug(ctx, kind.type, stringArg(params, 'slug'));
      // Validated as naming one; deleted by another request since: answered as a key that names nothing.
      if (!post) throw invalidFields({ [key]: null });
      return post;
    };
    const nowUtc = (ctx: RequestContext) => formatWp(ctx.now);

    return [
      endpoint({
        methods: ['GET'],
        summary: `Get one ${kind.type}`,
        responses: {
          200: { description: `The ${kind.type}, with json_ld.`, schema: schemas.item },
          ...NOT_MODIFIED,
          400: { description: `No ${kind.type} by that ${key}.` },
          403: { description: 'Not accessible.' },
        },
        args: keyArg,
        async handler(ctx, params) {
          const post = await row(ctx, params);
          if (!canReadPost(ctx.viewer, kind.type, postLike(post), nowUtc(ctx)))
            throw new ApiError(403, notAccessibleCode, notAccessibleMessage);
          const body = await serializeOne(ctx, post.id, true);
          return { body, headers: lastModifiedHeader(body) };
        },
      }),
      endpoint({
        methods: ['DELETE'],
        summary: `Trash a ${kind.type}, or delete it with force=true`,
        responses: {
          200: { description: `The trashed ${kind.type}, or {deleted, previous}.`, schema: schemas.deleted },
          400: { description: `No ${kind.type} by that ${key}.` },
          401: { description: 'Not logged in.' },
          403: { description: 'Not allowed.' },
          410: { description: 'Already in the trash.' },
          ...PRECONDITION_FAILED,
        },
        args: { ...keyArg, force: forceArg },
        allows: (ctx) => canCreatePosts(ctx.viewer),
        permission: async (ctx, params) => canDeletePost(ctx.viewer, postLike(await row(ctx, params)), nowUtc(ctx)),
        async handler(ctx, params) {
          const post = await row(ctx, params);
          const options = ifMatchPrecondition(ctx.ifMatch, currentTag(ctx, post.id));
          if (params.force) {
            const previous = await deleteLinkedItem(
              ctx.store,
              ctx,
              kind,
              post.id,
              (trx) => serializeOne(ctx, post.id, false, trx),
              options,
            );
            return { body: { deleted: true, previous } };
          }
          await trashLinkedItem(ctx.store, ctx, kind, post.id, options);
          return writeAnswer(ctx, post.id);
        },
      }),
      endpoint({
        methods: ['POST', 'PUT', 'PATCH'],
        summary: `Update a ${kind.type}: only the fields sent change`,
        responses: {
          200: { description: `The updated ${kind.type}.`, schema: schemas.item },
          400: { description: 'Invalid parameter.' },
          401: { description: 'Not logged in.' },
          403: { description: 'Not allowed.' },
          ...PRECONDITION_FAILED,
        },
        args: { ...keyArg, ...fieldArgs(false) },
        check: checkFields,
        allows: (ctx) => canCreatePosts(ctx.viewer),
        permission: async (ctx, params) =>
          canEditPost(ctx.viewer, postLike(await row(ctx, params)), nowUtc(ctx)) &&
          mayAssignAuthor(ctx, optionalNumberArg(params, 'author')),
        async handler(ctx, params) {
          const post = await row(ctx, params);
          const sent = sentFields(params, ['id', 'slug']);
          await updateLinkedItem(
            ctx.store,
            ctx,
            kind,
            post.id,
            sent,
            ifMatchPrecondition(ctx.ifMatch, currentTag(ctx, post.id)),
          );
          return writeAnswer(ctx, post.id);
        },
      }),
    ];
  };

  return [
    { path: `/${kind.collection}`, pattern: `/${kind.collection}`, endpoints: [list, create] },
    {
      path: `/${kind.collection}/:id(^\\d+$)`,
      pattern: `/${kind.collection}/(?P<id>\\d+)`,
      endpoints: itemEndpoints('id'),
    },
    {
      path: `/${kind.collection}/by-slug/:slug`,
      pattern: `/${kind.collection}/by-slug/(?P<slug>[^/]+)`,
      endpoints: itemEndpoints('slug'),
    },
  ];
}
