// Discovery (§13), the OpenAPI document (§14) and the interactive documentation, over HTTP.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describeEachDatabase } from '../helpers/harness.ts';
import { readExample } from './support.ts';

const NS = '/calendar/events/v1';

/** §13's route order: every key the service lists must appear in this order (routes still being built may be absent). */
const REFERENCE_ORDER = [
  '', '/doc',
  '/events', '/events/(?P<id>\\d+)', '/events/by-slug/(?P<slug>[^/]+)',
  '/venues', '/venues/(?P<id>\\d+)', '/venues/by-slug/(?P<slug>[^/]+)',
  '/organizers', '/organizers/(?P<id>\\d+)', '/organizers/by-slug/(?P<slug>[^/]+)',
  '/categories', '/categories/(?P<id>\\d+)', '/tags', '/tags/(?P<id>\\d+)',
].map((pattern) => `${NS}${pattern}`);

const ITEM_METHODS = ['GET', 'DELETE', 'POST', 'PUT', 'PATCH'];

describeEachDatabase('Discovery: the namespace index (§13)', (h) => {
  const index = async () => {
    const response = await h().request('GET', h().api);
    assert.equal(response.statusCode, 200, response.body);
    return response;
  };

  it('answers anonymously with the namespace, its routes and a link up to the API root', async () => {
    const response = await index();
    const body = response.json();
    assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(response.headers.allow, 'GET');
    assert.deepEqual(Object.keys(body), ['namespace', 'routes', '_links']);
    assert.equal(body.namespace, 'calendar/events/v1');
    assert.deepEqual(body._links, { up: [{ href: 'http://127.0.0.1:8080/' }] });
    assert.equal((await h().request('GET', `${h().api}/`)).statusCode, 200);
  });

  it('lists the routes as regex keys in the reference order, discovery first', async () => {
    const keys = Object.keys((await index()).json().routes);
    assert.deepEqual(keys.slice(0, 2), [NS, `${NS}/doc`]);
    for (const key of [...REFERENCE_ORDER.slice(5, 11)]) assert.ok(keys.includes(key), `${key} is listed`);
    const known = keys.filter((key) => REFERENCE_ORDER.includes(key));
    assert.deepEqual(known, REFERENCE_ORDER.filter((key) => keys.includes(key)));
  });

  it('gives _links.self only to routes without parameters', async () => {
    const { routes } = (await index()).json();
    for (const [key, route] of Object.entries<any>(routes)) {
      if (key.includes('(?P<')) assert.equal(route._links, undefined, key);
      else assert.deepEqual(route._links, { self: [{ href: `http://127.0.0.1:8080${key}` }] }, key);
    }
  });

  it('lists methods per route and per endpoint as the reference does', async () => {
    const { routes } = (await index()).json();
    const root = routes[NS];
    assert.deepEqual(root.methods, ['GET']);
    assert.deepEqual(root.endpoints, [{ methods: ['GET'], args: {
      namespace: { default: 'calendar/events/v1', description: root.endpoints[0].args.namespace.description, type: 'string', required: false },
      context: { default: 'view', description: root.endpoints[0].args.context.description, type: 'string', required: false },
    } }]);
    assert.deepEqual(routes[`${NS}/doc`].endpoints, [{ methods: ['GET'], args: [] }]);
    for (const collection of ['venues', 'organizers']) {
      assert.deepEqual(routes[`${NS}/${collection}`].methods, ['GET', 'POST']);
      for (const key of [`${NS}/${collection}/(?P<id>\\d+)`, `${NS}/${collection}/by-slug/(?P<slug>[^/]+)`]) {
        assert.deepEqual(routes[key].methods, ITEM_METHODS, key);
        assert.deepEqual(routes[key].endpoints.map((endpoint: any) => endpoint.methods), [['GET'], ['DELETE'], ['POST', 'PUT', 'PATCH']]);
      }
    }
  });

  it('describes every argument with required and, when declared, default, description, type, items and format', async () => {
    const { routes } = (await index()).json();
    const list = routes[`${NS}/venues`].endpoints[0].args;
    assert.deepEqual(list.page, { default: 1, description: list.page.description, type: 'integer', required: false });
    assert.equal(list.per_page.default, 10);
    assert.equal(list.status.type, 'array');
    assert.deepEqual(list.status.items, { type: 'string' });
    const create = routes[`${NS}/venues`].endpoints[1].args;
    assert.equal(create.venue.required, true);
    assert.equal(create.venue.type, 'string');
    assert.equal(create.date.format, 'date-time');
    assert.deepEqual(Object.keys(routes[`${NS}/venues/by-slug/(?P<slug>[^/]+)`].endpoints[0].args), ['slug']);
    const single = routes[`${NS}/venues/(?P<id>\\d+)`].endpoints[0].args;
    assert.deepEqual(Object.keys(single), ['id']);
    assert.equal(single.id.required, true);
    for (const route of Object.values<any>(routes)) {
      for (const endpoint of route.endpoints) {
        for (const [name, described] of Object.entries<any>(Array.isArray(endpoint.args) ? {} : endpoint.args)) {
          assert.equal(typeof described.required, 'boolean', name);
          assert.equal(Object.keys(described).at(-1), 'required', name);
          assert.ok(typeof described.description === 'string' && described.description.length > 0, `${name} has a description`);
        }
      }
    }
  });

  it('matches the structure of the recorded example 01 for the routes it shares', async () => {
    const recorded = readExample('01-discovery-namespace.json').response;
    const { routes } = (await index()).json();
    // Routes this service adds beyond the reference (D24, D26 and D27 in docs/decisions.md).
    const extensions = new Set([`${NS}/changes`, `${NS}/events.ics`, `${NS}/events/(?P<id>\\d+).ics`, `${NS}/events/fullcalendar`]);
    for (const [key, route] of Object.entries<any>(routes)) {
      if (extensions.has(key) || key.startsWith(`${NS}/webhooks`)) continue;
      const expected = recorded.body.routes[key];
      assert.ok(expected, `${key} exists in the reference`);
      assert.deepEqual(Object.keys(route), Object.keys(expected), key);
      assert.deepEqual(route.methods, expected.methods, key);
      assert.deepEqual(route.endpoints.map((endpoint: any) => endpoint.methods), expected.endpoints.map((endpoint: any) => endpoint.methods), key);
    }
  });

  it('computes clock-dependent defaults (the event window) when asked', async () => {
    const events = `${NS}/events`;
    h().setNow('2026-11-22T04:20:21Z');
    const first = (await index()).json().routes[events];
    assert.ok(first, `the index has ${events}`);
    h().setNow('2027-05-01T10:00:00Z');
    const later = (await index()).json().routes[events];
    assert.notEqual(first.endpoints[0].args.start_date.default, later.endpoints[0].args.start_date.default);
  });
});

describeEachDatabase('Discovery: the per_page default follows PER_PAGE_DEFAULT', (h) => {
  it('shows the configured page size', async () => {
    const { routes } = (await h().request('GET', h().api)).json();
    assert.equal(routes[`${NS}/venues`].endpoints[0].args.per_page.default, 7);
  });
}, { PER_PAGE_DEFAULT: '7' });

describeEachDatabase('Discovery: the OpenAPI document (§14)', (h) => {
  const document = async () => {
    const response = await h().request('GET', '/doc');
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('is a valid OpenAPI 3.1 document, public, served as JSON', async () => {
    const response = await h().request('GET', '/doc');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers.allow, 'GET');
    assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
    const validator = new Validator();
    const result = await validator.validate(response.json());
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
  });

  it('keeps the reference\'s top-level order and points servers[0] at the API root', async () => {
    const doc = await document();
    assert.deepEqual(Object.keys(doc).filter((key) => ['openapi', 'info', 'components', 'servers', 'paths'].includes(key)),
      ['openapi', 'info', 'components', 'servers', 'paths']);
    assert.equal(doc.servers[0].url, h().config.apiRoot);
    assert.equal(doc.servers[0].url, 'http://127.0.0.1:8080/calendar/events/v1');
  });

  it('has every route of the index and every method, PUT and PATCH included, each with a unique operationId', async () => {
    const doc = await document();
    const { routes } = (await h().request('GET', h().api)).json();
    const templates = Object.keys(routes).map((key) => key.slice(NS.length).replace(/\(\?P<([^>]+)>[^)]*\)/g, '{$1}') || '/');
    assert.deepEqual(Object.keys(doc.paths), templates);
    const ids = new Set<string>();
    Object.values<any>(routes).forEach((route, position) => {
      const item = doc.paths[templates[position]];
      assert.deepEqual(Object.keys(item), route.methods.map((method: string) => method.toLowerCase()), templates[position]);
      for (const operation of Object.values<any>(item)) {
        assert.ok(!ids.has(operation.operationId), operation.operationId);
        ids.add(operation.operationId);
      }
    });
  });

  it('declares every path parameter in the path, and the other arguments in the query (reads) or the body (writes)', async () => {
    const doc = await document();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const [method, operation] of Object.entries<any>(item)) {
        const parameters = operation.parameters ?? [];
        assert.deepEqual(parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name), templated, `${method} ${path}`);
        for (const parameter of parameters) if (parameter.in === 'path') assert.equal(parameter.required, true);
        if (['post', 'put', 'patch'].includes(method)) assert.ok(parameters.every((p: any) => p.in === 'path' || p.in === 'header'), `${method} ${path}`);
      }
    }
    const list = doc.paths['/venues'].get.parameters;
    assert.deepEqual(list.slice(0, 4).map((p: any) => p.name), ['page', 'per_page', 'search', 'status']);
    assert.ok(list.every((p: any) => p.in === 'query'));
    assert.deepEqual(list.find((p: any) => p.name === 'status'), {
      name: 'status', in: 'query', description: list.find((p: any) => p.name === 'status').description, required: false,
      schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: false,
    });
    const create = doc.paths['/venues'].post.requestBody;
    assert.equal(create.required, true);
    assert.deepEqual(Object.keys(create.content), ['application/json', 'application/x-www-form-urlencoded']);
    assert.deepEqual(create.content['application/json'].schema.required, ['venue']);
    assert.equal(create.content['application/json'].schema.properties.venue.type, 'string');
    assert.equal(doc.paths['/venues/{id}'].patch.requestBody.required, false);
    assert.equal(doc.paths['/venues/{id}'].delete.parameters.find((p: any) => p.name === 'force').in, 'query');
  });

  it('documents real response types: author a string, dates in the WordPress format, errors as the envelope', async () => {
    const doc = await document();
    const { Venue, Organizer, Image, Error } = doc.components.schemas;
    assert.equal(Venue.properties.author.type, 'string');
    assert.equal(Venue.properties.date.pattern, '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$');
    assert.equal(Venue.properties.geo_lat.type, 'number');
    assert.deepEqual(Venue.properties.image, { $ref: '#/components/schemas/Image' });
    assert.equal(Venue.additionalProperties, false);
    assert.ok(Venue.required.includes('show_map') && !Venue.required.includes('address'));
    assert.equal(Organizer.properties.email.type, 'string');
    assert.deepEqual(Image.required, ['url', 'id', 'extension']);
    assert.deepEqual(Error.required, ['code', 'message', 'data']);

    const get = doc.paths['/venues/{id}'].get.responses;
    assert.deepEqual(get['200'].content['application/json'].schema, { $ref: '#/components/schemas/Venue' });
    assert.deepEqual(get['400'].content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    assert.deepEqual(get.default.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    const list = doc.paths['/venues'].get.responses['200'].content['application/json'].schema;
    assert.equal(list.type, 'object');
    assert.deepEqual(list.properties.venues, { type: 'array', items: { $ref: '#/components/schemas/Venue' }, description: list.properties.venues.description });
    assert.deepEqual(list.required, ['venues', 'rest_url', 'total', 'total_pages']);
    const deleted = doc.paths['/venues/{id}'].delete.responses['200'].content['application/json'].schema;
    assert.equal(deleted.anyOf.length, 2);
  });

  it('declares HTTP Basic and requires it on every write (and on the administrators\' webhook reads, D27)', async () => {
    const doc = await document();
    assert.deepEqual(doc.components.securitySchemes.basicAuth.type, 'http');
    assert.deepEqual(doc.components.securitySchemes.basicAuth.scheme, 'basic');
    assert.deepEqual(doc.security, [{}, { basicAuth: [] }]);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (method === 'get' && !path.startsWith('/webhooks')) assert.equal(operation.security, undefined, `${method} ${path}`);
        else assert.deepEqual(operation.security, [{ basicAuth: [] }], `${method} ${path}`);
      }
    }
  });
});

describeEachDatabase('Discovery: URLs under another SITE_URL and API_PREFIX', (h) => {
  it('puts the API root in servers[0] and the link up at the prefix', async () => {
    const index = (await h().request('GET', h().api)).json();
    assert.deepEqual(index._links.up, [{ href: 'https://events.example/site/wp-json/' }]);
    assert.deepEqual(index.routes['/calendar/events/v1/venues']._links.self, [{ href: 'https://events.example/site/wp-json/calendar/events/v1/venues' }]);
    const doc = (await h().request('GET', `${h().api}/doc`)).json();
    assert.equal(doc.servers[0].url, 'https://events.example/site/wp-json/calendar/events/v1');
  });
}, { SITE_URL: 'https://events.example/site/', API_PREFIX: '/wp-json' });

describeEachDatabase('Discovery: the interactive documentation', (h) => {
  it('moves {api}/docs to {api}/docs/, so the page\'s relative links resolve', async () => {
    const response = await h().request('GET', '/docs');
    assert.equal(response.statusCode, 301);
    assert.equal(response.headers.location, 'docs/');
  });

  it('serves a Swagger UI page that loads only its own assets and reads ../doc', async () => {
    const page = await h().request('GET', '/docs/');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.doesNotMatch(page.body, /https?:\/\//);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(assets.sort(), ['favicon-16x16.png', 'favicon-32x32.png', 'index.css', 'initializer.js', 'swagger-ui-bundle.js', 'swagger-ui.css']);
    const types: Record<string, RegExp> = { png: /^image\/png$/, css: /^text\/css/, js: /^text\/javascript/ };
    for (const asset of assets) {
      const response = await h().request('GET', `/docs/${asset}`);
      assert.equal(response.statusCode, 200, asset);
      assert.match(String(response.headers['content-type']), types[asset.split('.').pop()!], asset);
      assert.ok(response.rawPayload.length > 0, asset);
    }
    const initializer = (await h().request('GET', '/docs/initializer.js')).body;
    assert.match(initializer, /url: '\.\.\/doc'/);
    assert.match(initializer, /validatorUrl: null/);
    assert.match((await h().request('GET', '/docs/swagger-ui-bundle.js')).body, /SwaggerUIBundle/);
  });

  it('answers anything else under docs/ with rest_no_route', async () => {
    for (const path of ['/docs/nothing.js', '/docs/constructor', '/docs/__proto__', '/docs/..%2Fpackage.json']) {
      const response = await h().request('GET', path);
      assert.equal(response.statusCode, 404, path);
      assert.equal(response.json().code, 'rest_no_route', path);
    }
  });
});
