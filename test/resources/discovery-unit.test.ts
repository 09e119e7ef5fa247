// The pure parts of discovery and of the response checks: path and name conversions, argument descriptions,
// component references, which schema a response must match, and the check itself on a real Fastify instance.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { DateTime } from 'luxon';
import Type from 'typebox';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { arg, documentedObject, documentedSchema } from '../../src/core/input/args.ts';
import { DATE_INPUT } from '../../src/core/input/documented-inputs.ts';
import { parseDateInput } from '../../src/domain/dates/input-grammar.ts';
import type { RequestContext } from '../../src/http/context.ts';
import { expectedResponse, installResponseValidation, schemaProblems } from '../../src/http/response-validation.ts';
import { endpoint, type RouteGroup } from '../../src/http/routes.ts';
import { closedObject, component, ErrorSchema } from '../../src/http/schemas.ts';
import { describeArg, isLiteralPattern } from '../../src/api/discovery/namespace-index.ts';
import { ComponentCollector, openApiPath, operationId, tagOf } from '../../src/api/discovery/openapi.ts';

const contextAt = (iso: string) =>
  ({ config: loadConfig({}), now: DateTime.fromISO(iso, { zone: 'utc' }) }) as unknown as RequestContext;

describe('OpenAPI paths and names', () => {
  it('turns router paths into OpenAPI templates, the namespace root into /', () => {
    assert.equal(openApiPath(''), '/');
    assert.equal(openApiPath('/doc'), '/doc');
    assert.equal(openApiPath('/venues/:id(^\\d+$)'), '/venues/{id}');
    assert.equal(openApiPath('/events/by-slug/:slug'), '/events/by-slug/{slug}');
  });

  it('names operations after the method and the path, without repeating a by-<name> parameter', () => {
    assert.equal(operationId('GET', '/'), 'getIndex');
    assert.equal(operationId('GET', '/doc'), 'getDoc');
    assert.equal(operationId('POST', '/venues'), 'postVenues');
    assert.equal(operationId('PATCH', '/venues/{id}'), 'patchVenuesById');
    assert.equal(operationId('DELETE', '/events/by-slug/{slug}'), 'deleteEventsBySlug');
  });

  it('tags operations by their first segment, the root and /doc as discovery', () => {
    assert.equal(tagOf(''), 'discovery');
    assert.equal(tagOf('/doc'), 'discovery');
    assert.equal(tagOf('/categories/:id(^\\d+$)'), 'categories');
  });

  it('tells literal route keys from regular expressions', () => {
    assert.equal(isLiteralPattern('/venues'), true);
    assert.equal(isLiteralPattern(''), true);
    assert.equal(isLiteralPattern('/venues/(?P<id>\\d+)'), false);
    assert.equal(isLiteralPattern('/venues/by-slug/(?P<slug>[^/]+)'), false);
  });
});

describe('argument descriptions (§13)', () => {
  it('prints the default first and required last, with the schema keywords between', () => {
    const page = arg.integer({ description: 'Page.', default: 1 });
    assert.deepEqual(Object.entries(describeArg(page, contextAt('2026-01-01T00:00:00Z'))), [
      ['default', 1],
      ['description', 'Page.'],
      ['type', 'integer'],
      ['required', false],
    ]);
    const list = arg.integerList({ description: 'Ids.', required: true });
    assert.deepEqual(describeArg(list, contextAt('2026-01-01T00:00:00Z')), {
      description: 'Ids.',
      type: 'array',
      items: { type: 'integer' },
      required: true,
    });
    const free = arg.any({ description: 'Anything.' });
    assert.deepEqual(describeArg(free, contextAt('2026-01-01T00:00:00Z')), {
      description: 'Anything.',
      required: false,
    });
  });

  it('computes a clock-dependent default at the time of the request', () => {
    const since = arg.string({
      description: 'Since.',
      documentedDefault: (ctx) => ctx.now.minus({ days: 1 }).toFormat('yyyy-MM-dd HH:mm:ss'),
    });
    assert.equal(describeArg(since, contextAt('2026-03-10T12:00:00Z')).default, '2026-03-09 12:00:00');
    assert.equal(describeArg(since, contextAt('2027-01-01T00:30:00Z')).default, '2026-12-31 00:30:00');
  });
});

describe('the OpenAPI-only schema of an argument (Arg.openapi)', () => {
  const Named = component('Named', Type.Unsafe({ oneOf: [{ type: 'string' }, { type: 'integer' }] }));

  it("stays out of the discovery index, which shows the argument's own schema", () => {
    const date = arg.any({ description: 'When.', format: 'date-time', openapi: Named });
    assert.deepEqual(describeArg(date, contextAt('2026-01-01T00:00:00Z')), {
      description: 'When.',
      format: 'date-time',
      required: false,
    });
  });

  it("documents what is accepted, with the index's description and default; a named schema by reference", () => {
    const plain = arg.any({
      description: 'Plain.',
      openapi: Type.Unsafe({ oneOf: [{ type: 'boolean' }, { type: 'string' }] }),
    });
    assert.deepEqual(documentedSchema(plain), {
      oneOf: [{ type: 'boolean' }, { type: 'string' }],
      description: 'Plain.',
    });
    const named = arg.truthy({ description: 'Named.', default: false, openapi: Named });
    const collector = new ComponentCollector();
    assert.deepEqual(collector.convert(documentedSchema(named)), {
      description: 'Named.',
      default: false,
      allOf: [{ $ref: '#/components/schemas/Named' }],
    });
    assert.deepEqual(Object.keys(collector.schemas), ['Named']);
    assert.equal(documentedSchema(arg.any({ description: 'Refused.', openapi: false })), false);
    const page = arg.integer({ description: 'Page.', default: 1 });
    assert.equal(documentedSchema(page), page.schema);
  });

  it('reads a truthy argument as a boolean, a string or a number', () => {
    const flag = arg.truthy({ description: 'Flag.' });
    assert.deepEqual(
      (documentedSchema(flag) as { oneOf: Array<{ type: string }> }).oneOf.map((branch) => branch.type),
      ['boolean', 'string', 'number'],
    );
    assert.equal((flag.schema as { type?: string }).type, 'string', 'the index still says string');
  });

  it('builds an object of arguments, required ones listed', () => {
    const object = documentedObject(
      {
        name: arg.string({ description: 'Name.', required: true }),
        when: arg.any({ description: 'When.', openapi: Named }),
      },
      { description: 'A thing.' },
    );
    assert.deepEqual(new ComponentCollector().convert(object), {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Name.' },
        when: { description: 'When.', allOf: [{ $ref: '#/components/schemas/Named' }] },
      },
      required: ['name'],
      description: 'A thing.',
    });
  });

  it('gives only examples of dates that the service reads', () => {
    const now = DateTime.fromISO('2026-03-01T10:00:00Z', { zone: 'utc' });
    const [text, timestamp] = (DATE_INPUT as unknown as { oneOf: Array<{ examples?: string[]; type: string }> }).oneOf;
    assert.deepEqual([text.type, timestamp.type], ['string', 'integer']);
    assert.ok(text.examples!.length >= 5);
    for (const example of text.examples!) assert.ok(parseDateInput(example, 'Europe/Rome', now), example);
  });
});

describe('components', () => {
  const Inner = component('Inner', closedObject({ a: Type.String() }));
  const Outer = component(
    'Outer',
    closedObject({ inner: Inner, maybe: Type.Optional(Inner), many: Type.Array(Inner) }),
  );

  it('replaces every nested component, optional copies included, by a $ref and defines it once', () => {
    const collector = new ComponentCollector();
    assert.deepEqual(collector.convert(Type.Union([Outer, Type.Null()])), {
      anyOf: [{ $ref: '#/components/schemas/Outer' }, { type: 'null' }],
    });
    assert.deepEqual(Object.keys(collector.schemas), ['Inner', 'Outer']);
    const outer = collector.schemas.Outer as { properties: Record<string, unknown>; required: string[] };
    assert.deepEqual(outer.properties, {
      inner: { $ref: '#/components/schemas/Inner' },
      maybe: { $ref: '#/components/schemas/Inner' },
      many: { type: 'array', items: { $ref: '#/components/schemas/Inner' } },
    });
    assert.deepEqual(outer.required, ['inner', 'many']);
  });

  it('refuses two different schemas under one name', () => {
    const collector = new ComponentCollector();
    collector.convert(Inner);
    assert.throws(() => collector.convert(component('Inner', closedObject({ b: Type.Integer() }))), /both named Inner/);
  });
});

describe('which schema a response must match', () => {
  const Item = closedObject({ id: Type.Integer() });
  const described = endpoint({
    methods: ['GET'],
    summary: 's',
    args: {},
    responses: { 200: { description: 'ok', schema: Item }, 404: { description: 'missing' } },
    handler: async () => ({ body: {} }),
  });
  const undescribed = endpoint({
    methods: ['GET'],
    summary: 's',
    args: {},
    responses: { 200: { description: 'ok' } },
    handler: async () => ({ body: {} }),
  });

  it('checks every error against the envelope, documented or not, on any route or none', () => {
    assert.deepEqual(expectedResponse(described, 404), { schema: ErrorSchema });
    assert.deepEqual(expectedResponse(described, 500), { schema: ErrorSchema });
    assert.deepEqual(expectedResponse(undefined, 404), { schema: ErrorSchema });
  });

  it('checks successes only on endpoints that describe them, and calls an undocumented status drift', () => {
    assert.deepEqual(expectedResponse(described, 200), { schema: Item });
    assert.deepEqual(expectedResponse(described, 201), { undocumented: true });
    assert.equal(expectedResponse(undescribed, 200), undefined);
    assert.equal(expectedResponse(undefined, 200), undefined);
  });

  it('reports where a value breaks its schema', () => {
    assert.deepEqual(schemaProblems(Item, { id: 3 }), []);
    assert.ok(schemaProblems(Item, { id: '3', extra: true }).some((problem) => problem.startsWith('/id:')));
    assert.ok(schemaProblems(ErrorSchema, { code: 'x', message: 'y' }).length > 0);
  });
});

describe('VALIDATE_RESPONSES', () => {
  it('is off by default, reads 1/0 and true/false, and refuses anything else', () => {
    assert.equal(loadConfig({}).validateResponses, false);
    assert.equal(loadConfig({ VALIDATE_RESPONSES: '1' }).validateResponses, true);
    assert.equal(loadConfig({ VALIDATE_RESPONSES: 'false' }).validateResponses, false);
    assert.throws(
      () => loadConfig({ VALIDATE_RESPONSES: 'sometimes' }),
      (error) => error instanceof ConfigError && error.variable === 'VALIDATE_RESPONSES',
    );
  });

  it('answers 500 rest_response_invalid, and logs, when a response drifts from its schema', async () => {
    const logged: unknown[] = [];
    const app = Fastify({
      logger: { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line)) } },
    });
    const Item = closedObject({ id: Type.Integer() });
    const group = (body: unknown, status = 200): RouteGroup => ({
      path: '',
      pattern: '',
      endpoints: [
        endpoint({
          methods: ['GET'],
          summary: 's',
          args: {},
          responses: { 200: { description: 'ok', schema: Item } },
          handler: async () => ({ status, body }),
        }),
      ],
    });
    installResponseValidation(app);
    const routes: Array<[string, RouteGroup, unknown, number]> = [
      ['/fits', group({ id: 1 }), { id: 1 }, 200],
      ['/drifts', group({ id: 1, secret: 'x' }), { id: 1, secret: 'x' }, 200],
      ['/undocumented', group({ id: 1 }, 202), { id: 1 }, 202],
      ['/bad-error', group({ id: 1 }, 400), { oops: true }, 400],
    ];
    for (const [url, routeGroup, body, status] of routes) {
      app.get(url, { config: { group: routeGroup } }, async (_request, reply) =>
        reply.code(status).type('application/json; charset=UTF-8').send(JSON.stringify(body)),
      );
    }
    await app.ready();
    try {
      const fits = await app.inject({ method: 'GET', url: '/fits' });
      assert.equal(fits.statusCode, 200);
      assert.deepEqual(fits.json(), { id: 1 });

      for (const url of ['/drifts', '/undocumented', '/bad-error']) {
        const response = await app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 500, url);
        assert.equal(response.json().code, 'rest_response_invalid');
        assert.equal(response.json().data.status, 500);
        assert.ok(response.json().data.problems.length > 0);
      }
      assert.match(
        (await app.inject({ method: 'GET', url: '/drifts' })).json().data.problems.join('\n'),
        /additional properties/,
      );
      assert.match(
        (await app.inject({ method: 'GET', url: '/undocumented' })).json().data.problems[0],
        /status 202 is not among the documented responses/,
      );
      assert.ok(
        logged.some((entry) => (entry as { msg?: string }).msg === 'response does not match its documented schema'),
      );
    } finally {
      await app.close();
    }
  });
});
