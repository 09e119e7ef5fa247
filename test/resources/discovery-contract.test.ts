// The document cannot drift from the code: every route of the route table is called at least once, and every
// response is validated against the schema the published OpenAPI document gives for its path, method and status,
// by an independent validator (Ajv, JSON Schema 2020-12). The service checks the same with VALIDATE_RESPONSES=1.
// Every JSON body the service accepts is validated against the operation's request schema too: a client generated
// from the document can send it.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describeEachDatabase, type Credentials, type InjectOptions } from '../helpers/harness.ts';

type Json = Record<string, any>;

describeEachDatabase('Discovery: every route answers as the OpenAPI document says', (h) => {
  let doc: Json;
  let templates: Array<[string, RegExp]>;
  const validators = new Map<string, ValidateFunction>();
  /** `METHOD template` → the statuses seen. */
  const seen = new Map<string, Set<number>>();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  before(async () => {
    doc = (await h().request('GET', '/doc')).json();
    templates = Object.keys(doc.paths).map((template) => {
      const pattern = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      return [template, new RegExp(`^${pattern}/?$`)];
    });
  });

  const has = (template: string) => doc.paths[template] !== undefined;

  /** A validator for a schema of the document (its components resolved), compiled once under `key`. */
  const validatorFor = (key: string, schema: Json): ValidateFunction => {
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: doc.components });
      validators.set(key, validate);
    }
    return validate;
  };

  /** Calls the API, checks the status, then validates the body against the document. */
  async function call(method: string, path: string, status: number, options: InjectOptions = {}): Promise<Json> {
    const response = await h().request(method, path, options);
    assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`);
    const local = path === h().api ? '/' : path.startsWith(h().api) ? path.slice(h().api.length) : path;
    // The most specific template wins (`/events/{id}.ics` before `/events/{id}`).
    const match = templates.filter(([, pattern]) => pattern.test(local)).sort(([a], [b]) => b.length - a.length)[0];
    assert.ok(match, `${path} is a documented path`);
    const [template] = match;
    const operation = doc.paths[template][method.toLowerCase()];
    assert.ok(operation, `${method} ${template} is documented`);
    const requestSchema = operation.requestBody?.content['application/json']?.schema;
    if (status < 400 && requestSchema && options.body !== undefined) {
      const validate = validatorFor(`${method} ${template} request`, requestSchema);
      assert.ok(
        validate(options.body),
        `${method} ${template} accepted a body its request schema refuses: ${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(options.body, null, 2)}`,
      );
    }
    const documented = operation.responses[String(status)];
    if (status < 400) assert.ok(documented, `${method} ${template} documents ${status}`);
    const content = (documented ?? operation.responses.default).content ?? {};
    const type = String(response.headers['content-type'] ?? '').split(';')[0];
    if (status < 400 && type !== 'application/json') {
      // D26 and other non-JSON answers: the documented media type is the one sent.
      assert.ok(content[type], `${method} ${template} documents ${type} for ${status}`);
      const operationKey = `${method.toUpperCase()} ${template}`;
      if (!seen.has(operationKey)) seen.set(operationKey, new Set());
      seen.get(operationKey)!.add(status);
      return { text: response.body };
    }
    const schema = content['application/json']?.schema;
    const body = response.json();
    if (schema) {
      const key = `${method} ${template} ${status}`;
      const validate = validatorFor(key, schema);
      assert.ok(
        validate(body),
        `${key}: ${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body, null, 2)}`,
      );
    }
    const operationKey = `${method.toUpperCase()} ${template}`;
    if (!seen.has(operationKey)) seen.set(operationKey, new Set());
    seen.get(operationKey)!.add(status);
    return body;
  }

  const admin = () => h().users.administrator;
  const anyone: Credentials | null = null;

  it('the discovery routes', async () => {
    await call('GET', h().api, 200);
    await call('GET', '/doc', 200);
  });

  for (const [collection, nameKey] of [
    ['venues', 'venue'],
    ['organizers', 'organizer'],
  ] as const) {
    it(`the ${collection} routes`, async () => {
      const item = await call('POST', `/${collection}`, 201, {
        as: admin(),
        body: {
          [nameKey]: `Contract ${nameKey}`,
          description: 'A <b>bold</b> one',
          phone: '555',
          image: 'https://img.example/a.png',
        },
      });
      await call('GET', `/${collection}`, 200);
      await call('GET', `/${collection}`, 200, { as: admin(), query: { status: 'any', search: 'contract' } });
      await call('GET', `/${collection}/${item.id}`, 200);
      await call('GET', `/${collection}/by-slug/${item.slug}`, 200);
      for (const method of ['POST', 'PUT', 'PATCH']) {
        await call(method, `/${collection}/${item.id}`, 200, { as: admin(), body: { phone: `${method}-1` } });
        await call(method, `/${collection}/by-slug/${item.slug}`, 200, { as: admin(), form: { phone: `${method}-2` } });
      }
      await call('DELETE', `/${collection}/${item.id}`, 200, { as: admin() });
      await call('DELETE', `/${collection}/${item.id}`, 410, { as: admin() });
      const other = await call('POST', `/${collection}`, 201, {
        as: admin(),
        body: { [nameKey]: `Contract ${nameKey} two` },
      });
      await call('DELETE', `/${collection}/by-slug/${other.slug}`, 200, { as: admin(), query: { force: 'true' } });
      await call('GET', `/${collection}/999999`, 400);
      await call('GET', `/${collection}`, 404, { query: { page: 99 } });
      await call('POST', `/${collection}`, 401, { as: anyone, body: { [nameKey]: 'Nobody' } });
      await call('POST', `/${collection}`, 403, { as: h().users.subscriber, body: { [nameKey]: 'Nobody' } });
    });
  }

  for (const [collection, label] of [
    ['categories', 'Category'],
    ['tags', 'Tag'],
  ] as const) {
    it(`the ${collection} routes`, async () => {
      assert.ok(has(`/${collection}`), `the document describes /${collection}`);
      const term = await call('POST', `/${collection}`, 201, {
        as: admin(),
        body: { name: `Contract ${label}`, description: 'Described' },
      });
      if (collection === 'categories') {
        await call('POST', '/categories', 201, { as: admin(), body: { name: 'Contract Child', parent: term.id } });
      }
      await call('GET', `/${collection}`, 200, { query: { hide_empty: 'false' } });
      await call('GET', `/${collection}/${term.id}`, 200);
      for (const method of ['POST', 'PUT', 'PATCH']) {
        await call(method, `/${collection}/${term.id}`, 200, {
          as: admin(),
          body: { description: `${method} description` },
        });
      }
      await call('DELETE', `/${collection}/${term.id}`, 200, { as: admin() });
      await call('GET', `/${collection}/${term.id}`, 400);
    });
  }

  it('the events routes', async () => {
    assert.ok(has('/events'), 'the document describes /events');
    const venue = await call('POST', '/venues', 201, {
      as: admin(),
      body: { venue: 'Contract Event Hall', city: 'Rome', geo_lat: 41.9, geo_lng: 12.5 },
    });
    const organizer = await call('POST', '/organizers', 201, {
      as: admin(),
      body: { organizer: 'Contract Event Org', email: 'org@example.com' },
    });
    const fields = {
      start_date: '2030-03-10 09:00:00',
      end_date: '2030-03-10 17:00:00',
      timezone: 'Europe/Rome',
      cost: ['0$', '20$'],
      website: 'https://example.com/contract',
      venue: { id: venue.id },
      organizer: [{ id: organizer.id }],
      categories: ['Contract Event Category'],
      tags: 'contract-event-tag',
      image: 'https://img.example/event.jpg',
      featured: true,
    };
    const event = await call('POST', '/events', 201, {
      as: admin(),
      body: { title: 'Contract Event', description: 'Hello', ...fields },
    });
    const window = { start_date: '2030-01-01', end_date: '2030-12-31' };
    await call('GET', '/events', 200, { query: window });
    await call('GET', `/events/${event.id}`, 200);
    await call('GET', `/events/by-slug/${event.slug}`, 200);
    for (const method of ['POST', 'PUT', 'PATCH']) {
      await call(method, `/events/${event.id}`, 200, { as: admin(), body: { excerpt: `${method} excerpt` } });
      await call(method, `/events/by-slug/${event.slug}`, 200, {
        as: admin(),
        body: { title: `Contract Event ${method}` },
      });
    }
    const secret = await call('POST', '/events', 201, {
      as: admin(),
      body: { title: 'Contract Secret', password: 'open sesame', ...fields },
    });
    await call('GET', '/events', 200, { query: { ...window, include: String(secret.id) } });
    await call('GET', `/events/${secret.id}`, 403);
    await call('GET', `/events/${secret.id}`, 200, { query: { password: 'open sesame' } });
    await call('DELETE', `/events/${event.id}`, 200, { as: admin() });
    await call('DELETE', `/events/${event.id}`, 410, { as: admin() });
    await call('DELETE', `/events/by-slug/${secret.slug}`, 200, { as: admin(), query: { force: 'true' } });
    await call('GET', '/events/999999', 404);
    await call('POST', '/events', 400, { as: admin(), body: { start_date: '2030-03-10', end_date: '2030-03-10' } });
  });

  it('the iCalendar routes (D26)', async () => {
    assert.ok(has('/events.ics') && has('/events/{id}.ics'), 'the document describes the feeds');
    const event = await call('POST', '/events', 201, {
      as: admin(),
      body: { title: 'Contract feed', status: 'publish', start_date: '2030-04-01 10:00', end_date: '2030-04-01 11:00' },
    });
    assert.match(
      (await call('GET', '/events.ics', 200, { query: { start_date: '2030-01-01' } })).text,
      /^BEGIN:VCALENDAR/,
    );
    assert.match((await call('GET', `/events/${event.id}.ics`, 200)).text, /SUMMARY:Contract feed/);
    await call('GET', '/events.ics', 400, { query: { geoloc_lat: 1 } });
    await call('GET', '/events/999999.ics', 404);
    await call('DELETE', `/events/${event.id}`, 200, { as: admin() });
    await call('GET', `/events/${event.id}.ics`, 403);
  });

  it("FullCalendar's JSON event source", async () => {
    assert.ok(has('/events/fullcalendar'), 'the document describes the source');
    const event = await call('POST', '/events', 201, {
      as: admin(),
      body: {
        title: 'Contract calendar',
        status: 'publish',
        all_day: true,
        start_date: '2030-04-02',
        end_date: '2030-04-02',
      },
    });
    const range = { start: '2030-04-01T00:00:00-07:00', end: '2030-04-08T00:00:00-07:00' };
    const events = await call('GET', '/events/fullcalendar', 200, { query: range });
    assert.ok(events.some((item: Json) => item.id === event.id && item.allDay === true));
    await call('GET', '/events/fullcalendar', 200, { query: { ...range, timeZone: 'America/Los_Angeles' } });
    await call('GET', '/events/fullcalendar', 400, { query: { start: range.end, end: range.start } });
  });

  it('the changes route (D24)', async () => {
    assert.ok(has('/changes'), 'the document describes /changes');
    const listed = await h().request('GET', '/venues');
    const since = String(listed.headers['x-sync-cursor']);
    const venue = await call('POST', '/venues', 201, { as: admin(), body: { venue: 'Contract sync hall' } });
    const event = await call('POST', '/events', 201, {
      as: admin(),
      body: {
        title: 'Contract sync',
        start_date: '2030-05-01 10:00',
        end_date: '2030-05-01 11:00',
        venue: venue.id,
        categories: ['Contract sync category'],
        tags: ['contract-sync-tag'],
        organizer: { organizer: 'Contract sync host' },
      },
    });
    const secret = await call('POST', '/events', 201, {
      as: admin(),
      body: {
        title: 'Contract sync secret',
        password: 'x',
        start_date: '2030-05-01 10:00',
        end_date: '2030-05-01 11:00',
      },
    });
    await call('DELETE', `/events/${event.id}`, 200, { as: admin() });
    const page = await call('GET', '/changes', 200, { query: { since } });
    assert.deepEqual(
      new Set(page.changes.map((entry: Json) => entry.type)),
      new Set(['event', 'venue', 'organizer', 'category', 'tag']),
    );
    assert.ok(page.changes.some((entry: Json) => entry.id === secret.id && entry.action === 'upsert'));
    assert.ok(page.changes.some((entry: Json) => entry.id === event.id && entry.action === 'remove'));
    await call('GET', '/changes', 200, { as: admin(), query: { since, per_page: 2 } });
    await call('GET', '/changes', 200);
    await call('GET', '/changes', 410, { query: { since: 'not-a-cursor' } });
    await call('GET', '/changes', 400, { query: { per_page: 0 } });
  });

  it('the webhooks routes (D27)', async () => {
    assert.ok(has('/webhooks'), 'the document describes /webhooks');
    const hook = await call('POST', '/webhooks', 201, {
      as: admin(),
      body: { url: 'https://93.184.215.14/hook', events: ['event.created', '*'], description: 'Contract' },
    });
    await call('GET', '/webhooks', 200, { as: admin() });
    await call('GET', `/webhooks/${hook.id}`, 200, { as: admin() });
    await call('PATCH', `/webhooks/${hook.id}`, 200, { as: admin(), body: { active: false } });
    await call('GET', `/webhooks/${hook.id}/deliveries`, 200, { as: admin() });
    await call('POST', '/webhooks', 400, { as: admin(), body: { url: 'http://127.0.0.1/hook', events: ['*'] } });
    await call('GET', '/webhooks', 401, { as: anyone });
    await call('GET', '/webhooks', 403, { as: h().users.editor });
    await call('DELETE', `/webhooks/${hook.id}`, 200, { as: admin() });
    await call('GET', `/webhooks/${hook.id}`, 404, { as: admin() });
  });

  it('has called every documented operation, with success, at least once', () => {
    const missing: string[] = [];
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      for (const method of Object.keys(item)) {
        const statuses = [...(seen.get(`${method.toUpperCase()} ${template}`) ?? [])];
        if (!statuses.some((status) => status < 400)) missing.push(`${method.toUpperCase()} ${template}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
