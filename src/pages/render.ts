// D28: HTML comes only from the Eta templates in ./templates, which escape every `<%= %>` value. The only raw outputs
// (`<%~ %>`) are the API's own sanitised HTML (descriptions, excerpts: domain/html.ts), the JSON-LD made safe for a
// script element (format.ts scriptJson) and a rendered template inside the layout.
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

const eta = new Eta({
  views: fileURLToPath(new URL('./templates', import.meta.url)),
  cache: true,
  autoEscape: true,
  autoTrim: [false, 'nl'],
});

export const HTML_TYPE = 'text/html; charset=utf-8';

export interface Layout {
  title: string;
  siteName: string;
  /** Absolute URL of the page's canonical address. */
  canonical: string;
  /** The site's path prefix (`""` at the root): links inside the site are site-relative. */
  base: string;
  description?: string;
  /** OpenGraph `[property, content]` pairs. */
  og?: Array<[string, string]>;
  /** Already made safe for a script element. */
  jsonLd?: string;
  feeds?: Array<{ title: string; url: string }>;
  /** Asks robots not to index (error pages, the password form). */
  noindex?: boolean;
  /** Where the API is (the reference's discovery tags): its root with a trailing slash, and the site's home URL. */
  api: { root: string; origin: string };
}

/** A template under ./templates (without `.eta`) inside the layout. */
export function renderPage(template: string, data: Record<string, unknown>, layout: Layout): string {
  const body = eta.render(`./${template}`, { ...data, base: layout.base });
  return eta.render('./layout', { ...layout, body });
}
