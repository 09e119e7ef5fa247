import type { TSchema } from 'typebox';
import type { Args, ArgValues } from '../core/input/args.ts';
import { readArgs, withRepeatedValues } from '../core/input/read.ts';
import type { RequestContext } from './context.ts';
import { forbidden, toApiError } from './errors.ts';
import type { ParamMap } from '../core/input/params.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a handler answers; plugins/reply.ts turns it into bytes, the same way whether or not the read cache keeps it.
 * - JSON (the API's contract shape): `body` is serialised and sent as `application/json; charset=UTF-8`;
 * - any other representation (iCalendar, HTML, ...): `payload` is sent as it is, under `type`;
 * - no body at all (304 Not Modified, 204 No Content): only the status and the headers.
 */
export type Reply = JsonReply | RawReply | EmptyReply;

/** A reply as it goes on the wire: status, headers, Content-Type (null for no body) and the encoded body. */
export interface EncodedReply {
  status: number;
  headers: Record<string, string>;
  /** The Content-Type; null for an answer without a body. */
  type: string | null;
  payload: string | Buffer | null;
}

interface ReplyHead {
  /** 200 when left out. */
  status?: number;
  headers?: Record<string, string>;
}

interface JsonReply extends ReplyHead {
  body: unknown;
}

export interface RawReply extends ReplyHead {
  /** The full Content-Type, charset included, e.g. `text/calendar; charset=utf-8`. */
  type: string;
  payload: string | Buffer;
}

interface EmptyReply extends ReplyHead {
  status: 204 | 304;
  body?: never;
  payload?: never;
}

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
  /** A body that is not JSON (e.g. `text/calendar`): documented under that media type as a string. */
  mediaType?: string;
}

export interface Endpoint<A extends Args = Args> {
  methods: readonly Method[];
  args: A;
  /** One line for the OpenAPI document. */
  summary: string;
  /** Documented responses by status code (the OpenAPI document and the contract tests read these). */
  responses: Record<number, ResponseDoc>;
  /**
   * The end of step 4: checks across arguments that no single validator can make (e.g. coordinates sent as a pair).
   * It throws an `ApiError` (400) and runs before the permission check, as validation does.
   */
  check?: (ctx: RequestContext, params: ArgValues<A>) => void | Promise<void>;
  /** Step 6 of the check order: false answers 401 for anonymous callers and 403 otherwise. */
  permission?: (ctx: RequestContext, params: ArgValues<A>) => boolean | Promise<boolean>;
  /** Whether the method belongs in this caller's `Allow` header (a cheap, record-independent check). */
  allows?: (ctx: RequestContext) => boolean;
  /** D23: a create that accepts `Idempotency-Key` (plugins/idempotency.ts runs it at most once per key). */
  acceptsIdempotencyKey?: boolean;
  /**
   * A read whose handler sets `ctx.dataVersion` no later than its first read of the database, from that read's own
   * statement when it is unset: the read cache then reads no version before it (plugins/read-cache.ts).
   */
  reportsDataVersion?: boolean;
  /**
   * How the read cache reads the data version of this read, instead of on its own: a list reads it with its sync
   * cursor, in the one statement both need (api/changes/header.ts `readSyncCursor`).
   */
  readsDataVersion?: (ctx: RequestContext) => Promise<string>;
  handler: (ctx: RequestContext, params: ArgValues<A>, raw: ParamMap) => Promise<Reply>;
  /**
   * A read's answer to a plain request: no query string (nor body: a GET has none), so nothing the arguments, the
   * checks or the handler would read beyond the path, which the router has matched, and the caller (`ctx.viewer`,
   * anonymous or not). Given the path's parameters, it answers what the handler would for that caller, or undefined
   * to run the endpoint (plugins/api-routes.ts). For answers of stored text (a public event's document, the same for
   * every reader), whose reading costs less than checking arguments that are not there.
   */
  plainAnswer?: (ctx: RequestContext, path: Readonly<Record<string, string>>) => Promise<RawReply | undefined>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The API route group a route serves (the `Allow` header and the response checks read it). */
    group?: RouteGroup;
  }
}

export interface RouteGroup {
  /** The path under the namespace, in the router's syntax, e.g. `/venues/:id(^\\d+$)`. */
  path: string;
  /** The discovery key's regex form, e.g. `/venues/(?P<id>\d+)`. */
  pattern: string;
  endpoints: AnyEndpoint[];
}

export const endpoint = <A extends Args>(definition: Endpoint<A>): Endpoint<A> => definition;

/**
 * An endpoint of a route table, whatever its arguments: each was checked against its own (`endpoint<A>`) where it was
 * defined, and a table holds endpoints of different argument types, which no single `A` describes.
 */
// biome-ignore lint/suspicious/noExplicitAny: a table of endpoints with different argument types (see above)
export type AnyEndpoint = Endpoint<any>;

/**
 * Steps 3–5 of the WordPress check order (core/input/read.ts), with the core's field errors turned into the API's
 * `rest_missing_callback_param` and `rest_invalid_param` bodies.
 */
export async function processArgs<A extends Args>(args: A, raw: ParamMap, ctx: RequestContext): Promise<ArgValues<A>> {
  try {
    return await readArgs(args, raw, ctx);
  } catch (error) {
    throw toApiError(error, ctx.viewer !== null);
  }
}

export async function runEndpoint(definition: AnyEndpoint, sent: ParamMap, ctx: RequestContext): Promise<Reply> {
  // Handlers that read the raw parameters (a password, the echoed query) see each repeated key as its argument does.
  const raw = withRepeatedValues(definition.args, sent);
  const params = await processArgs(definition.args, raw, ctx);
  await definition.check?.(ctx, params);
  if (definition.permission && !(await definition.permission(ctx, params))) throw forbidden(ctx.viewer !== null);
  return definition.handler(ctx, params, raw);
}

/** The methods this caller may use on a route, in the order the endpoints declare them. */
export function allowedMethods(group: RouteGroup, ctx: RequestContext): Method[] {
  return group.endpoints
    .filter((candidate) =>
      candidate.allows ? candidate.allows(ctx) : candidate.methods.includes('GET') || ctx.viewer !== null,
    )
    .flatMap((candidate) => [...candidate.methods]);
}
