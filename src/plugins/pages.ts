import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
} from 'fastify';
import type { Config } from '../config.ts';
import type { AppDeps } from '../http/context.ts';
import { PageError, anonymous } from '../pages/service.ts';
import {
  currentMonthPage,
  errorPage,
  eventDateIcs,
  eventPage,
  favicon,
  faviconIco,
  requestPath,
  linkedPage,
  monthPage,
  occurrencePage,
  PAGE_KINDS,
  robotsPage,
  rootPage,
  sitemapFilePage,
  sitemapPage,
  stylesheet,
  termPage,
  unknownPage,
  upcomingPage,
  type PageHandler,
  type PageRequest,
  type PageRoute,
} from '../pages/routes.ts';
import { hasUnlockCookie } from '../pages/unlock.ts';
import { runWithDeadline } from '../store/deadline.ts';
import { sendReply, type EncodedReply } from './reply.ts';

type PageRouteHandler = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  PageRoute
>;

export interface PagesOptions {
  deps: AppDeps;
}

/** An error's HTTP status: its `status` (an ApiError's), else its `statusCode` (Fastify's), else 500. */
function statusOf(error: unknown): number {
  if (typeof error === 'object' && error !== null) {
    if ('status' in error && typeof error.status === 'number') return error.status;
    if ('statusCode' in error && typeof error.statusCode === 'number') return error.statusCode;
  }
  return 500;
}

/**
 * An error a page route or a hook threw as an HTML page: 4xx with its status, else 500 (a PageError never gets here:
 * `run` answers it).
 */
function pageForError(config: Config, error: unknown, request: FastifyRequest): EncodedReply {
  const status = statusOf(error);
  if (status === 503) {
    return errorPage(
      config,
      503,
      'Try again soon',
      'This page took too long to prepare. Please try again in a moment.',
      requestPath(request.url),
    );
  }
  if (status >= 400 && status < 500) {
    const heading = status === 401 ? 'Not signed in' : status === 404 ? 'Page not found' : 'Request not understood';
    const message =
      status === 401 || status === 403 || status === 429
        ? 'These pages are public: open them without credentials.'
        : status === 415
          ? 'Send the form as a web browser does (application/x-www-form-urlencoded).'
          : 'This request cannot be answered.';
    return errorPage(config, status, heading, message, requestPath(request.url));
  }
  request.log.error({ err: error, method: request.method, url: request.url }, 'page failed');
  return errorPage(
    config,
    500,
    'Something went wrong',
    'This page could not be shown. Please try again later.',
    requestPath(request.url),
  );
}

/**
 * The framework errors met before routing (a malformed percent-escape in the URL) as an HTML page when the address is
 * one of the pages', in the API's JSON shape otherwise (app.ts passes this as Fastify's `frameworkErrors`).
 */
export function pageAwareFrameworkErrors(
  config: Config,
  api: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void,
) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    if (requestPath(request.url).startsWith(config.apiPath)) {
      api(error, request, reply);
      return;
    }
    const page = errorPage(config, 400, 'Bad address', 'This address is malformed.', '/');
    sendReply(reply, page);
  };
}

/**
 * D28: the public pages. Encapsulated (not fastify-plugin), so its error handler, which answers HTML pages, applies to
 * these routes only. Anonymous GETs go through the read cache (plugins/read-cache.ts) unless they carry an unlock
 * cookie; every 200 gets its ETag from the conditional plugin (D22). Pages are for people and robots alike: the
 * `X-Robots-Tag: noindex` the API sends is dropped here (error pages say noindex in their HTML).
 */
const pages: FastifyPluginAsync<PagesOptions> = async (app: FastifyInstance, { deps }) => {
  const { config } = deps;
  const { requestMs } = config.deadlines;

  const run = (handler: PageHandler, request: PageRequest) =>
    runWithDeadline(requestMs, async () => {
      try {
        return await handler(anonymous(request.ctx), request);
      } catch (error) {
        // 400, 404 and 410 pages are answers like any other (and cached like them); anything else goes to the error handler.
        if (error instanceof PageError)
          return errorPage(config, error.status, error.heading, error.message, requestPath(request.url), error.link);
        throw error;
      }
    });

  const read =
    (handler: PageHandler): PageRouteHandler =>
    async (request, reply) => {
      const compute = () => run(handler, request);
      return sendReply(
        reply,
        hasUnlockCookie(request.headers.cookie) ? await compute() : await app.readThrough(request, compute),
      );
    };
  const write =
    (handler: PageHandler): PageRouteHandler =>
    async (request, reply) =>
      sendReply(reply, await run(handler, request));

  app.setErrorHandler((error, request, reply) => sendReply(reply, pageForError(config, error, request)));
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.removeHeader('x-robots-tag');
    // Every page advertises the API as the reference's pages do, so that its discovery finds this service too.
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      reply.header('X-TEC-API-VERSION', 'v1');
      reply.header('X-TEC-API-ORIGIN', config.siteUrl);
      if (!reply.hasHeader('x-tec-api-root')) reply.header('X-TEC-API-ROOT', `${config.apiRoot}/`);
    }
    done(null, payload);
  });

  app.get('/', read(rootPage));
  app.get('/event/:slug', read(eventPage('GET')));
  app.post('/event/:slug', write(eventPage('POST')));
  app.get('/event/:slug/date.ics', read(eventDateIcs));
  app.get('/event/:slug/:date', read(occurrencePage));
  app.get('/venue/:slug', read(linkedPage(PAGE_KINDS.venue)));
  app.get('/organizer/:slug', read(linkedPage(PAGE_KINDS.organizer)));
  app.get('/events', read(upcomingPage));
  app.get('/events/page/:page', read(upcomingPage));
  app.get('/events/month', read(currentMonthPage));
  app.get('/events/month/:month', read(monthPage));
  app.get('/events/category/*', read(termPage(PAGE_KINDS.category)));
  app.get('/events/tag/:slug', read(termPage(PAGE_KINDS.tag)));
  app.get('/assets/pages.css', read(stylesheet));
  app.get('/favicon.svg', read(favicon));
  app.get('/favicon.ico', read(faviconIco));
  app.get('/robots.txt', read(robotsPage));
  app.get('/sitemap.xml', read(sitemapPage));
  app.get('/sitemap-:number.xml', read(sitemapFilePage));
  for (const prefix of ['/event', '/venue', '/organizer', '/event/*', '/venue/*', '/organizer/*', '/events/*'])
    app.get(prefix, read(unknownPage));
};

export default pages;
