// D28: robots.txt and the sitemap protocol (sitemaps.org 0.9), written without I/O. A sitemap file lists at most
// 50,000 URLs and weighs at most 50 MB; past SITEMAP_URLS_PER_FILE URLs, /sitemap.xml is an index of numbered files.

export const SITEMAP_TYPE = 'application/xml; charset=utf-8';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** The protocol's bound on the files of one index. */
const MAX_SITEMAP_FILES = 50_000;

export interface SitemapEntry {
  /** The page's absolute address. */
  url: string;
  /** Its last change, UTC `YYYY-MM-DD HH:MM:SS`, where it has one. */
  modifiedUtc?: string;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** A URL as a sitemap holds it: percent-escaped (RFC 3986, as the protocol asks), then escaped for XML. */
export function sitemapUrl(url: string): string {
  return new URL(url).href.replace(/[&<>"']/g, (char) => XML_ESCAPES[char]);
}

/** How many numbered files the sitemap has: none when /sitemap.xml lists everything itself. */
export function sitemapFiles(totalUrls: number, urlsPerFile: number): number {
  return totalUrls <= urlsPerFile ? 0 : Math.min(Math.ceil(totalUrls / urlsPerFile), MAX_SITEMAP_FILES);
}

export function urlsetXml(entries: readonly SitemapEntry[]): string {
  const lines = entries.map(({ url, modifiedUtc }) => {
    const lastmod = modifiedUtc === undefined ? '' : `<lastmod>${modifiedUtc.replace(' ', 'T')}+00:00</lastmod>`;
    return `<url><loc>${sitemapUrl(url)}</loc>${lastmod}</url>\n`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NAMESPACE}">\n${lines.join('')}</urlset>\n`;
}

export function sitemapIndexXml(fileUrls: readonly string[]): string {
  const lines = fileUrls.map((url) => `<sitemap><loc>${sitemapUrl(url)}</loc></sitemap>\n`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NAMESPACE}">\n${lines.join('')}</sitemapindex>\n`;
}

/** Every robot may read the pages (the API says noindex itself); the sitemap is named by its absolute address. */
export function robotsTxt(siteUrl: string, base: string): string {
  return `User-agent: *\nAllow: ${base}/\n\nSitemap: ${siteUrl}/sitemap.xml\n`;
}
