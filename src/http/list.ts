import type { EchoedQuery } from '../domain/lists.ts';
import type { ItemStream } from './bounded-json.ts';
import type { Reply } from './routes.ts';

export interface PageRequest {
  page: number;
  perPage: number;
}

/** RFC 3986 encoding of every name and value, so following a URL never drops or mangles a filter (D11). */
export function buildUrl(base: string, query: EchoedQuery): string {
  const parts = query
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(String(value))}`);
  return parts.length > 0 ? `${base}?${parts.join('&')}` : base;
}

export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

export const totalPages = (total: number, perPage: number) => (total === 0 ? 0 : Math.ceil(total / perPage));

export interface ListLinks {
  restUrl: string;
  nextRestUrl?: string;
  previousRestUrl?: string;
}

/**
 * §4.5: `rest_url` carries `page` first; next/previous drop it and append the new page at the end (none for page 1).
 * A previous page is linked only while it exists.
 */
export function listLinks(base: string, query: EchoedQuery, page: number, pages: number): ListLinks {
  const withoutPage = query.filter(([name]) => name !== 'page');
  const links: ListLinks = { restUrl: buildUrl(base, query) };
  if (page < pages) links.nextRestUrl = buildUrl(base, [...withoutPage, ['page', page + 1]]);
  if (page > 1 && page - 1 <= Math.max(pages, 1)) {
    links.previousRestUrl = buildUrl(base, page - 1 === 1 ? withoutPage : [...withoutPage, ['page', page - 1]]);
  }
  return links;
}

/** X-TEC totals (reference), X-WP totals and an RFC 8288 Link header (D12). */
export function listHeaders(total: number, pages: number, links: ListLinks): Record<string, string> {
  const headers: Record<string, string> = {
    'X-TEC-Total': String(total),
    'X-TEC-TotalPages': String(pages),
    'X-WP-Total': String(total),
    'X-WP-TotalPages': String(pages),
  };
  const link = [
    links.nextRestUrl && `<${links.nextRestUrl}>; rel="next"`,
    links.previousRestUrl && `<${links.previousRestUrl}>; rel="prev"`,
  ]
    .filter(Boolean)
    .join(', ');
  if (link) headers.Link = link;
  return headers;
}

/** The post-type list body (§4.5, §6): items, then rest_url, next/previous when they exist, then the totals. */
export function postListReply(
  key: string,
  items: unknown[] | ItemStream,
  total: number,
  page: PageRequest,
  base: string,
  query: EchoedQuery,
): Reply {
  const pages = totalPages(total, page.perPage);
  const links = listLinks(base, query, page.page, pages);
  const body: Record<string, unknown> = { [key]: items, rest_url: links.restUrl };
  if (links.nextRestUrl) body.next_rest_url = links.nextRestUrl;
  if (links.previousRestUrl) body.previous_rest_url = links.previousRestUrl;
  body.total = total;
  body.total_pages = pages;
  return { body, headers: listHeaders(total, pages, links) };
}
