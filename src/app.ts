import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { formatWp } from './domain/dates.ts';
import { Authenticator } from './http/auth.ts';
import { parseFormBody, parseJsonBody } from './http/body.ts';
import { applyCors, corsPreflightHeaders } from './http/cors.ts';
import { createRequestContext, type AppDeps, type RequestContext } from './http/context.ts';
import { ApiError, noRoute } from './http/errors.ts';
import { emptyParams, mergeParams, parseQueryString, type ParamMap } from './http/params.ts';
import { installResponseValidation } from './http/response-validation.ts';
import { ResponseCache } from './http/response-cache.ts';
import { allowedMethods, runEndpoint, type Endpoint, type Reply, type RouteGroup } from './http/routes.ts';
import { registerDocsUi } from './resources/discovery/docs-ui.ts';
import { apiRouteGroups } from './resources/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyContextConfig {
    group?: RouteGroup;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=UTF-8';
const NO_STORE = 'no-cache, must-revalidate, max-age=0, no-store, private';

/** Fastify's own 4xx errors, answered in the contract's shape. */
function frameworkError(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'rest_request_too_large', `The request body is larger than the limit of ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'rest_unsupported_media_type',
        'Unsupported Content-Type: send application/json or application/x-www-form-urlencoded.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'rest_invalid_content_length', 'The Content-Length header does not match the body.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'rest_uri_too_long', 'A path segment of the request URL is too long.');
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'rest_invalid_url', 'The request URL is malformed.');
    default:
      return new ApiError(error.statusCode ?? 400, 'rest_bad_request', 'The request could not be understood.');
  }
}

function sendError(error: ApiError, reply: FastifyReply): void {
  if (error.headers) reply.headers(error.headers);
  reply.code(error.status).type(JSON_TYPE).send(error.toBody());
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store } = deps;
  const authenticator = new Authenticator(store.db);
  const app = Fastify({
    logger: { level: config.logLevel },
    logController: new LogController({ disableRequestLogging: !['debug', 'trace'].includes(config.logLevel) }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 1000,
      querystringParser: parseQueryString,
    },
    frameworkErrors: (error, _request, reply) => sendError(frameworkError(error), reply),
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as unknown as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' },
    (_request, body, done) => done(null, parseFormBody(body as unknown as string)));

  app.decorateRequest('ctx', null as unknown as RequestContext);

  // D15: credentials are checked before anything else, on every route.
  app.addHook('onRequest', async (request) => {
    const viewer = await authenticator.authenticate(request.headers.authorization, request.ip, formatWp(deps.clock()));
    request.ctx = createRequestContext(deps, viewer, request.log);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    // The interactive documentation's pages and assets keep their own types.
    if (!reply.hasHeader('content-type') || String(reply.getHeader('content-type')).startsWith('application/json')) {
      reply.header('Content-Type', JSON_TYPE);
    }
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Robots-Tag', 'noindex');
    applyCors(config, request, reply);
    const group = request.routeOptions.config.group;
    if (group && request.ctx) reply.header('Allow', allowedMethods(group, request.ctx).join(', '));
    if (request.headers.authorization) reply.header('Cache-Control', NO_STORE);
    return payload;
  });
  if (config.validateResponses) installResponseValidation(app);

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return sendError(error, reply);
    if (typeof error.statusCode === 'number' && error.statusCode < 500) return sendError(frameworkError(error), reply);
    request.log.error({ err: error, method: request.method, url: request.url }, 'request failed');
    sendError(new ApiError(500, 'rest_internal_error', 'An internal error occurred.'), reply);
  });

  app.setNotFoundHandler((_request, reply) => sendError(noRoute(), reply));

  const send = (reply: FastifyReply, result: Reply) => {
    if (result.headers) reply.headers(result.headers);
    return reply.code(result.status ?? 200).type(JSON_TYPE).send(JSON.stringify(result.body));
  };

  const gatherParams = (request: FastifyRequest): ParamMap =>
    mergeParams(
      request.query as ParamMap,
      (request.body as ParamMap | undefined) ?? emptyParams(),
      request.params as ParamMap,
    );

  const cache = new ResponseCache();
  /** Reads: anonymous answers come from the cache while the data and the clock allow (see response-cache.ts). */
  const answerRead = async (definition: Endpoint, request: FastifyRequest, reply: FastifyReply) => {
    if (request.ctx.viewer !== null) return send(reply, await runEndpoint(definition, gatherParams(request), request.ctx));
    const compute = async () => {
      const result = await runEndpoint(definition, gatherParams(request), request.ctx);
      return { status: result.status ?? 200, headers: result.headers ?? {}, payload: Buffer.from(JSON.stringify(result.body)) };
    };
    const { status, headers, payload } = await cache.answer(request.url, await store.dataVersion(), request.ctx.now.toMillis(), compute);
    return reply.headers(headers).code(status).type(JSON_TYPE).send(payload);
  };

  for (const group of apiRouteGroups(deps)) {
    const url = config.apiPath + group.path;
    for (const definition of group.endpoints) {
      app.route({
        method: [...definition.methods],
        url,
        config: { group },
        handler: definition.methods.includes('GET')
          ? async (request, reply) => answerRead(definition, request, reply)
          : async (request, reply) => send(reply, await runEndpoint(definition, gatherParams(request), request.ctx)),
      });
    }
    app.route({
      method: 'OPTIONS',
      url,
      config: { group },
      handler: async (request, reply) => {
        reply.headers(corsPreflightHeaders());
        return send(reply, { body: { namespace: 'calendar/events/v1', methods: allowedMethods(group, request.ctx) } });
      },
    });
  }

  registerDocsUi(app, config);

  app.get('/health', async (_request, reply) => {
    if (await store.ping()) return send(reply, { body: { status: 'ok' } });
    return sendError(new ApiError(503, 'database_unavailable', 'The database does not answer.'), reply);
  });

  return app;
}
