// D23: Idempotency-Key on the POST creates, on both databases through one service (the two-process races are in
// idempotency-processes.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, isValidIdempotencyKey, requestFingerprint } from '../../src/core/idempotency/request.ts';
import { CLAIM_LEASE_MS, IdempotencyKeys, KEY_RETENTION_MS } from '../../src/core/idempotency/store.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { itemsNamed, KINDS, newKey, newName } from './idempotency-support.ts';
import { rowCount } from '../helpers/queries.ts';

const changeCount = (h: Harness) => rowCount(h.store, 'changes');

function post(
  h: Harness,
  collection: string,
  body: unknown,
  key: string | null,
  as: Credentials | null = h.users.administrator,
  query?: Record<string, string>,
) {
  return h.request('POST', `/${collection}`, {
    as,
    body,
    ...(query ? { query } : {}),
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

const keyRow = (h: Harness, key: string) =>
  h.store.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();

describe('Idempotency-Key grammar and request fingerprints (D23)', () => {
  it('accepts 1 to 255 visible ASCII characters and nothing else', () => {
    for (const good of ['a', '!', '~', 'x'.repeat(255), '8e0f3c4a-5a4e-4c1e-9d1f-0e6a2b9a7c11', 'a:b/c?d=e&f"g'])
      assert.equal(isValidIdempotencyKey(good), true, good);
    for (const bad of [
      '',
      ' ',
      'a b',
      'a\tb',
      'a\u0001b',
      'a\u007fb',
      'x'.repeat(256),
      'café',
      'caf\u00c3\u00a9',
      'a\nb',
      '\u{1F600}',
    ]) {
      assert.equal(isValidIdempotencyKey(bad), false, JSON.stringify(bad));
    }
  });

  it('canonicalises key order at every level but keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
    assert.equal(
      requestFingerprint({}, JSON.parse('{ "b" : 1,\n "a" : "\\u0041" }')),
      requestFingerprint({}, { a: 'A', b: 1 }),
    );
    assert.notEqual(requestFingerprint({}, { a: [1, 2] }), requestFingerprint({}, { a: [2, 1] }));
    assert.notEqual(
      requestFingerprint({ status: 'draft' }, { a: 1 }),
      requestFingerprint({}, { a: 1 }),
      'the query counts',
    );
    assert.equal(requestFingerprint({}, undefined), requestFingerprint({}, {}), 'no body is an empty body');
  });
});

describeEachDatabase('Idempotent creates (D23)', (h) => {
  for (const kind of KINDS) {
    it(`replays the first answer to a repeated create of ${kind.collection}, byte for byte, and creates nothing more`, async () => {
      const name = newName(`Replay ${kind.collection}`);
      const key = newKey();
      const first = await post(h(), kind.collection, kind.body(name), key);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined, 'a first answer is not a replay');
      const changesBefore = await changeCount(h());

      for (let repeat = 0; repeat < 2; repeat++) {
        const again = await post(h(), kind.collection, kind.body(name), key);
        assert.equal(again.statusCode, 201);
        assert.equal(again.headers['idempotent-replayed'], 'true');
        assert.equal(again.body, first.body, 'the same body bytes');
        assert.equal(again.headers.location, first.headers.location);
        assert.equal(again.headers['content-type'], first.headers['content-type']);
        assert.match(
          String(again.headers['cache-control']),
          /no-store/,
          'an authenticated answer is never stored by a cache',
        );
      }
      assert.equal(await itemsNamed(h(), kind, name), 1);
      assert.equal(await changeCount(h()), changesBefore, 'a replay writes nothing');
    });
  }

  it('answers 422 to the same key with a different body, and keeps the first answer for the first body', async () => {
    const kind = KINDS[0];
    const key = newKey();
    const name = newName('Mismatch');
    const first = await post(h(), 'events', kind.body(name), key);
    assert.equal(first.statusCode, 201);
    const other = await post(h(), 'events', { ...kind.body(name), title: `${name} changed` }, key);
    assert.equal(other.statusCode, 422);
    assert.deepEqual(other.json(), {
      code: 'rest_idempotency_key_mismatch',
      message: other.json().message,
      data: { status: 422 },
    });
    const fewerFields = await post(
      h(),
      'events',
      { title: name, start_date: '2030-05-10 10:00:00', end_date: '2030-05-10 12:00:00' },
      key,
    );
    assert.equal(fewerFields.statusCode, 422);
    const otherQuery = await post(h(), 'events', kind.body(name), key, h().users.administrator, { status: 'draft' });
    assert.equal(otherQuery.statusCode, 422, 'query parameters are part of the request');
    assert.equal(await itemsNamed(h(), kind, `${name} changed`), 0);
    const same = await post(h(), 'events', kind.body(name), key);
    assert.equal(same.statusCode, 201);
    assert.equal(same.body, first.body);
  });

  it('compares bodies after parsing: key order, whitespace and escapes do not matter', async () => {
    const key = newKey();
    const name = newName('Reordered');
    const first = await post(
      h(),
      'events',
      JSON.stringify({
        title: name,
        start_date: '2030-05-10 10:00:00',
        end_date: '2030-05-10 12:00:00',
        status: 'publish',
      }),
      key,
    );
    assert.equal(first.statusCode, 201);
    const reordered = `{\n  "status" : "publish",\n\t"end_date":"2030-05-10 12:00:00",  "start_date": "2030-05-10 10:00:00",\n  "title": ${JSON.stringify(name).replace('R', '\\u0052')}\n}\n`;
    const again = await post(h(), 'events', reordered, key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(await itemsNamed(h(), KINDS[0], name), 1);
  });

  it('answers 409 while the first attempt runs, 422 for another body then; takes over a claim left past its lease', async () => {
    const kind = KINDS[0];
    const key = newKey();
    const name = newName('Running');
    const first = await post(h(), 'events', kind.body(name), key);
    assert.equal(first.statusCode, 201);
    // The row as it is between the claim and the answer.
    await h()
      .store.db.updateTable('idempotency_keys')
      .set({ state: 'running', status: null, headers: null, content_type: null, body: null, created_ms: Date.now() })
      .where('key', '=', key)
      .execute();

    const busy = await post(h(), 'events', kind.body(name), key);
    assert.equal(busy.statusCode, 409);
    assert.deepEqual(busy.json(), {
      code: 'rest_idempotency_key_in_use',
      message: busy.json().message,
      data: { status: 409 },
    });
    assert.equal(busy.headers['retry-after'], '1');
    const different = await post(h(), 'events', { ...kind.body(name), title: 'Something else' }, key);
    assert.equal(different.statusCode, 422);
    assert.equal(await itemsNamed(h(), kind, name), 1);

    // A claim older than the lease was left by a process that stopped: a new attempt takes it over and runs.
    await h()
      .store.db.updateTable('idempotency_keys')
      .set({ created_ms: Date.now() - CLAIM_LEASE_MS - 1000 })
      .where('key', '=', key)
      .execute();
    const takeover = await post(h(), 'events', kind.body(name), key);
    assert.equal(takeover.statusCode, 201);
    assert.equal(takeover.headers['idempotent-replayed'], undefined);
    assert.notEqual(takeover.json().id, first.json().id, 'the abandoned attempt is the documented crash window');
    const replay = await post(h(), 'events', kind.body(name), key);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, takeover.body);
  });

  it('stores no failed first attempt: the key may be used again', async () => {
    const key = newKey();
    const name = newName('Failed first');
    const invalid = await post(
      h(),
      'events',
      { title: name, start_date: 'not a date', end_date: '2030-05-10 12:00:00' },
      key,
    );
    assert.equal(invalid.statusCode, 400, invalid.body);
    assert.equal(await keyRow(h(), key), undefined);
    const valid = await post(h(), 'events', KINDS[0].body(name), key);
    assert.equal(valid.statusCode, 201, valid.body);
    assert.equal(valid.headers['idempotent-replayed'], undefined);

    // A term that already exists (400 term_exists), then a new name with the same key.
    const tagKey = newKey();
    const tagName = newName('Existing tag');
    assert.equal((await post(h(), 'tags', { name: tagName }, null)).statusCode, 201);
    const exists = await post(h(), 'tags', { name: tagName }, tagKey);
    assert.equal(exists.statusCode, 400);
    assert.equal(exists.json().code, 'term_exists');
    assert.equal(await keyRow(h(), tagKey), undefined);

    // 403: a contributor may not create terms; nothing is kept either.
    const forbiddenKey = newKey();
    const forbidden = await post(h(), 'categories', { name: newName('Forbidden') }, forbiddenKey, h().users.subscriber);
    assert.equal(forbidden.statusCode, 403);
    assert.equal(await keyRow(h(), forbiddenKey), undefined);
  });

  it('scopes keys to the user and to the route', async () => {
    const key = newKey();
    const venueName = newName('Scoped hall');
    const byAdmin = await post(h(), 'venues', { venue: venueName, city: 'Springfield' }, key);
    assert.equal(byAdmin.statusCode, 201);
    const byEditor = await post(h(), 'venues', { venue: venueName, city: 'Springfield' }, key, h().users.editor);
    assert.equal(byEditor.statusCode, 201);
    assert.equal(byEditor.headers['idempotent-replayed'], undefined, "another user's key is another key");

    const eventName = newName('Scoped event');
    const onEvents = await post(h(), 'events', KINDS[0].body(eventName), key);
    assert.equal(onEvents.statusCode, 201);
    assert.equal(onEvents.headers['idempotent-replayed'], undefined, 'the same key on another route is another key');
    const tag = await post(h(), 'tags', { name: eventName }, key);
    assert.equal(tag.statusCode, 201);
    assert.equal(tag.headers['idempotent-replayed'], undefined);
    const rows = await h()
      .store.db.selectFrom('idempotency_keys')
      .select(['user_id', 'route'])
      .where('key', '=', key)
      .orderBy('route')
      .orderBy('user_id')
      .execute();
    assert.deepEqual(rows, [
      { user_id: h().users.administrator.id, route: `POST ${h().api}/events` },
      { user_id: h().users.administrator.id, route: `POST ${h().api}/tags` },
      { user_id: h().users.administrator.id, route: `POST ${h().api}/venues` },
      { user_id: h().users.editor.id, route: `POST ${h().api}/venues` },
    ]);
  });

  it('never replays a key older than 24 hours, and prunes such keys', async () => {
    const kind = KINDS[0];
    const key = newKey();
    const name = newName('Expired');
    const first = await post(h(), 'events', kind.body(name), key);
    assert.equal(first.statusCode, 201);
    await h()
      .store.db.updateTable('idempotency_keys')
      .set({ created_ms: Date.now() - 25 * 60 * 60 * 1000 })
      .where('key', '=', key)
      .execute();
    const again = await post(h(), 'events', kind.body(name), key);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.notEqual(again.json().id, first.json().id);
    assert.equal(await itemsNamed(h(), kind, name), 2);

    // Pruning deletes by age only.
    const old = Array.from({ length: 3 }, () => newKey());
    const now = Date.now();
    await h()
      .store.db.insertInto('idempotency_keys')
      .values(
        old.map((oldKey, index) => ({
          user_id: h().users.author.id,
          route: 'POST /test',
          key: oldKey,
          request_hash: 'x',
          state: index === 0 ? ('running' as const) : ('done' as const),
          claim: 'c',
          created_ms: now - KEY_RETENTION_MS - 1000 * (index + 1),
          status: 201,
          headers: '{}',
          content_type: null,
          body: null,
        })),
      )
      .execute();
    const deleted = await new IdempotencyKeys(h().store.db).prune();
    assert.ok(deleted >= 3, `deleted ${deleted}`);
    const left = await h()
      .store.db.selectFrom('idempotency_keys')
      .select('key')
      .where('key', 'in', [...old, key])
      .execute();
    assert.deepEqual(
      left.map((row) => row.key),
      [key],
      'the key taken again a moment ago stays',
    );
  });

  it('makes one item of 20 simultaneous creates with one key; the others are 409 or replays', async () => {
    for (const kind of [KINDS[0], KINDS[3]]) {
      const key = newKey();
      const name = newName(`Simultaneous ${kind.collection}`);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => post(h(), kind.collection, kind.body(name), key)),
      );
      const created = answers.filter(
        (answer) => answer.statusCode === 201 && answer.headers['idempotent-replayed'] === undefined,
      );
      assert.equal(
        created.length,
        1,
        answers.map((answer) => `${answer.statusCode} ${answer.body.slice(0, 80)}`).join('\n'),
      );
      for (const answer of answers) {
        if (answer.statusCode === 409) assert.equal(answer.json().code, 'rest_idempotency_key_in_use');
        else {
          assert.equal(answer.statusCode, 201, answer.body);
          assert.equal(answer.body, created[0].body);
        }
      }
      assert.equal(await itemsNamed(h(), kind, name), 1);
    }
  });

  it('refuses malformed keys with 400 before the create runs', async () => {
    const name = newName('Bad key');
    for (const bad of ['', 'a\u0001b', 'a\tb', 'has space', 'x'.repeat(256), 'café', 'a\u007f']) {
      const answer = await post(h(), 'events', KINDS[0].body(name), bad);
      assert.equal(answer.statusCode, 400, JSON.stringify(bad));
      assert.deepEqual(answer.json(), {
        code: 'rest_invalid_idempotency_key',
        message: answer.json().message,
        data: { status: 400 },
      });
    }
    // Even when the body is invalid too: the key is checked first.
    const both = await post(h(), 'events', { title: '' }, 'x'.repeat(256));
    assert.equal(both.json().code, 'rest_invalid_idempotency_key');
    assert.equal(await itemsNamed(h(), KINDS[0], name), 0);

    const longest = await post(h(), 'events', KINDS[0].body(name), '~'.repeat(255));
    assert.equal(longest.statusCode, 201, '255 characters are accepted');
  });

  it('ignores the key of anonymous callers and of routes that are not creates', async () => {
    const anonymous = await post(h(), 'events', KINDS[0].body(newName('Anonymous')), 'x'.repeat(300), null);
    assert.equal(anonymous.statusCode, 401, 'an anonymous create is refused whatever its key');
    const key = newKey();
    assert.equal((await post(h(), 'venues', { venue: newName('Anonymous hall') }, key, null)).statusCode, 401);
    assert.equal(await keyRow(h(), key), undefined);

    const event = (await post(h(), 'events', KINDS[0].body(newName('Updated')), null)).json();
    const update = await h().request('POST', `/events/${event.id}`, {
      as: h().users.administrator,
      body: { title: 'Updated again' },
      headers: { 'idempotency-key': '' },
    });
    assert.equal(update.statusCode, 200, 'updates do not read the header');
  });

  it('documents the header and its answers on every create in the OpenAPI document, and nowhere else', async () => {
    const doc = (await h().request('GET', '/doc')).json();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const create = method === 'post' && KINDS.some((kind) => path === `/${kind.collection}`);
        const header = (operation.parameters ?? []).find((parameter: any) => parameter.name === 'Idempotency-Key');
        assert.equal(header !== undefined, create, `${method} ${path}`);
        if (!create) continue;
        assert.equal(header.in, 'header');
        assert.ok(operation.responses['409'] && operation.responses['422'], `${method} ${path}`);
      }
    }
  });

  it('lets the CORS preflight allow the header and exposes the replay flag', async () => {
    const preflight = await h().request('OPTIONS', '/events', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/);
    const answer = await post(h(), 'tags', { name: newName('Exposed') }, newKey());
    assert.match(String(answer.headers['access-control-expose-headers']), /Idempotent-Replayed/);
  });
});
