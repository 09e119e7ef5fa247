// Discovery (§13), the OpenAPI document (§14) and the interactive documentation, over HTTP.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describeEachDatabase } from '../helpers/harness.ts';
import { readExample } from './support.ts';

const NS = '/calendar/events/v1';

/** §13's route order: every key the service lists must appear in this order (routes still being built may be absent). */
const REFERENCE_ORDER = [
  '',
  '/doc',
  '/events',
  '/events/(?P<id>\\d+)',
  '/events/by-slug/(?P<slug>[^/]+)',
  '/venues',
  '/venues/(?P<id>\\d+)',
  '/venues/by-slug/(?P<slug>[^/]+)',
  '/organizers',
  '/organizers/(?P<id>\\d+)',
  '/organizers/by-slug/(?P<slug>[^/]+)',
  '/categories',
  '/categories/(?P<id>\\d+)',
  '/tags',
  '/tags/(?P<id>\\d+)',
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
    assert.deepEqual(
      known,
      REFERENCE_ORDER.filter((key) => keys.includes(key)),
    );
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
    assert.deepEqual(root.endpoints, [
      {
        methods: ['GET'],
        args: {
          namespace: {
            default: 'calendar/events/v1',
            description: root.endpoints[0].args.namespace.description,
            type: 'string',
            required: false,
          },
          context: {
            default: 'view',
            description: root.endpoints[0].args.context.description,
            type: 'string',
            required: false,
          },
        },
      },
    ]);
    assert.deepEqual(routes[`${NS}/doc`].endpoints, [{ methods: ['GET'], args: [] }]);
    for (const collection of ['venues', 'organizers']) {
      assert.deepEqual(routes[`${NS}/${collection}`].methods, ['GET', 'POST']);
      for (const key of [`${NS}/${collection}/(?P<id>\\d+)`, `${NS}/${collection}/by-slug/(?P<slug>[^/]+)`]) {
        assert.deepEqual(routes[key].methods, ITEM_METHODS, key);
        assert.deepEqual(
          routes[key].endpoints.map((endpoint: any) => endpoint.methods),
          [['GET'], ['DELETE'], ['POST', 'PUT', 'PATCH']],
        );
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
          assert.ok(
            typeof described.description === 'string' && described.description.length > 0,
            `${name} has a description`,
          );
        }
      }
    }
  });

  it('matches the structure of the recorded example 01 for the routes it shares', async () => {
    const recorded = readExample('01-discovery-namespace.json').response;
    const { routes } = (await index()).json();
    // Routes this service adds beyond the reference (D24, D26 and D27 in docs/decisions.md).
    const extensions = new Set([
      `${NS}/changes`,
      `${NS}/events.ics`,
      `${NS}/events/(?P<id>\\d+).ics`,
      `${NS}/events/fullcalendar`,
    ]);
    for (const [key, route] of Object.entries<any>(routes)) {
      if (extensions.has(key) || key.startsWith(`${NS}/webhooks`)) continue;
      const expected = recorded.body.routes[key];
      assert.ok(expected, `${key} exists in the reference`);
      assert.deepEqual(Object.keys(route), Object.keys(expected), key);
      assert.deepEqual(route.methods, expected.methods, key);
      assert.deepEqual(
        route.endpoints.map((endpoint: any) => endpoint.methods),
        expected.endpoints.map((endpoint: any) => endpoint.methods),
        key,
      );
    }
  });

  it('shows each argument as the reference declares it, not the finer schema of the OpenAPI document', async () => {
    const { routes } = (await index()).json();
    const create = routes[`${NS}/events`].endpoints[1].args;
    const shown = (args: Record<string, any>, name: string, rest: Record<string, unknown>) =>
      assert.deepEqual(args[name], { description: args[name].description, ...rest }, name);
    shown(create, 'start_date', { format: 'date-time', required: true });
    shown(create, 'date', { format: 'date-time', required: false });
    for (const name of ['venue', 'organizer', 'cost', 'image', 'website']) shown(create, name, { required: false });
    shown(create, 'categories', {
      type: 'array',
      items: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      required: false,
    });
    const list = routes[`${NS}/events`].endpoints[0].args;
    assert.deepEqual(Object.keys(list.starts_after), ['description', 'required']);
    const venues = routes[`${NS}/venues`].endpoints;
    shown(venues[1].args, 'geo_lat', { required: false });
    shown(venues[1].args, 'city', { required: false });
    shown(venues[1].args, 'recurrence', { required: false });
    shown(venues[0].args, 'has_events', { type: 'string', required: false });
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

describeEachDatabase(
  'Discovery: the per_page default follows PER_PAGE_DEFAULT',
  (h) => {
    it('shows the configured page size', async () => {
      const { routes } = (await h().request('GET', h().api)).json();
      assert.equal(routes[`${NS}/venues`].endpoints[0].args.per_page.default, 7);
    });
  },
  { PER_PAGE_DEFAULT: '7' },
);

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

  it("keeps the reference's top-level order and points servers[0] at the API root", async () => {
    const doc = await document();
    assert.deepEqual(
      Object.keys(doc).filter((key) => ['openapi', 'info', 'components', 'servers', 'paths'].includes(key)),
      ['openapi', 'info', 'components', 'servers', 'paths'],
    );
    assert.equal(doc.servers[0].url, h().config.apiRoot);
    assert.equal(doc.servers[0].url, 'http://127.0.0.1:8080/calendar/events/v1');
  });

  it('has every route of the index and every method, PUT and PATCH included, each with a unique operationId', async () => {
    const doc = await document();
    const { routes } = (await h().request('GET', h().api)).json();
    const templates = Object.keys(routes).map(
      (key) => key.slice(NS.length).replace(/\(\?P<([^>]+)>[^)]*\)/g, '{$1}') || '/',
    );
    assert.deepEqual(Object.keys(doc.paths), templates);
    const ids = new Set<string>();
    Object.values<any>(routes).forEach((route, position) => {
      const item = doc.paths[templates[position]];
      assert.deepEqual(
        Object.keys(item),
        route.methods.map((method: string) => method.toLowerCase()),
        templates[position],
      );
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
        assert.deepEqual(
          parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name),
          templated,
          `${method} ${path}`,
        );
        for (const parameter of parameters) if (parameter.in === 'path') assert.equal(parameter.required, true);
        if (['post', 'put', 'patch'].includes(method))
          assert.ok(
            parameters.every((p: any) => p.in === 'path' || p.in === 'header'),
            `${method} ${path}`,
          );
      }
    }
    const list = doc.paths['/venues'].get.parameters;
    assert.deepEqual(
      list.slice(0, 4).map((p: any) => p.name),
      ['page', 'per_page', 'search', 'status'],
    );
    assert.ok(list.every((p: any) => p.in === 'query'));
    assert.deepEqual(
      list.find((p: any) => p.name === 'status'),
      {
        name: 'status',
        in: 'query',
        description: list.find((p: any) => p.name === 'status').description,
        required: false,
        schema: { type: 'array', items: { type: 'string' } },
        style: 'form',
        explode: true,
      },
    );
    assert.match(
      list.find((p: any) => p.name === 'status').description,
      /repeat the key \(status=a&status=b\), or separate them with commas \(status=a,b\); status\[\]=a&status\[\]=b works too\.$/,
    );
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
    const { Venue, Organizer, Image, Error: ErrorSchema } = doc.components.schemas;
    assert.equal(Venue.properties.author.type, 'string');
    assert.equal(Venue.properties.date.pattern, '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$');
    assert.equal(Venue.properties.geo_lat.type, 'number');
    assert.deepEqual(Venue.properties.image, { $ref: '#/components/schemas/Image' });
    assert.equal(Venue.additionalProperties, false);
    assert.ok(Venue.required.includes('show_map') && !Venue.required.includes('address'));
    assert.equal(Organizer.properties.email.type, 'string');
    assert.deepEqual(Image.required, ['url', 'id', 'extension']);
    assert.deepEqual(ErrorSchema.required, ['code', 'message', 'data']);

    const get = doc.paths['/venues/{id}'].get.responses;
    assert.deepEqual(get['200'].content['application/json'].schema, { $ref: '#/components/schemas/Venue' });
    assert.deepEqual(get['400'].content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    assert.deepEqual(get.default.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    const list = doc.paths['/venues'].get.responses['200'].content['application/json'].schema;
    assert.equal(list.type, 'object');
    assert.deepEqual(list.properties.venues, {
      type: 'array',
      items: { $ref: '#/components/schemas/Venue' },
      description: list.properties.venues.description,
    });
    assert.deepEqual(list.required, ['venues', 'rest_url', 'total', 'total_pages']);
    const deleted = doc.paths['/venues/{id}'].delete.responses['200'].content['application/json'].schema;
    assert.equal(deleted.anyOf.length, 2);
  });

  it('types every parameter and request-body field, nested ones too, so that a generated client has no unknown', async () => {
    const doc = await document();
    const resolve = (ref: string) =>
      ref
        .split('/')
        .slice(1)
        .reduce((node: any, key) => node[key], doc);
    /** Where a schema, once $ref and a lone allOf are followed, has an alternative without a type (`false`: none). */
    const untyped = (schema: any, where: string): string[] => {
      if (schema === false) return [];
      if (schema.$ref) return untyped(resolve(schema.$ref), where);
      if (schema.allOf?.length === 1) return untyped(schema.allOf[0], where);
      if (schema.oneOf)
        return schema.oneOf.flatMap((branch: any, index: number) => untyped(branch, `${where}|${index}`));
      if (schema.type === 'array') return untyped(schema.items, `${where}[]`);
      if (schema.type === 'object')
        return Object.entries<any>(schema.properties ?? {}).flatMap(([name, field]) =>
          untyped(field, `${where}.${name}`),
        );
      return schema.type === undefined ? [where] : [];
    };
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const parameter of operation.parameters ?? [])
          missing.push(...untyped(parameter.schema, `${method} ${path} ${parameter.name}`));
        for (const [type, content] of Object.entries<any>(operation.requestBody?.content ?? {}))
          missing.push(...untyped(content.schema, `${method} ${path} ${type}`));
      }
    }
    assert.deepEqual(missing, []);
  });

  it('says which forms the event fields accept: dates, venue, organizer, cost, image, categories and tags', async () => {
    const doc = await document();
    const { DateInput, ImageInput, VenueInput, OrganizerInput, VenueFields, OrganizerFields, VenueRef } =
      doc.components.schemas;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const kinds = (schema: any) =>
      schema.oneOf.map(
        (branch: any) =>
          branch.$ref ??
          [branch.type, branch.format ?? branch.const ?? branch.pattern].filter((part) => part !== undefined).join(' '),
      );
    assert.deepEqual(kinds(DateInput), ['string', 'integer']);
    assert.match(DateInput.oneOf[0].description, /`YYYY-MM-DD HH:MM:SS` \(the form the API writes\)/);
    assert.deepEqual(kinds(ImageInput), ['integer', 'string uri', 'string ^\\s*\\d+\\s*$', 'string ', 'boolean false']);
    const body = doc.paths['/events'].post.requestBody.content['application/json'].schema.properties;
    for (const name of ['date', 'start_date', 'end_date'])
      assert.deepEqual(body[name], { description: body[name].description, allOf: [ref('DateInput')] }, name);
    assert.deepEqual(body.image.allOf, [ref('ImageInput')]);
    assert.deepEqual(body.venue.allOf, [ref('VenueInput')]);
    assert.deepEqual(body.organizer.allOf, [ref('OrganizerInput')]);
    assert.deepEqual(kinds(body.cost), ['string', 'number', 'array']);
    assert.deepEqual(kinds(body.categories), ['array', 'string', 'integer']);
    assert.deepEqual(body.tags.oneOf, body.categories.oneOf);
    for (const [input, kind] of [
      [VenueInput, 'Venue'],
      [OrganizerInput, 'Organizer'],
    ] as const) {
      assert.deepEqual(
        kinds(input),
        [
          'integer',
          'string ^(\\s*\\d+\\s*(,\\s*\\d+\\s*)*)?$',
          'boolean false',
          `#/components/schemas/${kind}Ref`,
          `#/components/schemas/${kind}Fields`,
          'array',
        ],
        kind,
      );
      assert.deepEqual(input.oneOf[5].items.oneOf.slice(3), [ref(`${kind}Ref`), ref(`${kind}Fields`)], kind);
    }
    assert.deepEqual(VenueRef.required, ['id']);
    // An inline venue or organizer is read as POST /venues or /organizers reads its body.
    for (const [fields, collection, name] of [
      [VenueFields, 'venues', 'venue'],
      [OrganizerFields, 'organizers', 'organizer'],
    ] as const) {
      const create = doc.paths[`/${collection}`].post.requestBody.content['application/json'].schema;
      assert.deepEqual(fields.properties, create.properties, collection);
      assert.deepEqual(fields.required, [name]);
      assert.deepEqual(fields.not, { required: ['id'] });
    }
    assert.equal(VenueFields.properties.recurrence, false, 'a venue cannot recur: no value is accepted');
    assert.deepEqual(kinds(VenueFields.properties.geo_lat), [
      'number',
      'string ^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$',
      'string ',
    ]);
    assert.deepEqual(kinds(VenueFields.properties.show_map), ['boolean', 'string', 'number']);

    const list = doc.paths['/events'].get.parameters;
    const parameter = (name: string) => list.find((candidate: any) => candidate.name === name);
    for (const name of [
      'start_date',
      'end_date',
      'starts_before',
      'starts_after',
      'ends_before',
      'ends_after',
      'modified_after',
      'modified_before',
    ]) {
      assert.deepEqual(parameter(name).schema, ref('DateInput'), name);
    }
    assert.deepEqual(parameter('categories').schema, { type: 'array', items: { type: 'string' } });
    assert.deepEqual([parameter('categories').style, parameter('categories').explode], ['form', true]);
    assert.deepEqual(parameter('venue').schema, { type: 'array', items: { type: 'integer' } });
  });

  it('claims no RFC 3339 date-time: dates sent are DateInput, dates written `YYYY-MM-DD HH:MM:SS`', async () => {
    const doc = await document();
    const formats = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        const { format } = node as { format?: unknown };
        if (typeof format === 'string') formats.add(format);
        Object.values(node).forEach(walk);
      }
    };
    walk(doc);
    assert.ok(!formats.has('date-time'), `formats used: ${[...formats].join(', ')}`);
    const written = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };
    const { schemas } = doc.components;
    const dates: Record<string, string[]> = {
      Event: [
        'date',
        'date_utc',
        'modified',
        'modified_utc',
        'start_date',
        'end_date',
        'utc_start_date',
        'utc_end_date',
      ],
      Venue: ['date', 'date_utc', 'modified', 'modified_utc'],
      Organizer: ['date', 'date_utc', 'modified', 'modified_utc'],
      Webhook: ['created', 'modified'],
      WebhookAttempt: ['attempted'],
    };
    for (const [name, fields] of Object.entries(dates)) {
      for (const field of fields) {
        const { description, ...schema } = schemas[name].properties[field];
        assert.deepEqual(schema, written, `${name}.${field}`);
      }
    }
    for (const [name, field] of [
      ['Event', 'occurrence_start_utc'],
      ['WebhookAttempt', 'next_attempt'],
    ]) {
      const [date, none] = schemas[name].properties[field].anyOf;
      assert.deepEqual(
        [date.type, date.pattern, none],
        [written.type, written.pattern, { type: 'null' }],
        `${name}.${field}`,
      );
    }
  });

  it("declares HTTP Basic and requires it on every write (and on the administrators' webhook reads, D27)", async () => {
    const doc = await document();
    assert.deepEqual(doc.components.securitySchemes.basicAuth.type, 'http');
    assert.deepEqual(doc.components.securitySchemes.basicAuth.scheme, 'basic');
    assert.deepEqual(doc.security, [{}, { basicAuth: [] }]);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (method === 'get' && !path.startsWith('/webhooks'))
          assert.equal(operation.security, undefined, `${method} ${path}`);
        else assert.deepEqual(operation.security, [{ basicAuth: [] }], `${method} ${path}`);
      }
    }
  });
});

describeEachDatabase(
  'Discovery: URLs under another SITE_URL and API_PREFIX',
  (h) => {
    it('puts the API root in servers[0] and the link up at the prefix', async () => {
      const index = (await h().request('GET', h().api)).json();
      assert.deepEqual(index._links.up, [{ href: 'https://events.example/site/wp-json/' }]);
      assert.deepEqual(index.routes['/calendar/events/v1/venues']._links.self, [
        { href: 'https://events.example/site/wp-json/calendar/events/v1/venues' },
      ]);
      const doc = (await h().request('GET', `${h().api}/doc`)).json();
      assert.equal(doc.servers[0].url, 'https://events.example/site/wp-json/calendar/events/v1');
    });
  },
  { SITE_URL: 'https://events.example/site/', API_PREFIX: '/wp-json' },
);

describeEachDatabase('Discovery: the interactive documentation', (h) => {
  it("moves {api}/docs to {api}/docs/, so the page's relative links resolve", async () => {
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
    assert.deepEqual(assets.sort(), [
      'favicon-16x16.png',
      'favicon-32x32.png',
      'index.css',
      'initializer.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
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
