import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { ApiError } from '../../src/http/errors.ts';
import { Authenticator } from '../../src/http/auth.ts';
import { ensureAdmin } from '../../src/core/users/bootstrap.ts';
import { generateAppPassword, verifySecret } from '../../src/core/users/secrets.ts';
import {
  createAppPassword,
  createUser,
  findUserByLogin,
  listAppPasswords,
  revokeAppPassword,
} from '../../src/core/users/store.ts';
import { basicAuth, describeEachDatabase } from '../helpers/harness.ts';
import { queriesDuring } from '../helpers/queries.ts';

const silentLog = { info() {}, warn() {} };

describeEachDatabase('authentication (D15)', (h) => {
  it('accepts an application password with or without its spaces', async () => {
    const editor = h().users.editor;
    const spaced = await h().request('POST', '/venues', { as: editor, body: { venue: 'Auth Hall' } });
    assert.equal(spaced.statusCode, 201);
    assert.equal(spaced.json().author, String(editor.id));
    const secret = Buffer.from(editor.authorization.slice(6), 'base64').toString().split(':')[1].replace(/ /g, '');
    const compact = await h().request('GET', '/venues', { as: basicAuth(editor.login, secret) });
    assert.equal(compact.statusCode, 200);
  });

  it('answers an unknown user with 401 invalid_username, even on public GETs', async () => {
    const response = await h().request('GET', '/venues', { as: basicAuth('nobody', 'abcd efgh') });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'invalid_username');
    assert.equal(response.json().data.status, 401);
  });

  it('answers a wrong password, a malformed header or another scheme with 401 incorrect_password', async () => {
    for (const header of [
      basicAuth('editor', 'wrong password'),
      'Basic !!!not-base64',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Bearer abc.def.ghi',
      'Digest username="editor"',
      basicAuth('editor', ''),
    ]) {
      const response = await h().request('GET', '/venues', {
        as: header,
        headers: { 'x-forwarded-for': 'irrelevant' },
      });
      assert.equal(response.statusCode, 401, header);
      assert.equal(response.json().code, 'incorrect_password', header);
      assert.deepEqual(Object.keys(response.json()), ['code', 'message', 'data']);
    }
  });

  it('stops accepting a password as soon as it is revoked, cache or not', async () => {
    const user = await h().createUser('revokee', 'editor');
    assert.equal((await h().request('GET', '/venues', { as: user })).statusCode, 200);
    const [password] = await listAppPasswords(h().store.db, user.id);
    await revokeAppPassword(h().store.db, password.id);
    const after = await h().request('GET', '/venues', { as: user });
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().code, 'incorrect_password');
  });

  it('reads a remembered credential again only after a write, by any process: a revocation or a lock-out applies at once', async () => {
    const user = await h().createUser('confirmed', 'editor');
    const authenticator = new Authenticator(h().store.db);
    const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
    const address = '198.51.100.4';
    const caller = { id: user.id, role: 'editor' };
    assert.deepEqual(
      await authenticator.authenticate(user.authorization, address, now),
      caller,
      'checked, and "last used" stamped',
    );
    assert.deepEqual(
      await authenticator.authenticate(user.authorization, address, now),
      caller,
      'read again after the stamp',
    );
    assert.equal(
      await queriesDuring(h().store, async () => {
        assert.deepEqual(await authenticator.authenticate(user.authorization, address, now), caller);
      }),
      0,
      'nothing written since: no read',
    );
    assert.ok(
      (await queriesDuring(h().store, () => authenticator.authenticate(user.authorization, '198.51.100.5', now))) > 0,
      'another client address has failure counters of its own',
    );

    const another = await h().openAnotherStore();
    try {
      const login = createHash('sha256').update(user.login, 'utf8').digest('base64url');
      await another.transaction(async (trx) => {
        await trx.deleteFrom('auth_failures').where('address', '=', address).where('login', '=', login).execute();
        await trx
          .insertInto('auth_failures')
          .values({ address, login, failures: 1000, window_end: Date.now() + 60_000 })
          .execute();
      });
      await assert.rejects(
        authenticator.authenticate(user.authorization, address, now),
        (error: ApiError) => error.status === 429,
      );
      await another.transaction(async (trx) => {
        await trx.deleteFrom('auth_failures').where('address', '=', address).execute();
      });
      assert.deepEqual(await authenticator.authenticate(user.authorization, address, now), caller);
      const [password] = await listAppPasswords(another.db, user.id);
      await another.transaction((trx) => revokeAppPassword(trx, password.id));
    } finally {
      await another.close();
    }
    await assert.rejects(
      authenticator.authenticate(user.authorization, address, now),
      (error: ApiError) => error.status === 401,
    );
  });

  it('records when an application password was last used', async () => {
    const user = await h().createUser('tracked', 'author');
    const [before] = await listAppPasswords(h().store.db, user.id);
    assert.equal(before.last_used_utc, null);
    await h().request('GET', '/venues', { as: user });
    const [after] = await listAppPasswords(h().store.db, user.id);
    assert.match(String(after.last_used_utc), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('makes sure ADMIN_USER exists and authenticates with ADMIN_PASSWORD, replacing it when it changes', async () => {
    const config = { ...h().config, admin: { user: 'boss', password: 'first secret' } };
    await ensureAdmin(config, h().store, silentLog);
    await ensureAdmin(config, h().store, silentLog);
    assert.equal(
      (await h().request('POST', '/venues', { as: basicAuth('boss', 'first secret'), body: { venue: 'Boss Hall' } }))
        .statusCode,
      201,
    );

    await ensureAdmin({ ...config, admin: { user: 'boss', password: 'second secret' } }, h().store, silentLog);
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('boss', 'first secret') })).statusCode, 401);
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('boss', 'second secret') })).statusCode, 200);
    const boss = await findUserByLogin(h().store.db, 'boss');
    assert.equal((await listAppPasswords(h().store.db, boss!.id)).length, 1);
  });

  it('promotes an existing ADMIN_USER to administrator', async () => {
    const user = await h().createUser('promoted', 'subscriber');
    await ensureAdmin({ ...h().config, admin: { user: 'promoted', password: 'pw' } }, h().store, silentLog);
    assert.equal((await findUserByLogin(h().store.db, 'promoted'))!.role, 'administrator');
    assert.equal(
      (await h().request('POST', '/venues', { as: user, body: { venue: 'Promoted Hall' } })).statusCode,
      201,
    );
  });

  it('slows down repeated failures from one address with 429', async () => {
    const address = '203.0.113.7';
    const attempt = () =>
      h().app.inject({
        method: 'GET',
        url: `${h().api}/venues`,
        remoteAddress: address,
        headers: { authorization: basicAuth('editor', 'guess') },
      });
    const statuses: number[] = [];
    for (let index = 0; index < 12; index++) statuses.push((await attempt()).statusCode);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    const limited = await attempt();
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'rest_too_many_login_attempts');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const otherAddress = await h().app.inject({
      method: 'GET',
      url: `${h().api}/venues`,
      remoteAddress: '203.0.113.8',
      headers: { authorization: h().users.editor.authorization },
    });
    assert.equal(otherAddress.statusCode, 200);
  });

  it('checks a new credential sent on many connections at once with one hash check, right or wrong', async () => {
    const user = await h().createUser('burst', 'author');
    let derivations = 0;
    // The check is asynchronous, as scrypt's is: every attempt made while it is under way joins it. (They all arrive
    // before its first await: no wait for them is needed, nor would one prove anything.)
    const countingVerify: typeof verifySecret = async (secret, hash) => {
      derivations++;
      await new Promise((resolve) => setImmediate(resolve));
      return verifySecret(secret, hash);
    };
    // Ten simultaneous wrong attempts and one more: more than the default limit of one login (10) allows.
    const authenticator = new Authenticator(h().store.db, { perLogin: 100, verify: countingVerify });
    const now = '2026-11-23 12:00:00';
    const callers = await Promise.all(
      Array.from({ length: 10 }, () => authenticator.authenticate(user.authorization, '192.0.2.1', now)),
    );
    assert.deepEqual(callers, Array(10).fill({ id: user.id, role: 'author' }));
    assert.equal(derivations, 1);
    assert.deepEqual(await authenticator.authenticate(user.authorization, '192.0.2.1', now), {
      id: user.id,
      role: 'author',
    });
    assert.equal(derivations, 1, 'a verified credential is remembered');

    const wrong = basicAuth('burst', 'wrong password');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => authenticator.authenticate(wrong, '192.0.2.1', now)),
    );
    assert.equal(derivations, 2);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.reason instanceof ApiError && outcome.reason.code === 'incorrect_password');
    }
    assert.equal(
      await authenticator.authenticate(wrong, '192.0.2.1', now).catch((error: ApiError) => error.code),
      'incorrect_password',
    );
    assert.equal(derivations, 3, 'a failed check is not remembered');
  });

  it('stores a generated application password with the fast keyed hash (D29)', async () => {
    const user = await h().createUser('fast-hash', 'author');
    const [row] = await listAppPasswords(h().store.db, user.id);
    assert.match(row.hash, /^hmac-sha256\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal((await h().request('GET', '/venues', { as: user })).statusCode, 200);
    assert.equal((await listAppPasswords(h().store.db, user.id))[0].hash, row.hash, 'a fast hash is left as it is');
  });

  it('keeps scrypt for ADMIN_PASSWORD, even one shaped like a generated password, and never upgrades it', async () => {
    const password = generateAppPassword().secret;
    await ensureAdmin({ ...h().config, admin: { user: 'chosen-admin', password } }, h().store, silentLog);
    const admin = await findUserByLogin(h().store.db, 'chosen-admin');
    const [row] = await listAppPasswords(h().store.db, admin!.id);
    assert.match(row.hash, /^scrypt\$\d+\$8\$1\$/);
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('chosen-admin', password) })).statusCode, 200);
    assert.equal((await listAppPasswords(h().store.db, admin!.id))[0].hash, row.hash);
  });

  it('upgrades the scrypt hash of a generated password to the fast hash on its next successful use', async () => {
    const user = await createUser(h().store.db, 'legacy', 'editor');
    const { secret, display } = generateAppPassword();
    // A row as stored before D29: scrypt, under another name than ADMIN_PASSWORD.
    const old = await createAppPassword(h().store.db, user.id, 'laptop', secret, 'chosen');
    assert.match(old.hash, /^scrypt\$/);
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('legacy', 'wrong guess') })).statusCode, 401);
    assert.equal(
      (await listAppPasswords(h().store.db, user.id))[0].hash,
      old.hash,
      'a failed attempt upgrades nothing',
    );

    assert.equal((await h().request('GET', '/venues', { as: basicAuth('legacy', display) })).statusCode, 200);
    const [upgraded] = await listAppPasswords(h().store.db, user.id);
    assert.match(upgraded.hash, /^hmac-sha256\$/);
    assert.equal(upgraded.id, old.id);
    assert.ok(await verifySecret(secret, upgraded.hash));
    // Still accepted, here (remembered) and by another process (checked against the new hash).
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('legacy', display) })).statusCode, 200);
    const other = await h().openAnotherStore();
    try {
      assert.deepEqual(
        await new Authenticator(other.db).authenticate(
          basicAuth('legacy', secret),
          '192.0.2.30',
          '2026-11-23 12:00:00',
        ),
        { id: user.id, role: 'editor' },
      );
    } finally {
      await other.close();
    }
  });

  it('costs an unknown user a dummy hash of the kind a wrong password would cost (D33)', async () => {
    const checked: string[] = [];
    const recordingVerify: typeof verifySecret = (secret, hash) => {
      checked.push(hash.split('$')[0]);
      return verifySecret(secret, hash);
    };
    const authenticator = new Authenticator(h().store.db, { perLogin: 0, perAddress: 0, verify: recordingVerify });
    const attempt = async (login: string, secret: string) => {
      checked.length = 0;
      const code = await authenticator.authenticate(basicAuth(login, secret), '192.0.2.31', '2026-11-23 12:00:00').then(
        () => 'ok',
        (error: ApiError) => error.code,
      );
      return [code, ...checked];
    };
    const generatedShape = generateAppPassword().display;
    await h().createUser('timed', 'author');
    assert.deepEqual(await attempt('timed', generatedShape), ['incorrect_password', 'hmac-sha256']);
    assert.deepEqual(await attempt('no-such-user', generatedShape), ['invalid_username', 'hmac-sha256']);
    // A human-typed secret can only match a scrypt hash: the known user without one and the unknown user both pay one.
    assert.deepEqual(await attempt('timed', 'letmein'), ['incorrect_password', 'scrypt']);
    assert.deepEqual(await attempt('no-such-user', 'letmein'), ['invalid_username', 'scrypt']);
  });
});
