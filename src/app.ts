import { keepCountsCurrent } from './core/occurrences/follow-counts.ts';
import { keepDocumentsCurrent } from './core/documents/follow.ts';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { createCaches, type AppCaches } from './caches.ts';
import { BODY_LIMIT_BYTES } from './http/body.ts';
import type { AppDeps, AppSetup } from './http/context.ts';
import { parseQueryString } from './http/params.ts';
import type { RouteGroup } from './http/routes.ts';
import { loggerOptions } from './log-format.ts';
import apiRoutes from './plugins/api-routes.ts';
import auth from './plugins/auth.ts';
import body from './plugins/body.ts';
import conditional from './plugins/conditional.ts';
import cors from './plugins/cors.ts';
import errors, { answerClientError, answerFrameworkError } from './plugins/errors.ts';
import headers from './plugins/headers.ts';
import health from './plugins/health.ts';
import idempotency from './plugins/idempotency.ts';
import pages, { pageAwareFrameworkErrors } from './plugins/pages.ts';
import activity from './plugins/activity.ts';
import inFlightHandlers from './plugins/in-flight-handlers.ts';
import readCache from './plugins/read-cache.ts';
import responseValidation from './plugins/response-validation.ts';
import { docsUi } from './api/discovery/docs-ui.ts';
import { apiRouteGroups } from './api/index.ts';

export interface AppOptions {
  /** Route groups served beside the API's own (tests; they are not in the discovery documents). */
  extraRouteGroups?: RouteGroup[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The caches this app made when it was built (src/caches.ts), for diagnostics and tests. */
    caches: AppCaches;
  }
}

/**
 * The Fastify instance and its plugins, in order. Its caches are made first, once, from the Config (src/caches.ts),
 * and handed to the plugins and routes that use them; requests reach theirs through `ctx.caches`.
 * Cross-cutting plugins (fastify-plugin, so their hooks, handlers and decorators apply to every route) come first, the
 * routes last:
 * 0. in-flight-handlers: counts every route's handler under way, so that a close waits for them before the followers
 *    and the store stop;
 * 1. errors: the one error and not-found handler, so whatever fails later is answered in the contract's shape;
 * 2. body: the JSON and form parsers (anything else is 415);
 * 3. auth: the first onRequest hook, so credentials are checked before anything else and `request.ctx` exists for
 *    everything after it (D15);
 * 4. cors, 5. headers: onSend hooks on every answer, errors and 404s included;
 * 6. read-cache: `readThrough` for the routes' reads (needs `request.ctx`);
 *    idempotency: `idempotentCreate` for the POST creates (D23; needs `request.ctx`);
 * 7. response-validation (VALIDATE_RESPONSES): it checks the answer as it will leave (conditional only tags it or
 *    drops its body);
 *    conditional (D22): parses If-Match/If-None-Match before the handler; the last onSend hook, so the ETag is the
 *    hash of the bytes that leave, and a 304 or 412 replaces them there, after the read cache;
 * 8. the routes: the API route table, the documentation UI, the public pages (D28, HTML errors of their own), /health.
 * The hooks that run on every request take Fastify's `done` callback instead of being async functions: each async hook
 * costs a promise and a turn of the microtask queue per request, seven of them about 7 % of a read by id's CPU in one
 * process (docs/performance.md); auth waits for a promise only when credentials were sent.
 */
export async function buildApp(setup: AppSetup, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config, store } = setup;
  const caches = createCaches(config, store);
  const deps: AppDeps = { ...setup, caches };
  const app = Fastify({
    logger: await loggerOptions(config),
    logController: new LogController({ disableRequestLogging: !['debug', 'trace'].includes(config.logLevel) }),
    bodyLimit: BODY_LIMIT_BYTES,
    // D31: a request whose headers and body have not all arrived within REQUEST_TIMEOUT_MS is answered 408 and closed
    // (Node checks its connections for that every second here instead of every 30 s).
    requestTimeout: config.deadlines.requestMs,
    http: {
      headersTimeout: Math.min(60_000, config.deadlines.requestMs),
      connectionsCheckingInterval: Math.min(1_000, config.deadlines.requestMs),
      // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own; the errors plugin answers it
      // in the contract's shape instead (missingHost).
      requireHostHeader: false,
    },
    // D29: X-Forwarded-For gives request.ip only from these proxies.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 1000,
      querystringParser: parseQueryString,
    },
    frameworkErrors: pageAwareFrameworkErrors(config, answerFrameworkError),
    clientErrorHandler: answerClientError(config),
  });

  app.decorate('caches', caches);
  // D34: every write through this store renders the stored documents of what it changed, and counts its events.
  const stopDocuments = keepDocumentsCurrent(store, config);
  const stopCounts = keepCountsCurrent(store);
  app.addHook('onClose', async () => {
    stopDocuments();
    stopCounts();
  });
  await app.register(inFlightHandlers, { maxWaitMs: config.deadlines.requestMs });
  await app.register(errors);
  await app.register(activity);
  await app.register(body);
  await app.register(auth, { deps, authenticator: caches.credentials });
  await app.register(cors, { config });
  await app.register(headers);
  await app.register(readCache, { store, cache: caches.responses });
  await app.register(idempotency, { store });
  if (config.validateResponses) await app.register(responseValidation);
  await app.register(conditional);

  await app.register(apiRoutes, {
    deps,
    groups: [
      ...apiRouteGroups({ entries: caches.icalEntries, tags: caches.feedTags }),
      ...(options.extraRouteGroups ?? []),
    ],
  });
  await app.register(docsUi, { config });
  await app.register(pages, { deps });
  await app.register(health, { store });
  return app;
}
