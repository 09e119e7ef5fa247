// D27 subscription routes: administrators only, the secret shown once, bad input 400 naming the field.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';

describeEachDatabase('Webhooks: subscription routes', (h) => {
  const admin = () => h().users.administrator;

  it('administrators create, read, list, change and delete subscriptions; the secret is answered once', async () => {
    const created = await h().request('POST', '/webhooks', {
      as: admin(),
      body: { url: 'https://93.184.215.14/hook', events: ['event.created', 'venue.deleted'], description: 'CRM' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(body.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(
      { url: body.url, events: body.events, active: body.active, description: body.description },
      {
        url: 'https://93.184.215.14/hook',
        events: ['event.created', 'venue.deleted'],
        active: true,
        description: 'CRM',
      },
    );
    assert.equal(created.headers.location, `${h().config.apiRoot}/webhooks/${body.id}`);

    const read = await h().request('GET', `/webhooks/${body.id}`, { as: admin() });
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().secret, undefined);
    assert.ok(!read.body.includes(body.secret));
    const listed = await h().request('GET', '/webhooks', { as: admin() });
    assert.equal(listed.statusCode, 200);
    assert.ok(listed.json().some((entry: { id: number }) => entry.id === body.id));
    assert.ok(!listed.body.includes(body.secret));

    const changed = await h().request('PATCH', `/webhooks/${body.id}`, {
      as: admin(),
      body: { events: '*', active: false },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().events, ['*']);
    assert.equal(changed.json().active, false);

    const deliveries = await h().request('GET', `/webhooks/${body.id}/deliveries`, { as: admin() });
    assert.equal(deliveries.statusCode, 200);
    assert.deepEqual(deliveries.json(), []);

    const removed = await h().request('DELETE', `/webhooks/${body.id}`, { as: admin() });
    assert.equal(removed.statusCode, 200);
    assert.equal(removed.json().deleted, true);
    assert.equal((await h().request('GET', `/webhooks/${body.id}`, { as: admin() })).statusCode, 404);
    assert.equal((await h().request('DELETE', `/webhooks/${body.id}`, { as: admin() })).statusCode, 404);
  });

  it('bad input is 400 rest_invalid_param naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://93.184.215.14/', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'http://127.0.0.1:9/hook', events: ['*'] }, 'url'],
      [{ url: 'http://localhost/hook', events: ['*'] }, 'url'],
      [{ url: 'http://10.0.0.8/hook', events: ['*'] }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data/', events: ['*'] }, 'url'],
      [{ url: 'http://[::1]/hook', events: ['*'] }, 'url'],
      // IPv6 forms that carry a loopback or private IPv4 address.
      [{ url: 'http://[::127.0.0.1]/', events: ['*'] }, 'url'],
      [{ url: 'http://[::ffff:10.0.0.8]/', events: ['*'] }, 'url'],
      [{ url: 'http://[64:ff9b::a9fe:a9fe]/', events: ['*'] }, 'url'],
      [{ url: 'http://[64:ff9b:1::7f00:1]/', events: ['*'] }, 'url'],
      [{ url: 'http://[2002:7f00:1::]/', events: ['*'] }, 'url'],
      [{ url: 'http://[2001::7f00:1]/', events: ['*'] }, 'url'],
      [{ url: 'https://93.184.215.14/hook', events: ['event.exploded'] }, 'events'],
      [{ url: 'https://93.184.215.14/hook', events: [] }, 'events'],
    ];
    for (const [body, field] of cases) {
      const response = await h().request('POST', '/webhooks', { as: admin(), body });
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(response.json().code, 'rest_invalid_param');
      assert.ok(field in response.json().data.params, `${JSON.stringify(body)} names ${field}: ${response.body}`);
    }
    const missing = await h().request('POST', '/webhooks', {
      as: admin(),
      body: { url: 'https://93.184.215.14/hook' },
    });
    assert.equal(missing.statusCode, 400);
    const created = (
      await h().request('POST', '/webhooks', {
        as: admin(),
        body: { url: 'https://93.184.215.14/hook', events: ['*'] },
      })
    ).json();
    const patched = await h().request('PATCH', `/webhooks/${created.id}`, {
      as: admin(),
      body: { url: 'http://192.168.0.1/' },
    });
    assert.equal(patched.statusCode, 400);
    assert.ok('url' in patched.json().data.params);
    await h().request('DELETE', `/webhooks/${created.id}`, { as: admin() });
  });

  it('accepts IPv6 transition addresses that carry a public IPv4 address', async () => {
    for (const url of [
      'http://[2002:808:808::]/hook',
      'http://[64:ff9b::808:808]/hook',
      'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook',
    ]) {
      const created = await h().request('POST', '/webhooks', { as: admin(), body: { url, events: ['*'] } });
      assert.equal(created.statusCode, 201, `${url}: ${created.body}`);
      await h().request('DELETE', `/webhooks/${created.json().id}`, { as: admin() });
    }
  });

  it('everyone but administrators: 401 anonymous, 403 otherwise', async () => {
    const created = (
      await h().request('POST', '/webhooks', {
        as: admin(),
        body: { url: 'https://93.184.215.14/hook', events: ['*'] },
      })
    ).json();
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/webhooks', undefined],
      ['POST', '/webhooks', { url: 'https://93.184.215.14/hook', events: ['*'] }],
      ['GET', `/webhooks/${created.id}`, undefined],
      ['PATCH', `/webhooks/${created.id}`, { active: false }],
      ['DELETE', `/webhooks/${created.id}`, undefined],
      ['GET', `/webhooks/${created.id}/deliveries`, undefined],
    ];
    for (const [method, path, body] of calls) {
      assert.equal((await h().request(method, path, { body })).statusCode, 401, `${method} ${path} anonymous`);
      for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) {
        assert.equal(
          (await h().request(method, path, { as: h().users[role], body })).statusCode,
          403,
          `${method} ${path} ${role}`,
        );
      }
    }
    assert.equal((await h().request('GET', `/webhooks/${created.id}`, { as: admin() })).json().active, true);
    await h().request('DELETE', `/webhooks/${created.id}`, { as: admin() });
  });

  it('is in the discovery index and the OpenAPI document', async () => {
    const index = (await h().request('GET', '/')).json();
    assert.ok(
      index.routes['/calendar/events/v1/webhooks'] ??
        Object.keys(index.routes).some((key: string) => key.endsWith('/webhooks')),
    );
    const doc = (await h().request('GET', '/doc')).json();
    for (const path of ['/webhooks', '/webhooks/{id}', '/webhooks/{id}/deliveries']) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/webhooks'].post.responses['201'].content['application/json'].schema);
  });
});
