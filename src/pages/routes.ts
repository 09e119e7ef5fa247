// D28: the public pages. Each handler parses its address, reads through pages/service.ts (the API's core, as an
// anonymous reader) and renders a template; it answers an `EncodedReply` (http/routes.ts), so that anonymous pages go
// through the read cache and the conditional plugin (ETag/304) exactly as the API's reads do.
import { RepeatedValues, type ParamMap } from '../core/input/params.ts';
import { readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { RequestContext } from '../http/context.ts';
import { entityTag, lastModifiedHeader } from '../http/etag.ts';
import { TooManyPasswordGuesses } from '../http/event-passwords.ts';
import type { EncodedReply } from '../http/routes.ts';
import { embeddedTermObjects } from '../core/events/item-cache.ts';
import { organizerKind } from '../core/organizers/kind.ts';
import { TAXONOMIES, type TaxonomyInfo } from '../core/terms/taxonomies.ts';
import { venueKind } from '../core/venues/kind.ts';
import type { LinkedPostKind } from '../core/linked/kind.ts';
import { describeWhen, monthEntryZone, monthLabel, scriptJson } from './format.ts';
import { monthBounds, monthGrid, monthKey, neighbours, parseMonth } from './month.ts';
import { HTML_TYPE, renderPage, type Layout } from './render.ts';
import {
  badAddress,
  checkSlug,
  dateCalendar,
  listEvents,
  listMonth,
  MONTH_MAX_EVENTS,
  notFound,
  PageError,
  parsePage,
  permalink,
  readEvent,
  readLinked,
  readOccurrences,
  readTerm,
  sitemapCounts,
  sitemapEntries,
  type EventPage,
  type EventView,
  type PageFilters,
  type PageLink,
} from './service.ts';
import { robotsTxt, SITEMAP_TYPE, sitemapFiles, sitemapIndexXml, urlsetXml } from './sitemap.ts';
import { parseCookies, unlockCookie } from './unlock.ts';
import { basePath, cardView, eventView, feedOf, pagerView, pathOf, summaryOf, venueView, type Feed } from './views.ts';

/**
 * What a page route receives, told to Fastify (which takes it on trust; plugins/pages.ts registers every page with
 * it): app.ts parses every query string into a ParamMap, plugins/body.ts the password form, and the router's path
 * parameters are strings by name.
 */
export interface PageRoute {
  Querystring: ParamMap;
  Body: ParamMap | undefined;
  Params: ParamMap;
}
export type PageRequest = FastifyRequest<PageRoute>;

export type PageHandler = (ctx: RequestContext, request: PageRequest) => Promise<EncodedReply>;

export const html = (status: number, payload: string, headers: Record<string, string> = {}): EncodedReply => ({
  status,
  headers,
  type: HTML_TYPE,
  payload,
});

/** The path part of a request URL (no query). */
export const requestPath = (url: string) => url.split('?')[0];

/** The absolute address of a path inside the site (`path` already carries the site's base path). */
const absolute = (config: Config, path: string) => `${new URL(config.siteUrl).origin}${path}`;

/** The OpenGraph tags every page has. */
const baseOg = (title: string, url: string): Array<[string, string]> => [
  ['og:type', 'website'],
  ['og:title', title],
  ['og:url', url],
];

const layoutBase = (config: Config, title: string, canonical: string): Layout => ({
  title,
  canonical,
  siteName: config.siteName,
  base: basePath(config),
  api: { root: `${config.apiRoot}/`, origin: config.siteUrl },
});

/**
 * The API address a page stands for, as the reference advertises it (`X-TEC-API-ROOT`): an event's item, or the list
 * a category or tag page shows. Pages without one get the API's root (plugins/pages.ts). A slug is percent-encoded
 * where it is not already, so that the header holds only URL characters.
 */
const apiRootHeader = (config: Config, path: string): Record<string, string> => ({
  'X-TEC-API-ROOT': `${config.apiRoot}${path.replace(/[^A-Za-z0-9\-._~%/?=&]/g, encodeURIComponent)}`,
});

/** The page for a 4xx/5xx; `noindex`, canonical at the address asked for; `link`: where to go instead. */
export function errorPage(
  config: Config,
  status: number,
  heading: string,
  message: string,
  path: string,
  link?: PageLink,
): EncodedReply {
  const base = basePath(config);
  const canonical = absolute(config, path.startsWith('/') ? path : `/${path}`);
  return html(
    status,
    renderPage(
      'error',
      { status, heading, message, link, home: `${base}/events/` },
      { ...layoutBase(config, heading, canonical), noindex: true },
    ),
  );
}

/** Inside the site the Location is site-relative (RFC 9110 §10.2.2 allows it); `?p=` sends the item's absolute `url`. */
export function redirect(config: Config, status: 301 | 302, location: string): EncodedReply {
  const canonical = location.startsWith('/') ? absolute(config, location) : location;
  return html(
    status,
    renderPage('redirect', { location }, { ...layoutBase(config, 'Moved', canonical), noindex: true }),
    { Location: location },
  );
}

const param = (request: PageRequest, name: string) => String(request.params[name] ?? '');
/** The query as pages read it: a key sent more than once (RepeatedValues) counts as its last value, as PHP reads it. */
const query = (request: PageRequest): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(request.query ?? {}).map(([key, value]) => [
      key,
      value instanceof RepeatedValues ? value.values.at(-1) : value,
    ]),
  );

/** The list part of a list page: the cards, the pager, the feed links. */
function listData(
  list: EventPage,
  pageHref: (page: number) => string,
  feed: Feed,
  emptyText: string,
  heading: 'h2' | 'h3',
) {
  return {
    cards: list.events.map(cardView),
    pager: pagerView(list, pageHref),
    feed,
    emptyText,
    total: list.total,
    heading,
  };
}

/** `?page=N` on a page whose first page is `url`. */
const queryPageHref = (url: string) => (page: number) => (page === 1 ? pathOf(url) : `${pathOf(url)}?page=${page}`);
const canonicalWithPage = (url: string, page: number) => (page === 1 ? url : `${url}?page=${page}`);

const pageTitle = (title: string, page: number) => (page > 1 ? `${title}, page ${page}` : title);

function listPage(
  config: Config,
  options: {
    title: string;
    canonical: string;
    page: number;
    list: EventPage;
    pageHref: (page: number) => string;
    feed: Feed;
    intro?: Record<string, unknown>;
    introTemplate?: string;
    description?: string;
    jsonLd?: unknown;
    emptyText: string;
    headers?: Record<string, string>;
  },
): EncodedReply {
  const layout: Layout = {
    ...layoutBase(config, pageTitle(options.title, options.page), options.canonical),
    description: options.description,
    feeds: [{ title: options.feed.title, url: options.feed.url }],
    og: baseOg(options.title, options.canonical),
    jsonLd: options.jsonLd === undefined ? undefined : scriptJson(options.jsonLd),
  };
  return html(
    200,
    renderPage(
      'list',
      {
        title: options.title,
        page: options.page,
        intro: options.intro,
        introTemplate: options.introTemplate,
        ...listData(options.list, options.pageHref, options.feed, options.emptyText, options.intro ? 'h3' : 'h2'),
      },
      layout,
    ),
    options.headers,
  );
}

// ---------------------------------------------------------------------------------------------------------------------

/** `/event/<slug>/`: GET shows the event (or its password form); POST carries the form's password. */
export const eventPage =
  (method: 'GET' | 'POST'): PageHandler =>
  async (ctx, request) => {
    if (method === 'GET') return publicEventPage(ctx, request);
    const password = request.body?.password ?? '';
    try {
      return renderEvent(
        ctx,
        await readEvent(ctx, param(request, 'slug'), { password, cookies: parseCookies(request.headers.cookie) }),
      );
    } catch (error) {
      if (!(error instanceof TooManyPasswordGuesses)) throw error;
      const page = errorPage(
        ctx.config,
        429,
        'Too many attempts',
        `Too many wrong passwords were sent from your address. Please try again in ${error.retryAfter} seconds.`,
        requestPath(request.url),
      );
      return { ...page, headers: { ...page.headers, 'Retry-After': String(error.retryAfter) } };
    }
  };

/**
 * GET `/event/<slug>/`: a public event's page is the same for every reader until the event changes, so it is kept in
 * the item cache the change log keeps exact (core/events/item-cache.ts), as GET /events/{id} is.
 */
async function publicEventPage(ctx: RequestContext, request: PageRequest): Promise<EncodedReply> {
  const slug = param(request, 'slug');
  const cache = ctx.caches.eventItems;
  const key = `page:${slug}`;
  const found = await cache.lookup(key, ctx);
  if ('hit' in found) return { status: 200, ...found.hit };
  const view = await readEvent(ctx, slug, { cookies: parseCookies(request.headers.cookie) });
  const reply = renderEvent(ctx, view);
  // The cache encodes the page's text if it keeps it (ITEM_CACHE_BYTES); the answer is sent as it was rendered.
  if (!view.locked && view.sameForEveryReader && reply.status === 200 && typeof reply.payload === 'string')
    cache.set(
      key,
      view.post.id,
      found.seq,
      { type: reply.type!, headers: reply.headers, payload: reply.payload },
      embeddedTermObjects(view.event),
    );
  return reply;
}

/** An event page: the event, or its password form when it is locked. */
function renderEvent(ctx: RequestContext, view: EventView): EncodedReply {
  const { config } = ctx;
  const event = view.event;
  const canonical = event.url;
  const headers: Record<string, string> = apiRootHeader(config, `/events/${view.post.id}`);
  if (view.post.password !== '') headers.Vary = 'Cookie';
  if (view.locked) {
    const layout: Layout = {
      ...layoutBase(config, event.title, canonical),
      noindex: true,
      og: baseOg(event.title, canonical),
    };
    const data = {
      title: event.title,
      when: describeWhen(event),
      action: pathOf(canonical),
      wrong: view.wrongPassword,
    };
    return html(view.wrongPassword ? 403 : 200, renderPage('password', data, layout), headers);
  }
  if (view.unlockedWith !== undefined) headers['Cache-Control'] = 'private, no-store';
  if (view.unlockProof !== undefined) {
    headers['Set-Cookie'] = unlockCookie(
      view.post.id,
      view.unlockProof,
      new URL(canonical).pathname,
      canonical.startsWith('https:'),
    );
  }
  Object.assign(headers, lastModifiedHeader(event));
  const data = eventView(config, event, view.seriesDates);
  const description = summaryOf(event);
  const og = baseOg(event.title, canonical);
  if (description !== '') og.push(['og:description', description]);
  if (data.image) og.push(['og:image', data.image.url]);
  const layout: Layout = {
    ...layoutBase(config, event.title, canonical),
    description: description || undefined,
    og,
    jsonLd: scriptJson(event.json_ld),
  };
  return html(200, renderPage('event', data, layout), headers);
}

/** `/event/<slug>/date.ics`: the event's own date alone (see {@link dateCalendar}); 403 while it is locked. */
export const eventDateIcs: PageHandler = async (ctx, request) => {
  const view = await readEvent(ctx, param(request, 'slug'), { cookies: parseCookies(request.headers.cookie) });
  if (view.locked)
    throw new PageError(
      403,
      'Password protected',
      'This event is protected by a password: open its page and enter it first.',
    );
  const headers: Record<string, string> = { 'Content-Disposition': `inline; filename="${view.post.slug}.ics"` };
  if (view.unlockedWith !== undefined) headers['Cache-Control'] = 'private, no-store';
  return { status: 200, headers, type: 'text/calendar; charset=utf-8', payload: await dateCalendar(ctx, view.post.id) };
};

/**
 * D25: `/event/<slug>/<YYYY-MM-DD>/`, the occurrence(s) of a recurring series on that day: one is redirected to its
 * own page (its `url`), several are listed; the series' first occurrence is `/event/<slug>/` itself.
 */
export const occurrencePage: PageHandler = async (ctx, request) => {
  const views = await readOccurrences(ctx, param(request, 'slug'), param(request, 'date'), {
    cookies: parseCookies(request.headers.cookie),
  });
  if (views.length === 1) {
    const own = pathOf(views[0].event.url);
    // Should the occurrence's own `url` be this very address, it is shown here rather than redirected to itself.
    const asked = `${basePath(ctx.config)}${requestPath(request.url).replace(/\/?$/, '/')}`;
    return own === asked ? renderEvent(ctx, views[0]) : redirect(ctx.config, 302, own);
  }
  const title = `${views[0].event.title}, ${describeWhen(views[0].event).text.split(',')[0]}`;
  const list: EventPage = {
    events: views.map((view) => ({ event: view.event, locked: view.locked })),
    total: views.length,
    page: 1,
    perPage: views.length,
    pages: 1,
  };
  return listPage(ctx.config, {
    title,
    canonical: absolute(
      ctx.config,
      `${basePath(ctx.config)}/event/${param(request, 'slug')}/${param(request, 'date')}/`,
    ),
    page: 1,
    list,
    pageHref: () => '',
    feed: feedOf(ctx.config, 'All events'),
    emptyText: '',
  });
};

/** `/venue/<slug>/` and `/organizer/<slug>/`: the details and the upcoming events there / by them. */
export const linkedPage =
  (kind: LinkedPostKind): PageHandler =>
  async (ctx, request) => {
    const page = parsePage(query(request).page);
    const linked = await readLinked(ctx, kind, param(request, 'slug'));
    const { item } = linked;
    const filters: PageFilters = kind.type === 'venue' ? { venue: [item.id] } : { organizer: [item.id] };
    const list = await listEvents(ctx, filters, page, { collapseSeries: true });
    const name = (linked.type === 'venue' ? linked.item.venue : linked.item.organizer) ?? '';
    const intro =
      linked.type === 'venue'
        ? {
            kind: 'venue',
            name,
            venue: venueView(linked.item, linked.item.show_map_link === true),
            descriptionHtml: item.description ?? '',
          }
        : {
            kind: 'organizer',
            name,
            email: linked.item.email,
            phone: linked.item.phone,
            website: linked.item.website,
            descriptionHtml: item.description ?? '',
          };
    return listPage(ctx.config, {
      title: name,
      canonical: canonicalWithPage(item.url, page),
      page,
      list,
      pageHref: queryPageHref(item.url),
      feed: feedOf(ctx.config, `Events ${kind.type === 'venue' ? 'at' : 'by'} ${name}`, { [kind.type]: item.id }),
      intro,
      introTemplate: 'linked-intro',
      description: summaryOf(item) || undefined,
      jsonLd: item.json_ld === undefined ? undefined : { '@context': 'http://schema.org', ...item.json_ld },
      emptyText: `No upcoming events ${kind.type === 'venue' ? 'at this venue' : 'by this organizer'}.`,
    });
  };

/** `/events/category/<ancestors…>/<slug>/` and `/events/tag/<slug>/`. */
export const termPage =
  (info: TaxonomyInfo): PageHandler =>
  async (ctx, request) => {
    const page = parsePage(query(request).page);
    const path = info.hierarchical ? param(request, '*') : param(request, 'slug');
    const segments = path.split('/').filter((segment) => segment !== '');
    if (segments.length === 0) throw notFound();
    if (segments.length > 20) throw badAddress('This category path is too deep.');
    for (const segment of segments) checkSlug(segment);
    const term = await readTerm(ctx, info, segments[segments.length - 1]);
    const url = term.url;
    // A child asked by its own slug only (or under a former parent) lives at its nested address.
    if (new URL(url).pathname !== `${basePath(ctx.config)}/${info.publicPath}/${segments.join('/')}/`) {
      return redirect(ctx.config, 301, queryPageHref(url)(page));
    }
    const filters: PageFilters = info.hierarchical ? { categories: [String(term.id)] } : { tags: [String(term.id)] };
    const list = await listEvents(ctx, filters, page, { collapseSeries: true });
    const noun = info.hierarchical ? 'Category' : 'Tag';
    return listPage(ctx.config, {
      title: `${noun}: ${term.name}`,
      canonical: canonicalWithPage(url, page),
      page,
      list,
      pageHref: queryPageHref(url),
      feed: feedOf(ctx.config, `Events in ${term.name}`, { [info.collection]: term.id }),
      intro: { kind: 'term', descriptionHtml: term.description ?? '' },
      introTemplate: 'linked-intro',
      description: summaryOf(term) || undefined,
      emptyText: `No upcoming events ${info.hierarchical ? 'in this category' : 'with this tag'}.`,
      headers: apiRootHeader(ctx.config, `/events/?${info.collection}=${term.slug}`),
    });
  };

/** `/events/`, `/events/page/N/` (and `?page=N`): the upcoming events, as GET /events lists them by default. */
export const upcomingPage: PageHandler = async (ctx, request) => {
  const fromPath = request.params.page;
  const page = parsePage(fromPath ?? query(request).page);
  const list = await listEvents(ctx, {}, page, { collapseSeries: true });
  const base = basePath(ctx.config);
  const href = (n: number) => (n === 1 ? `${base}/events/` : `${base}/events/page/${n}/`);
  return listPage(ctx.config, {
    title: 'Upcoming events',
    canonical: absolute(ctx.config, href(page)),
    page,
    list,
    pageHref: href,
    feed: feedOf(ctx.config, 'All events'),
    emptyText: 'No upcoming events.',
  });
};

/** `/events/month/`: this month in the site's zone. */
export const currentMonthPage: PageHandler = async (ctx) => {
  const now = ctx.now.setZone(ctx.config.siteTimezone);
  return redirect(ctx.config, 302, `${basePath(ctx.config)}/events/month/${monthKey(now.year, now.month)}/`);
};

/** `/events/month/YYYY-MM/`: every event of the month on the days it spans. */
export const monthPage: PageHandler = async (ctx, request) => {
  const parsed = parseMonth(param(request, 'month'));
  if (!parsed.ok)
    throw new PageError(parsed.status, parsed.status === 404 ? 'Page not found' : 'Bad address', parsed.reason);
  const { year, month } = parsed;
  const list = await listMonth(ctx, year, month);
  const cards = list.events.map(({ event }) => ({
    id: event.id,
    title: event.title,
    url: pathOf(event.url),
    startLocal: event.start_date,
    endLocal: event.end_date,
    allDay: event.all_day === true,
    zone: monthEntryZone(event, ctx.config.siteTimezone),
  }));
  const key = monthKey(year, month);
  const name = monthLabel(key);
  const base = basePath(ctx.config);
  const around = neighbours(year, month);
  const monthHref = (value: string) => `${base}/events/month/${value}/`;
  const { first, last } = monthBounds(year, month);
  const feed = feedOf(ctx.config, `Events in ${name}`, { start_date: first, end_date: last });
  const canonical = absolute(ctx.config, monthHref(key));
  return html(
    200,
    renderPage(
      'month',
      {
        name,
        weeks: monthGrid(year, month, cards),
        previous: around.previous && { href: monthHref(around.previous), label: monthLabel(around.previous) },
        next: around.next && { href: monthHref(around.next), label: monthLabel(around.next) },
        more: list.total > MONTH_MAX_EVENTS ? list.total - MONTH_MAX_EVENTS : 0,
        feed,
        listHref: `${base}/events/`,
        siteZone: ctx.config.siteTimezone,
      },
      {
        ...layoutBase(ctx.config, `Events in ${name}`, canonical),
        feeds: [{ title: feed.title, url: feed.url }],
        og: baseOg(`Events in ${name}`, canonical),
      },
    ),
  );
};

/** `/?p=<id>`: to the item's public page when it is public (302: a slug may change), else 404; `/` alone: the list. */
export const rootPage: PageHandler = async (ctx, request) => {
  const p = query(request).p;
  if (p === undefined) return redirect(ctx.config, 302, `${basePath(ctx.config)}/events/`);
  const text = Array.isArray(p) ? String(p[0]) : String(p);
  if (!/^\d{1,10}$/.test(text)) throw badAddress('p names an item by its id, a whole number.');
  const url = await permalink(ctx, Number(text));
  if (url === undefined) throw notFound();
  return redirect(ctx.config, 302, url);
};

/** Any other address under the pages' prefixes. */
export const unknownPage: PageHandler = async () => {
  throw notFound();
};

/** `/robots.txt`: every page may be read, and the sitemap is where. */
export const robotsPage: PageHandler = async (ctx) => ({
  status: 200,
  headers: {},
  type: 'text/plain; charset=utf-8',
  payload: robotsTxt(ctx.config.siteUrl, basePath(ctx.config)),
});

const sitemapReply = (payload: string): EncodedReply => ({ status: 200, headers: {}, type: SITEMAP_TYPE, payload });

/** `/sitemap.xml`: every public page, or, past SITEMAP_URLS_PER_FILE of them, the index of `/sitemap-<n>.xml`. */
export const sitemapPage: PageHandler = async (ctx) => {
  const counts = await sitemapCounts(ctx);
  const perFile = ctx.config.sitemapUrlsPerFile;
  const files = sitemapFiles(
    counts.reduce((sum, { count }) => sum + count, 0),
    perFile,
  );
  if (files > 0)
    return sitemapReply(
      sitemapIndexXml(Array.from({ length: files }, (_, index) => `${ctx.config.siteUrl}/sitemap-${index + 1}.xml`)),
    );
  return sitemapReply(urlsetXml(await sitemapEntries(ctx, counts, 0, perFile)));
};

/** `/sitemap-<n>.xml`: the n-th file of the sitemap index (404 when /sitemap.xml is no index, or has fewer). */
export const sitemapFilePage: PageHandler = async (ctx, request) => {
  const number = param(request, 'number');
  if (!/^[1-9]\d{0,5}$/.test(number)) throw notFound();
  const counts = await sitemapCounts(ctx);
  const perFile = ctx.config.sitemapUrlsPerFile;
  if (
    Number(number) >
    sitemapFiles(
      counts.reduce((sum, { count }) => sum + count, 0),
      perFile,
    )
  )
    throw notFound();
  return sitemapReply(urlsetXml(await sitemapEntries(ctx, counts, (Number(number) - 1) * perFile, perFile)));
};

const FAVICON = readFileSync(new URL('./assets/favicon.svg', import.meta.url));
const FAVICON_TAG = entityTag('image/svg+xml', FAVICON);

/** The site's icon, a small SVG every page links to. */
export const favicon: PageHandler = async () => ({
  status: 200,
  headers: { ETag: FAVICON_TAG, 'Cache-Control': 'public, max-age=86400' },
  type: 'image/svg+xml',
  payload: FAVICON,
});

/** Browsers ask for `/favicon.ico` where a page names no icon: the SVG is the icon. */
export const faviconIco: PageHandler = async (ctx) => redirect(ctx.config, 301, `${basePath(ctx.config)}/favicon.svg`);

const STYLESHEET = readFileSync(new URL('./assets/pages.css', import.meta.url));
const STYLESHEET_TAG = entityTag('text/css; charset=utf-8', STYLESHEET);

/** The one stylesheet; its ETag is its content's, so browsers revalidate it cheaply. */
export const stylesheet: PageHandler = async () => ({
  status: 200,
  headers: { ETag: STYLESHEET_TAG, 'Cache-Control': 'public, max-age=3600' },
  type: 'text/css; charset=utf-8',
  payload: STYLESHEET,
});

export const PAGE_KINDS = {
  venue: venueKind,
  organizer: organizerKind,
  category: TAXONOMIES.event_category,
  tag: TAXONOMIES.event_tag,
};
