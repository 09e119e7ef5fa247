import type {
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
} from 'fastify';
import { NAMESPACE } from '../config.ts';
import type { AppDeps } from '../http/context.ts';
import { corsPreflightHeaders } from '../http/cors.ts';
import { emptyParams, mergeParams } from '../http/params.ts';
import type { ParamMap } from '../core/input/params.ts';
import { allowedMethods, runEndpoint, type Endpoint, type RouteGroup } from '../http/routes.ts';
import { runWithDeadline } from '../store/deadline.ts';
import { encodeReply, encodeReplyBounded, sendReply } from './reply.ts';

export interface ApiRoutesOptions {
  deps: AppDeps;
  groups: RouteGroup[];
}

/**
 * What an API route receives, told to Fastify (which takes it on trust): app.ts parses every query string into a
 * ParamMap, plugins/body.ts every body it accepts (there is none on a GET), and the router's path parameters are
 * strings by name.
 */
interface ApiRoute {
  Querystring: ParamMap;
  Body: ParamMap | undefined;
  Params: ParamMap;
}
type ApiRequest = FastifyRequest<ApiRoute>;
type ApiHandler = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  ApiRoute
>;

/**
 * A read with no query string (an `Endpoint`'s `plainAnswer`), whoever sends it: a GET has no body (Fastify parses
 * none), so its path is all its arguments. Path parameters are strings by name, as the router matched them.
 */
const isPlain = (request: ApiRequest): request is ApiRequest & { params: Record<string, string> } =>
  (request.method === 'GET' || request.method === 'HEAD') && !request.url.includes('?');

/** Query string, then body, then path parameters: later sources win (§1.2). */
const gatherParams = (request: ApiRequest): ParamMap =>
  mergeParams(request.query, request.body ?? emptyParams(), request.params);

/**
 * The route table under the namespace: each endpoint of each group runs the WordPress check order (`runEndpoint`) and
 * answers whatever `Reply` it returns (JSON, another type, or no body). Reads go through the read cache; every group
 * also answers OPTIONS with its methods and the CORS preflight headers.
 */
const apiRoutes: FastifyPluginAsync<ApiRoutesOptions> = async (app, { deps, groups }) => {
  const { requestMs, maxResponseBytes } = deps.config.deadlines;
  /**
   * D31: the endpoint and the encoding of its answer run under the request's deadline (503 `rest_timeout`, nothing
   * committed after it: store/deadline.ts) and the response budget.
   */
  const run = (definition: Endpoint, request: ApiRequest) =>
    runWithDeadline(requestMs, async () => {
      const plain = isPlain(request) ? await definition.plainAnswer?.(request.ctx, request.params) : undefined;
      if (plain) return encodeReply(plain);
      return encodeReplyBounded(await runEndpoint(definition, gatherParams(request), request.ctx), maxResponseBytes);
    });

  const read = (definition: Endpoint): ApiHandler => {
    const { reportsDataVersion, readsDataVersion } = definition;
    return async (request, reply) =>
      sendReply(
        reply,
        await app.readThrough(request, () => run(definition, request), {
          reportsDataVersion,
          readsDataVersion: readsDataVersion && (() => readsDataVersion(request.ctx)),
        }),
      );
  };
  const write =
    (definition: Endpoint): ApiHandler =>
    async (request, reply) =>
      sendReply(
        reply,
        await (definition.acceptsIdempotencyKey
          ? app.idempotentCreate(request, () => run(definition, request))
          : run(definition, request)),
      );

  for (const group of groups) {
    const url = deps.config.apiPath + group.path;
    for (const definition of group.endpoints) {
      app.route<ApiRoute>({
        method: [...definition.methods],
        url,
        config: { group },
        handler: definition.methods.includes('GET') ? read(definition) : write(definition),
      });
    }
    app.route({
      method: 'OPTIONS',
      url,
      config: { group },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        reply.headers(corsPreflightHeaders());
        return sendReply(
          reply,
          encodeReply({ body: { namespace: NAMESPACE, methods: allowedMethods(group, request.ctx) } }),
        );
      },
    });
  }
};

export default apiRoutes;
