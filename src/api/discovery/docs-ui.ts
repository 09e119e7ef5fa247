import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import { noRoute } from '../../http/errors.ts';

/** Where the interactive documentation lives, under the API root. */
const DOCS_SEGMENT = '/docs';

const swaggerUiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Every URL is relative, so the page works behind a proxy that moves the API elsewhere.
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Calendar Events REST API</title>
  <link rel="stylesheet" href="swagger-ui.css">
  <link rel="stylesheet" href="index.css">
  <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="swagger-ui-bundle.js" charset="utf-8"></script>
  <script src="initializer.js" charset="utf-8"></script>
</body>
</html>
`;

// validatorUrl: null keeps the page from calling an online validator: the page needs no internet access.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '../doc',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

interface Asset {
  type: string;
  load: () => Promise<string | Buffer>;
}

const fromPackage = (file: string) => () => readFile(join(swaggerUiDirectory, file));

const ASSETS: Record<string, Asset> = {
  '': { type: 'text/html; charset=utf-8', load: async () => PAGE },
  'initializer.js': { type: 'text/javascript; charset=utf-8', load: async () => INITIALIZER },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', load: fromPackage('swagger-ui.css') },
  'index.css': { type: 'text/css; charset=utf-8', load: fromPackage('index.css') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', load: fromPackage('swagger-ui-bundle.js') },
  'favicon-32x32.png': { type: 'image/png', load: fromPackage('favicon-32x32.png') },
  'favicon-16x16.png': { type: 'image/png', load: fromPackage('favicon-16x16.png') },
};

/** Scripts only from here; "Try it out" may call the API at SITE_URL, which a proxy can put on another origin. */
const contentSecurityPolicy = (config: Config) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(config.siteUrl).origin}`,
    "frame-ancestors 'none'",
  ].join('; ');

export interface DocsUiOptions {
  config: Config;
}

/**
 * Swagger UI at `{api}/docs/`, reading `{api}/doc`. Its assets come from the swagger-ui-dist package and are read
 * once, on first use (the bundle is large and most processes never serve it).
 */
export const docsUi: FastifyPluginAsync<DocsUiOptions> = async (app, { config }) => {
  const base = config.apiPath + DOCS_SEGMENT;
  const loaded = new Map<string, Promise<string | Buffer>>();
  const policy = contentSecurityPolicy(config);

  const serve = async (file: string, reply: FastifyReply) => {
    if (!Object.hasOwn(ASSETS, file)) throw noRoute();
    const asset = ASSETS[file];
    let content = loaded.get(file);
    if (!content) {
      content = asset.load();
      loaded.set(file, content);
    }
    return reply
      .type(asset.type)
      .header('Cache-Control', file === '' ? 'no-cache' : 'public, max-age=86400')
      .header('Content-Security-Policy', policy)
      .send(await content);
  };

  // Relative asset URLs need the trailing slash: `{api}/docs` moves to `{api}/docs/`.
  app.get(base, async (request, reply) => {
    const path = request.url.split('?')[0];
    if (!path.endsWith('/'))
      return reply
        .code(301)
        .header('Location', `${path.slice(path.lastIndexOf('/') + 1)}/`)
        .send();
    return serve('', reply);
  });
  app.get<{ Params: { file: string } }>(`${base}/:file`, async (request, reply) => serve(request.params.file, reply));
};
