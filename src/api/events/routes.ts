// The event routes (§2 rows 3–8): thin handlers over the schema, the list plan, the service and the serializer.
import { numberArg, optionalNumberArg, stringArg } from '../../core/input/values.ts';
import { planListRequest } from './list-request.ts';
import { canAccessProtected, canCreatePosts, canDeletePost, canEditPost, canReadPost } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import type { Args } from '../../core/input/args.ts';
import type { RequestContext } from '../../http/context.ts';
import { ApiError, invalidParams } from '../../http/errors.ts';
import {
  entityTag,
  ifMatchPrecondition,
  jsonTag,
  lastModifiedHeader,
  NOT_MODIFIED,
  PRECONDITION_FAILED,
} from '../../http/etag.ts';
import { EncodedJson, itemStream } from '../../http/bounded-json.ts';
import { postListReply } from '../../http/list.ts';
import { emptyParams } from '../../http/params.ts';
import type { ParamMap } from '../../core/input/params.ts';
import { endpoint, type AnyEndpoint, type Reply, type RouteGroup } from '../../http/routes.ts';
import { forceArg, loadPost, loadPostBySlug } from '../../core/posts/input.ts';
import { mayAssignAuthor, postLike } from '../../core/posts/fields.ts';
import type { PostRow } from '../../core/posts/store.ts';
import { coordinateIssue } from '../../core/events/list-query.ts';
import { blankProtectedFields } from '../../core/events/protected.ts';
import { EVENT_RESPONSES } from './response.ts';
import {
  deletePasswordArg,
  eventFieldArgs,
  eventListArgs,
  existingSlugArg,
  idArg,
  passwordArg,
  scopeArg,
  slugArg,
} from '../../core/events/input.ts';
import { loadEventBundle, serializeEvent, type EventBundle } from '../../core/events/serialize.ts';
import { inlineAuthorsAllowed, linkedInput } from '../../core/events/linked-input.ts';
import { eventInputOf } from '../../core/events/command.ts';
import { createEvent, deleteEvent, trashEvent, updateEvent } from '../../core/events/service.ts';
import { organizerKind } from '../../core/organizers/kind.ts';
import { venueKind } from '../../core/venues/kind.ts';
import type { Db } from '../../store/store.ts';
import { findEventPage } from '../../core/events/store.ts';
import {
  EVENT_LIST_PASSWORD_TARGET,
  eventPasswordTarget,
  guessPassword,
  sentPassword,
  startPasswordGuess,
} from '../../http/event-passwords.ts';
import { readSyncCursor, syncCursorHeader } from '../changes/header.ts';
import { JSON_TYPE } from '../../http/content-types.ts';
import {
  documentJson,
  readEventDocumentFormsWithVersion,
  readEventDocuments,
  readEventDocumentsWithVersion,
  type EventDocument,
} from '../../core/documents/read.ts';
import { embeddedTermObjects, sameForEveryReader } from '../../core/events/item-cache.ts';

const notFound = (id: number) => new ApiError(404, 'rest-event-not-found', `Event with ID ${id} does not exist.`);
const notAnEvent = () => new ApiError(400, 'rest-invalid-event-id', 'The specified ID is not a valid event.');

const nowUtc = (ctx: RequestContext) => formatWp(ctx.now);

async function readEvent(
  ctx: RequestContext,
  id: number,
  single: boolean,
  db: Db = ctx.store.db,
): Promise<Record<string, unknown>> {
  return serializeEvent(ctx, await loadEventBundle(db, ctx, [id]), id, { single });
}

/** §11: no password, `context=edit` with edit rights, or the right password (compared in constant time). */
function canSeeProtected(ctx: RequestContext, post: PostRow, password: unknown, raw: ParamMap): boolean {
  return canAccessProtected({
    postPassword: post.password,
    suppliedPassword: password,
    contextEdit: raw.context === 'edit',
    canEdit: canEditPost(ctx.viewer, postLike(post), nowUtc(ctx)),
  });
}

/**
 * {@link canSeeProtected} for GET by id or slug: a password sent to an event it protects from this caller is a guess,
 * counted against the event (D29, http/event-passwords.ts; 429 past the limit, without checking it).
 */
async function unlocksProtected(ctx: RequestContext, post: PostRow, raw: ParamMap): Promise<boolean> {
  if (canSeeProtected(ctx, post, undefined, raw)) return true;
  if (!sentPassword(raw.password)) return false;
  return guessPassword(ctx, eventPasswordTarget(post.id), () => canSeeProtected(ctx, post, raw.password, raw));
}

const passwordProtected = () =>
  new ApiError(403, 'event-password-protected', 'The requested event is not accessible without a password');

/** Why GET by id or slug refuses this caller the event whatever password it sends (§5.1: trashed, not readable). */
function accessRefusal(ctx: RequestContext, post: PostRow): ApiError | undefined {
  if (post.status === 'trash')
    return new ApiError(403, 'event-no-longer-available', 'This event is no longer available');
  if (!canReadPost(ctx.viewer, 'event', postLike(post), nowUtc(ctx))) {
    return new ApiError(403, 'event-not-accessible', 'The requested event is not accessible');
  }
  return undefined;
}

/** Why GET by id or slug refuses this caller the event (§5.1: trashed, not readable, password), if it does. */
function readRefusal(ctx: RequestContext, post: PostRow, raw: ParamMap): ApiError | undefined {
  return accessRefusal(ctx, post) ?? (canSeeProtected(ctx, post, raw.password, raw) ? undefined : passwordProtected());
}

const EDIT_CONTEXT: ParamMap = Object.freeze(Object.assign(emptyParams(), { context: 'edit' }));

/**
 * D22: the body GET by id or slug would answer this caller with `context=edit` and no other query parameter; undefined
 * when it refuses. `context=edit` changes nothing but a password-protected event's access: its writers (who have the
 * edit rights it asks for) read it that way or with its password, and both give these bytes.
 */
function asRead(ctx: RequestContext, bundle: EventBundle, id: number): Record<string, unknown> | undefined {
  const record = bundle.records.get(id);
  if (!record || readRefusal(ctx, record.post, EDIT_CONTEXT)) return undefined;
  return serializeEvent(ctx, bundle, id, { single: true });
}

/** D22: the event's current ETag for this caller, read through `db` (a write's transaction). */
const currentTag =
  (ctx: RequestContext, id: number) =>
  async (db: Db): Promise<string | undefined> => {
    const body = asRead(ctx, await loadEventBundle(db, ctx, [id]), id);
    return body === undefined ? undefined : jsonTag(body);
  };

/**
 * A write's answer: the event as written (list form), with the ETag its GET would now give this caller (D22, `asRead`),
 * from the same load serialised a second time in the GET's form; none when that GET would refuse (trashed).
 */
async function writeAnswer(
  ctx: RequestContext,
  id: number,
  status = 200,
  headers: Record<string, string> = {},
): Promise<Reply> {
  // D34: the write stored both forms of a published event without a password, the same bytes for every reader and
  // the same as a live render: the answer and its tag come from them (one statement instead of loading the event,
  // its links and its terms and serialising it twice).
  const { documents } = await readEventDocumentFormsWithVersion(ctx.store, ctx, [id], ['entry', 'item']);
  const entry = documents.entry.get(id);
  const item = documents.item.get(id);
  if (entry && item)
    return {
      status,
      headers: { ...headers, ETag: entityTag(JSON_TYPE, documentJson(item)) },
      type: JSON_TYPE,
      payload: documentJson(entry),
    };
  const bundle = await loadEventBundle(ctx.store.db, ctx, [id]);
  // Another request deleted it between this write's commit and this read: the write stands (and is in the change
  // log), but the event is gone, and the answer says so as a request naming it now would.
  if (!bundle.records.has(id)) throw notFound(id);
  const read = asRead(ctx, bundle, id);
  return {
    status,
    body: serializeEvent(ctx, bundle, id, { single: false }),
    headers: read ? { ...headers, ETag: jsonTag(read) } : headers,
  };
}

/** D32: inline venues and organizers may name another author only as `POST /venues` and `POST /organizers` allow. */
async function mayAssignInlineAuthors(ctx: RequestContext, params: Record<string, unknown>): Promise<boolean> {
  for (const [kind, value] of [
    [venueKind, params.venue],
    [organizerKind, params.organizer],
  ] as const) {
    if (value !== undefined && !inlineAuthorsAllowed(ctx, await linkedInput(ctx, kind, value))) return false;
  }
  return true;
}

const writeResponses = (success: number, description: string) => ({
  [success]: { description, schema: EVENT_RESPONSES.item },
  400: { description: 'Invalid parameter.' },
  401: { description: 'Not logged in.' },
  403: { description: 'Not allowed.' },
});

const list = endpoint({
  methods: ['GET'],
  summary: 'List events',
  // D24: the read cache reads its data version with the list's sync cursor, first of all.
  readsDataVersion: readSyncCursor,
  responses: {
    200: { description: 'A page of events, by start date.', schema: EVENT_RESPONSES.list },
    ...NOT_MODIFIED,
    400: { description: 'Invalid parameter.' },
    404: { description: 'Page beyond the last.' },
  },
  args: eventListArgs,
  async handler(ctx, params, raw) {
    const issue = coordinateIssue(params);
    if (issue) throw invalidParams(issue);
    // D29: a password is a guess against every protected event the list finds (its search matches their content
    // too, D33), counted before the list is read and given back when it opened one of them.
    const guess = sentPassword(params.password) ? await startPasswordGuess(ctx, EVENT_LIST_PASSWORD_TARGET) : undefined;
    // D24: read before the list's queries, so that following /changes from it loses nothing.
    const syncCursor = await syncCursorHeader(ctx);
    const plan = await planListRequest(ctx, params);
    const { total, ids } = await findEventPage(ctx.store, ctx, plan, {
      seeks: ctx.caches.pageSeeks,
      dataVersion: ctx.dataVersion,
    });
    if (ids.length === 0 && plan.page > 1) {
      throw new ApiError(404, 'event-archive-page-not-found', 'The requested event archive page does not exist');
    }
    // D34: the events with a current stored document are answered from it (none has a password); the rest live.
    const stored = await readEventDocuments(ctx.store.db, ctx, ids, 'entry');
    const bundle = await loadEventBundle(
      ctx.store.db,
      ctx,
      ids.filter((id) => !stored.has(id)),
    );
    await guess?.settle(
      ids.some((id) => {
        const post = bundle.records.get(id)?.post;
        return (
          post !== undefined &&
          post.password !== '' &&
          !canSeeProtected(ctx, post, undefined, raw) &&
          canSeeProtected(ctx, post, params.password, raw)
        );
      }),
    );
    // D31: built and serialised one at a time, under the response budget (http/bounded-json.ts).
    // An event deleted for good between the page's query and this load is left out, as if the page were read after.
    const events = itemStream(
      ids.filter((id) => stored.has(id) || bundle.records.has(id)),
      (id) => {
        const document = stored.get(id);
        if (document) return new EncodedJson(documentJson(document));
        const event = serializeEvent(ctx, bundle, id, { single: false });
        return canSeeProtected(ctx, bundle.records.get(id)!.post, params.password, raw)
          ? event
          : blankProtectedFields(event);
      },
    );
    const reply = postListReply('events', events, total, plan, `${ctx.config.apiRoot}/events/`, plan.echo);
    return { ...reply, headers: { ...reply.headers, ...syncCursor } };
  },
});

const create = endpoint({
  methods: ['POST'],
  summary: 'Create an event',
  responses: writeResponses(201, 'The event created.'),
  acceptsIdempotencyKey: true,
  args: eventFieldArgs(true),
  allows: (ctx) => canCreatePosts(ctx.viewer),
  permission: async (ctx, params) =>
    canCreatePosts(ctx.viewer) &&
    mayAssignAuthor(ctx, optionalNumberArg(params, 'author')) &&
    (await mayAssignInlineAuthors(ctx, params)),
  async handler(ctx, params) {
    const id = await createEvent(ctx.store, ctx, await eventInputOf(ctx, params));
    return writeAnswer(ctx, id, 201, { Location: `${ctx.config.apiRoot}/events/${id}` });
  },
});

/**
 * The event's stored document (`item`), if it can be answered from one. Read with the data version when the request
 * has none yet (neither the read cache nor a credential's check read one): the request then has the version of its
 * first read, which the read cache keeps the answer under (`reportsDataVersion`).
 */
function readStoredItem(ctx: RequestContext, id: number): Promise<EventDocument | undefined> {
  // Once per request: a plain read that finds none (a draft, a missing id) runs the endpoint, which looks again.
  return ctx.memo(`stored-item:${id}`, async () => {
    if (ctx.dataVersion !== undefined) return (await readEventDocuments(ctx.store.db, ctx, [id], 'item')).get(id);
    const { documents, dataVersion } = await readEventDocumentsWithVersion(ctx.store, ctx, [id], 'item');
    ctx.dataVersion = dataVersion;
    return documents.get(id);
  });
}

/** GET by id's answer from the event's stored document: sent as text, which the caches encode only if they keep it. */
const storedItemReply = (stored: EventDocument) => ({
  type: JSON_TYPE,
  payload: documentJson(stored),
  headers: lastModifiedHeader({ modified_utc: stored.modifiedUtc }),
});

/** The item endpoints for one way of naming the event (by id or by slug). */
function itemEndpoints(key: 'id' | 'slug'): AnyEndpoint[] {
  const find = async (ctx: RequestContext, params: Record<string, unknown>): Promise<PostRow | undefined> =>
    key === 'id' ? loadPost(ctx, numberArg(params, 'id')) : loadPostBySlug(ctx, 'event', stringArg(params, 'slug'));

  /** §5.1–§5.4: a missing item is 404 (by slug: "ID 0"), another type 400. */
  const requireEvent = async (ctx: RequestContext, params: Record<string, unknown>): Promise<PostRow> => {
    const post = await find(ctx, params);
    if (!post) throw notFound(key === 'id' ? numberArg(params, 'id') : 0);
    if (post.type !== 'event') throw notAnEvent();
    return post;
  };

  /** §1.5: rights on the item, or the general right when there is no such item (so that it can reach its 404). */
  const mayChange = (can: typeof canEditPost) => async (ctx: RequestContext, params: Record<string, unknown>) => {
    const post = await find(ctx, params);
    return post ? can(ctx.viewer, postLike(post), nowUtc(ctx)) : canCreatePosts(ctx.viewer);
  };

  const readArgs: Args = key === 'id' ? { ...idArg, password: passwordArg } : existingSlugArg;
  const deleteArgs: Args =
    key === 'id' ? { ...idArg, password: deletePasswordArg, force: forceArg } : { ...existingSlugArg, force: forceArg };
  const updateArgs: Args =
    key === 'id'
      ? { ...idArg, ...eventFieldArgs(false), ...scopeArg }
      : { ...eventFieldArgs(false), ...slugArg, ...scopeArg };

  return [
    endpoint({
      methods: ['GET'],
      summary: 'Get one event',
      responses: {
        200: { description: 'The event, with json_ld.', schema: EVENT_RESPONSES.item },
        ...NOT_MODIFIED,
        400: { description: key === 'id' ? 'Not an event.' : 'No event by that slug.' },
        403: { description: 'Trashed, not accessible, or password-protected.' },
        404: { description: 'No such id.' },
      },
      args: readArgs,
      // By id, its first read is readStoredItem's, which reads the version with the document.
      reportsDataVersion: key === 'id',
      // By id, a public event's stored document, unless the item cache (ITEM_CACHE_BYTES) keeps answers: the handler's.
      plainAnswer:
        key === 'id'
          ? async (ctx, path) => {
              if (ctx.caches.eventItems.maxBytes > 0) return undefined;
              const stored = await readStoredItem(ctx, Number(path.id));
              return stored && storedItemReply(stored);
            }
          : undefined,
      async handler(ctx, params, raw) {
        // By id without a password or context, a public event's answer is the same for everyone who may read it: it
        // is served from, and kept in, the per-process item cache, which the change log keeps exact (item-cache.ts).
        const byId = key === 'id' && raw.password === undefined && raw.context === undefined;
        const id = byId ? numberArg(params, 'id') : 0;
        const cache = byId ? ctx.caches.eventItems : undefined;
        const cacheKey = `api:${id}`;
        const found = await cache?.lookup(cacheKey, ctx);
        if (found && 'hit' in found) return found.hit;
        // D34: a published event without a password is answered from its stored document, when it has a current one.
        const stored = byId ? await readStoredItem(ctx, id) : undefined;
        if (stored) {
          const entry = storedItemReply(stored);
          if (cache && found) cache.set(cacheKey, id, found.seq, entry, stored.terms);
          return entry;
        }
        const post = await requireEvent(ctx, params);
        const refusal =
          accessRefusal(ctx, post) ?? ((await unlocksProtected(ctx, post, raw)) ? undefined : passwordProtected());
        if (refusal) throw refusal;
        const bundle = await loadEventBundle(ctx.store.db, ctx, [post.id], [post]);
        const body = serializeEvent(ctx, bundle, post.id, { single: true });
        if (!cache || !found || !sameForEveryReader(bundle, post.id))
          return { body, headers: lastModifiedHeader(body) };
        const entry = { type: JSON_TYPE, payload: JSON.stringify(body), headers: lastModifiedHeader(body) };
        cache.set(cacheKey, post.id, found.seq, entry, embeddedTermObjects(body));
        return entry;
      },
    }),
    endpoint({
      methods: ['DELETE'],
      summary: 'Trash an event, or delete it with force=true',
      responses: {
        200: { description: 'The trashed event, or {deleted, previous}.', schema: EVENT_RESPONSES.deleted },
        400: { description: 'Invalid parameter, or not an event.' },
        401: { description: 'Not logged in.' },
        403: { description: 'Not allowed.' },
        404: { description: 'No such id.' },
        410: { description: 'Already in the trash.' },
        ...PRECONDITION_FAILED,
      },
      args: deleteArgs,
      allows: (ctx) => canCreatePosts(ctx.viewer),
      permission: mayChange(canDeletePost),
      async handler(ctx, params) {
        const post = await requireEvent(ctx, params);
        const options = ifMatchPrecondition(ctx.ifMatch, currentTag(ctx, post.id));
        if (params.force) {
          const previous = await deleteEvent(
            ctx.store,
            ctx,
            post.id,
            (trx) => readEvent(ctx, post.id, false, trx),
            options,
          );
          return { body: { deleted: true, previous } };
        }
        await trashEvent(ctx.store, ctx, post.id, options);
        return writeAnswer(ctx, post.id);
      },
    }),
    endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      summary: 'Update an event: only the fields sent change',
      responses: {
        ...writeResponses(200, 'The updated event.'),
        404: { description: 'No such event.' },
        ...PRECONDITION_FAILED,
      },
      args: updateArgs,
      allows: (ctx) => canCreatePosts(ctx.viewer),
      permission: async (ctx, params) =>
        (await mayChange(canEditPost)(ctx, params)) &&
        mayAssignAuthor(ctx, optionalNumberArg(params, 'author')) &&
        (await mayAssignInlineAuthors(ctx, params)),
      async handler(ctx, params) {
        const { id } = await requireEvent(ctx, params);
        // By slug, the path's slug names the event and cannot rename it (§5.3).
        await updateEvent(
          ctx.store,
          ctx,
          id,
          await eventInputOf(ctx, params, [key]),
          ifMatchPrecondition(ctx.ifMatch, currentTag(ctx, id)),
        );
        return writeAnswer(ctx, id);
      },
    }),
  ];
}

export function eventRoutes(): RouteGroup[] {
  return [
    { path: '/events', pattern: '/events', endpoints: [list, create] },
    { path: '/events/:id(^\\d+$)', pattern: '/events/(?P<id>\\d+)', endpoints: itemEndpoints('id') },
    { path: '/events/by-slug/:slug', pattern: '/events/by-slug/(?P<slug>[^/]+)', endpoints: itemEndpoints('slug') },
  ];
}
