import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';

const NO_ROUTE = {
  code: 'rest_no_route',
  message: 'No route was found matching the URL and request method.',
  data: { status: 404 },
};

describeEachDatabase('HTTP foundation', (h) => {
  const venue = async (name = 'Foundation Hall') =>
    (await h().request('POST', '/venues', { as: h().users.editor, body: { venue: name } })).json();

  it('answers unknown routes, non-digit ids and unsupported methods with rest_no_route', async () => {
    for (const [method, path] of [
      ['GET', '/nothing-here'],
      ['GET', '/venues/abc'],
      ['PUT', '/venues'],
      ['DELETE', '/venues'],
      ['GET', '/calendar/events/v2'],
    ]) {
      const response = await h().request(method, path);
      assert.equal(response.statusCode, 404, `${method} ${path}`);
      assert.deepEqual(response.json(), NO_ROUTE);
      assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
    }
  });

  it('sends the standard headers on every response', async () => {
    const response = await h().request('GET', '/venues');
    assert.equal(response.headers['content-type'], 'application/json; charset=UTF-8');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers.allow, 'GET');
    assert.equal(response.headers['cache-control'], undefined);
    const authenticated = await h().request('GET', '/venues', { as: h().users.editor });
    assert.equal(authenticated.headers.allow, 'GET, POST');
    assert.equal(authenticated.headers['cache-control'], 'no-cache, must-revalidate, max-age=0, no-store, private');
  });

  it('lists the methods of item routes in the reference order for those who may write', async () => {
    const { id } = await venue('Allow Hall');
    assert.equal((await h().request('GET', `/venues/${id}`)).headers.allow, 'GET');
    assert.equal(
      (await h().request('GET', `/venues/${id}`, { as: h().users.editor })).headers.allow,
      'GET, DELETE, POST, PUT, PATCH',
    );
  });

  it('serves HEAD on GET routes with the same headers and no body', async () => {
    const get = await h().request('GET', '/venues');
    const head = await h().request('HEAD', '/venues');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['x-tec-total'], get.headers['x-tec-total']);
    assert.equal(head.headers.allow, 'GET');
  });

  it('serves the collection with a trailing slash, as rest_url spells it', async () => {
    const response = await h().request('GET', '/venues/');
    assert.equal(response.statusCode, 200);
    assert.ok(Array.isArray(response.json().venues));
  });

  it('answers OPTIONS with Allow and the CORS headers (D12b)', async () => {
    const response = await h().request('OPTIONS', '/venues', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers.allow, 'GET');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.match(String(response.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(response.headers['access-control-allow-headers']), /Content-Type/);
    assert.match(String(response.headers['access-control-allow-methods']), /PATCH/);
    for (const header of [
      'X-TEC-Total',
      'X-TEC-TotalPages',
      'X-WP-Total',
      'X-WP-TotalPages',
      'Link',
      'Location',
      'Allow',
      'X-Truncated',
    ]) {
      assert.match(String(response.headers['access-control-expose-headers']), new RegExp(header));
    }
  });

  it('rejects invalid JSON before anything else', async () => {
    const response = await h().request('POST', '/venues', { as: h().users.editor, body: '{"venue": "x",' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), {
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400, json_error_code: 4, json_error_message: 'Syntax error' },
    });
  });

  it('rejects thousands of nesting levels without a crash', async () => {
    const deep = `{"venue":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const response = await h().request('POST', '/venues', { as: h().users.editor, body: deep });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().code, 'rest_invalid_json');
    assert.equal(response.json().data.json_error_message, 'Maximum stack depth exceeded');
  });

  it('rejects JSON bodies that are not objects', async () => {
    for (const body of ['[1,2]', '"venue"', '42', 'null']) {
      const response = await h().request('POST', '/venues', { as: h().users.editor, body });
      assert.equal(response.statusCode, 400, body);
      assert.equal(response.json().code, 'rest_invalid_json');
    }
  });

  it('reports missing parameters, then invalid ones, then type errors (§1.1)', async () => {
    const missing = await h().request('POST', '/venues', { as: h().users.editor, body: { city: 'Rome' } });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), {
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): venue',
      data: { status: 400, params: ['venue'] },
    });

    const invalid = await h().request('POST', '/venues', {
      as: h().users.editor,
      body: { venue: '', website: 'nope' },
    });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(invalid.json(), {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): venue, website',
      data: { status: 400, params: { venue: 'Invalid parameter.', website: 'Invalid parameter.' }, details: [] },
    });

    const { id } = await venue('Type Hall');
    const typed = await h().request('DELETE', `/venues/${id}`, { as: h().users.editor, query: { force: 'maybe' } });
    assert.equal(typed.statusCode, 400);
    assert.deepEqual(typed.json(), {
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): force',
      data: {
        status: 400,
        params: { force: 'force is not of type boolean.' },
        details: {
          force: { code: 'rest_invalid_type', message: 'force is not of type boolean.', data: { param: 'force' } },
        },
      },
    });
  });

  it('puts validation errors before permission errors (§1.1)', async () => {
    const anonymous = await h().request('DELETE', '/venues/987654');
    assert.equal(anonymous.statusCode, 400);
    assert.equal(anonymous.json().code, 'rest_invalid_param');
    const missing = await h().request('POST', '/venues', { body: {} });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().code, 'rest_missing_callback_param');
  });

  it('answers 401 to anonymous writers and 403 to users without the right', async () => {
    const anonymous = await h().request('POST', '/venues', { body: { venue: 'Nope' } });
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), {
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 401 },
    });
    const subscriber = await h().request('POST', '/venues', { as: h().users.subscriber, body: { venue: 'Nope' } });
    assert.equal(subscriber.statusCode, 403);
    assert.deepEqual(subscriber.json(), {
      code: 'rest_forbidden',
      message: 'Sorry, you are not allowed to do that.',
      data: { status: 403 },
    });
  });

  it('reads parameters from form bodies and the query string, lists as CSV or arrays (§1.2)', async () => {
    const form = await h().request('POST', '/venues', {
      as: h().users.editor,
      form: { venue: 'Form Hall', city: 'Turin' },
    });
    assert.equal(form.statusCode, 201);
    assert.equal(form.json().city, 'Turin');
    const query = await h().request('POST', '/venues', {
      as: h().users.editor,
      query: { venue: 'Query Hall', city: 'Milan' },
    });
    assert.equal(query.statusCode, 201);
    assert.equal(query.json().city, 'Milan');
    const bodyWins = await h().request('POST', '/venues?city=Query', {
      as: h().users.editor,
      body: { venue: 'Precedence Hall', city: 'Body' },
    });
    assert.equal(bodyWins.json().city, 'Body');
    for (const status of ['publish, draft', ['publish', 'draft']]) {
      const response = await h().request('GET', '/venues', { as: h().users.editor, query: { status } });
      assert.equal(response.statusCode, 200);
      assert.match(response.json().rest_url, /status=publish%2Cdraft/);
    }
  });

  it('treats arrays, objects and __proto__ keys where scalars are expected as invalid input, never a crash', async () => {
    for (const body of [{ venue: ['a', 'b'] }, { venue: { name: 'x' } }, { venue: 'Ok', city: { nested: true } }]) {
      const response = await h().request('POST', '/venues', { as: h().users.editor, body });
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(response.json().code, 'rest_invalid_param');
    }
    const proto = await h().request('POST', '/venues', {
      as: h().users.editor,
      body: '{"venue":"Proto Hall","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    });
    assert.equal(proto.statusCode, 201);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const query = await h().request('GET', '/venues?__proto__[polluted]=1&page[0]=1');
    assert.equal(query.statusCode, 400);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers malformed URLs, bad escapes and over-long values in the error shape', async () => {
    const badEscape = await h().app.inject({ method: 'GET', url: `${h().api}/venues/by-slug/%E0%A4%A` });
    assert.ok([400, 404].includes(badEscape.statusCode));
    assert.ok(['rest_invalid_url', 'rest_no_route', 'rest_invalid_param'].includes(badEscape.json().code));
    const badQuery = await h().app.inject({ method: 'GET', url: `${h().api}/venues?search=%zz` });
    assert.equal(badQuery.statusCode, 200);
    const longSearch = await h().request('GET', '/venues', { query: { search: 'x'.repeat(5000) } });
    assert.equal(longSearch.statusCode, 400);
    assert.equal(longSearch.json().code, 'rest_invalid_param');
    const longSlug = await h().request('GET', `/venues/by-slug/${'s'.repeat(3000)}`);
    assert.equal(longSlug.statusCode, 414);
    assert.equal(longSlug.json().code, 'rest_uri_too_long');
  });

  it('never matches an empty or whitespace slug', async () => {
    await venue('Blank Hall');
    for (const slug of ['%20', '%20%20', '%09']) {
      const response = await h().app.inject({ method: 'GET', url: `${h().api}/venues/by-slug/${slug}` });
      assert.equal(response.statusCode, 400, slug);
      assert.equal(response.json().code, 'rest_invalid_param');
    }
  });

  it('answers an over-large body with 413 and an unsupported content type with 415', async () => {
    const large = await h().request('POST', '/venues', {
      as: h().users.editor,
      body: { venue: 'Big', description: 'x'.repeat(2 * 1024 * 1024) },
    });
    assert.equal(large.statusCode, 413);
    assert.equal(large.json().code, 'rest_request_too_large');
    assert.equal(large.json().data.status, 413);
    const xml = await h().request('POST', '/venues', {
      as: h().users.editor,
      body: '<venue/>',
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(xml.statusCode, 415);
    assert.equal(xml.json().code, 'rest_unsupported_media_type');
  });

  it('reports the health of the database outside the namespace', async () => {
    const response = await h().request('GET', '/health');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
  });
});

describeEachDatabase(
  'CORS with an origin list',
  (h) => {
    it('echoes a listed origin and leaves others without the allow header', async () => {
      const listed = await h().request('GET', '/venues', { headers: { origin: 'https://app.example' } });
      assert.equal(listed.headers['access-control-allow-origin'], 'https://app.example');
      assert.match(String(listed.headers.vary), /Origin/);
      const other = await h().request('GET', '/venues', { headers: { origin: 'https://evil.example' } });
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });
  },
  { CORS_ORIGINS: 'https://app.example' },
);
