import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { ApiError } from '../../src/http/errors.ts';
import { Authenticator } from '../../src/http/auth.ts';
import { verifySecret } from '../../src/core/users/secrets.ts';
import { eventually } from '../helpers/eventually.ts';
import { basicAuth, describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';

// D29/D33: failed authentications counted in the database per (client address, login) and per client address.
// Every test uses addresses of its own, so that the counts of one do not reach another.

const NOW = '2026-11-23 12:00:00';

/** One request from `address` (the socket's), with an optional X-Forwarded-For. */
function attempt(h: Harness, address: string, authorization: string | Credentials | null, forwardedFor?: string) {
  const headers: Record<string, string> = {};
  if (authorization)
    headers.authorization = typeof authorization === 'string' ? authorization : authorization.authorization;
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  return h.app.inject({ method: 'GET', url: `${h.api}/venues`, remoteAddress: address, headers });
}

async function statuses(
  h: Harness,
  count: number,
  address: string,
  authorization: (index: number) => string,
  forwardedFor?: string | ((index: number) => string),
) {
  const result: number[] = [];
  for (let index = 0; index < count; index++) {
    const forwarded = typeof forwardedFor === 'function' ? forwardedFor(index) : forwardedFor;
    result.push((await attempt(h, address, authorization(index), forwarded)).statusCode);
  }
  return result;
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: ApiError) => error.code ?? String(error),
  );

describeEachDatabase('failed authentications, default limits (D29)', (h) => {
  it('locks out a login from one address without locking out another login there', async () => {
    const address = '203.0.113.10';
    const { editor, administrator, author } = h().users;
    assert.deepEqual(
      await statuses(h(), 10, address, (index) => basicAuth('editor', `guess ${index}`)),
      Array(10).fill(401),
    );
    const limited = await attempt(h(), address, basicAuth('editor', 'guess 10'));
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'rest_too_many_login_attempts');
    assert.equal(limited.json().data.status, 429);
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // Correct credentials of the locked pair are refused too: guessing gains nothing.
    const right = await attempt(h(), address, editor);
    assert.equal(right.statusCode, 429);
    assert.ok(Number(right.headers['retry-after']) >= 1);

    assert.equal((await attempt(h(), address, administrator)).statusCode, 200);
    assert.equal((await attempt(h(), address, basicAuth('author', 'wrong'))).statusCode, 401);
    assert.equal((await attempt(h(), address, author)).statusCode, 200);
    assert.equal((await attempt(h(), '203.0.113.11', editor)).statusCode, 200, 'the same login from another address');
    assert.equal((await attempt(h(), address, null)).statusCode, 200, 'anonymous requests are not limited');
  });

  it("counts headers that name no login under a login of their own, not the administrator's", async () => {
    const address = '203.0.113.20';
    const malformed = [
      'Basic !!!',
      'Bearer abc',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from(':pw').toString('base64')}`,
    ];
    const answers = await statuses(h(), 12, address, (index) => malformed[index % malformed.length]);
    assert.deepEqual(answers, [...Array(10).fill(401), 429, 429]);
    assert.equal((await attempt(h(), address, h().users.administrator)).statusCode, 200);
  });

  it('locks out a whole address after AUTH_FAILURES_PER_ADDRESS failures, whatever the logins', async () => {
    const address = '203.0.113.30';
    // 100 failures spread over logins that each stay under their own limit.
    const answers = await statuses(h(), 100, address, (index) => basicAuth(`nobody-${index % 20}`, 'guess'));
    assert.deepEqual(answers, Array(100).fill(401));
    const limited = await attempt(h(), address, h().users.administrator);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await attempt(h(), address, basicAuth('nobody-new', 'guess'))).statusCode, 429);
    assert.equal((await attempt(h(), address, null)).statusCode, 200);
    assert.equal((await attempt(h(), '203.0.113.31', h().users.administrator)).statusCode, 200);
  });

  it('answers a burst of 200 simultaneous wrong passwords for one user with at most 10 checks (D33)', async () => {
    const address = '203.0.113.40';
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) => attempt(h(), address, basicAuth('author', `burst guess ${index}`))),
    );
    const codes = responses.map((response) => response.statusCode);
    const checked = codes.filter((code) => code !== 429);
    assert.ok(checked.length <= 10, `${checked.length} answers were not 429`);
    assert.ok(checked.every((code) => code === 401));
    assert.equal(codes.filter((code) => code === 429).length, 200 - checked.length);
    assert.equal((await attempt(h(), address, h().users.author)).statusCode, 429);

    // The same through one Authenticator, counting hash checks: the refused attempts cost no hash at all.
    let hashes = 0;
    const countingVerify: typeof verifySecret = (secret, hash) => {
      hashes++;
      return verifySecret(secret, hash);
    };
    const authenticator = new Authenticator(h().store.db, { verify: countingVerify });
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        codeOf(authenticator.authenticate(basicAuth('editor', `burst guess ${index}`), '203.0.113.41', NOW)),
      ),
    );
    assert.ok(outcomes.filter((code) => code === 'incorrect_password').length <= 10);
    assert.equal(
      outcomes.filter((code) => code !== 'rest_too_many_login_attempts').length,
      outcomes.filter((code) => code === 'incorrect_password').length,
    );
    assert.ok(hashes <= 10, `${hashes} hash checks`);
  });

  it('never refuses a burst of one right credential for its size, and counts a burst of one wrong header in full', async () => {
    // A process that has not verified the credential yet (a fresh Authenticator): 40 connections at once share one check.
    const fresh = new Authenticator(h().store.db);
    const right = await Promise.all(
      Array.from({ length: 40 }, () => codeOf(fresh.authenticate(h().users.editor.authorization, '203.0.113.42', NOW))),
    );
    assert.deepEqual(right, Array(40).fill('ok'));

    const wrong = await Promise.all(
      Array.from({ length: 40 }, () =>
        codeOf(
          new Authenticator(h().store.db).authenticate(basicAuth('editor', 'the same guess'), '203.0.113.43', NOW),
        ),
      ),
    );
    assert.ok(wrong.filter((code) => code === 'incorrect_password').length <= 10, wrong.join());
    const shared = new Authenticator(h().store.db);
    const joined = await Promise.all(
      Array.from({ length: 40 }, () =>
        codeOf(shared.authenticate(basicAuth('author', 'the same guess'), '203.0.113.44', NOW)),
      ),
    );
    assert.ok(joined.filter((code) => code === 'incorrect_password').length <= 10, joined.join());
    assert.ok(joined.includes('rest_too_many_login_attempts'));
  });

  it('gives a successful check its counted failure back', async () => {
    const address = '203.0.113.50';
    const { editor } = h().users;
    assert.deepEqual(
      await statuses(h(), 9, address, (index) => basicAuth('editor', `guess ${index}`)),
      Array(9).fill(401),
    );
    // Many successes meanwhile (simultaneous ones included) leave the count at nine.
    const successes = await Promise.all(Array.from({ length: 20 }, () => attempt(h(), address, editor)));
    assert.deepEqual(
      successes.map((response) => response.statusCode),
      Array(20).fill(200),
    );
    assert.equal((await attempt(h(), address, basicAuth('editor', 'guess 9'))).statusCode, 401);
    assert.equal((await attempt(h(), address, basicAuth('editor', 'guess 10'))).statusCode, 429);
  });

  it('lets a pair try again once its window has ended, with Retry-After counting down to it', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const authenticator = new Authenticator(h().store.db, { clock: () => now });
    const address = '203.0.113.60';
    const wrong = basicAuth('author', 'wrong');
    for (let index = 0; index < 10; index++)
      assert.equal(await codeOf(authenticator.authenticate(wrong, address, NOW)), 'incorrect_password');
    const retryAfter = async () =>
      authenticator.authenticate(h().users.author.authorization, address, NOW).then(
        () => null,
        (error: ApiError) => error.headers?.['Retry-After'] ?? error.code,
      );
    assert.equal(await retryAfter(), '60');
    now += 59_500;
    assert.equal(await retryAfter(), '1');
    now += 500;
    assert.deepEqual(await authenticator.authenticate(h().users.author.authorization, address, NOW), {
      id: h().users.author.id,
      role: 'author',
    });
    // A new window: ten more failures are allowed.
    for (let index = 0; index < 10; index++)
      assert.equal(await codeOf(authenticator.authenticate(wrong, address, NOW)), 'incorrect_password');
    assert.equal(await codeOf(authenticator.authenticate(wrong, address, NOW)), 'rest_too_many_login_attempts');
  });

  it('deletes ended windows', async () => {
    let now = Date.parse('2031-01-01T00:00:00Z');
    const authenticator = new Authenticator(h().store.db, { clock: () => now });
    await codeOf(authenticator.authenticate(basicAuth('editor', 'wrong'), '203.0.113.70', NOW));
    now += 61_000;
    await codeOf(authenticator.authenticate(basicAuth('editor', 'wrong'), '203.0.113.71', NOW));
    // The clean-up runs after the attempt's own count, without delaying its answer.
    const read = () => h().store.db.selectFrom('auth_failures').select(['address', 'window_end']).execute();
    let rows: Awaited<ReturnType<typeof read>> = [];
    await eventually(
      async () => {
        rows = await read();
        return rows.every((row) => Number(row.window_end) > now);
      },
      'only current windows remain',
      () => JSON.stringify(rows),
    );
    assert.deepEqual([...new Set(rows.map((row) => row.address))], ['203.0.113.71']);
  });

  it('shares the counts between processes (two stores on one database)', async () => {
    const other = await h().openAnotherStore();
    try {
      const elsewhere = new Authenticator(other.db);
      const address = '203.0.113.80';
      assert.deepEqual(
        await statuses(h(), 10, address, (index) => basicAuth('subscriber', `guess ${index}`)),
        Array(10).fill(401),
      );
      assert.equal(
        await codeOf(elsewhere.authenticate(h().users.subscriber.authorization, address, NOW)),
        'rest_too_many_login_attempts',
      );
      assert.deepEqual(await elsewhere.authenticate(h().users.contributor.authorization, address, NOW), {
        id: h().users.contributor.id,
        role: 'contributor',
      });

      for (let index = 0; index < 10; index++) {
        assert.equal(
          await codeOf(elsewhere.authenticate(basicAuth('contributor', `guess ${index}`), '203.0.113.81', NOW)),
          'incorrect_password',
        );
      }
      assert.equal((await attempt(h(), '203.0.113.81', h().users.contributor)).statusCode, 429);
    } finally {
      await other.close();
    }
  });
});

describeEachDatabase(
  'failed authentications behind a trusted proxy, per-login limit off (D29)',
  (h) => {
    it('counts each forwarded client address separately when the request comes from a trusted proxy', async () => {
      const proxy = '10.0.0.1';
      const first = await statuses(h(), 6, proxy, (index) => basicAuth('editor', `guess ${index}`), '198.51.100.1');
      assert.deepEqual(first, [...Array(5).fill(401), 429]);
      // Another client behind the same proxy, and a chain through a second trusted proxy (a CIDR).
      assert.equal((await attempt(h(), proxy, basicAuth('editor', 'guess'), '198.51.100.2')).statusCode, 401);
      assert.equal((await attempt(h(), proxy, h().users.editor, '198.51.100.2')).statusCode, 200);
      assert.equal((await attempt(h(), proxy, h().users.editor, '198.51.100.1, 10.1.2.3')).statusCode, 429);
      assert.equal((await attempt(h(), proxy, h().users.editor, '198.51.100.3, 10.1.2.3')).statusCode, 200);
    });

    it('ignores X-Forwarded-For from an address that is not a trusted proxy', async () => {
      const untrusted = '203.0.113.90';
      const answers = await statuses(
        h(),
        6,
        untrusted,
        (index) => basicAuth('author', `guess ${index}`),
        (index) => `198.51.100.${10 + index}`,
      );
      assert.deepEqual(answers, [...Array(5).fill(401), 429]);
      assert.equal((await attempt(h(), untrusted, h().users.author, '198.51.100.99')).statusCode, 429);
    });

    it('has no per-login limit with AUTH_FAILURES_PER_LOGIN=0, only the address one', async () => {
      const answers = await statuses(h(), 6, '203.0.113.91', () => basicAuth('subscriber', 'same guess'));
      assert.deepEqual(answers, [...Array(5).fill(401), 429], 'the address limit (5) is reached, not a per-login one');
    });
  },
  { TRUST_PROXY: '10.0.0.1, 10.1.0.0/16', AUTH_FAILURES_PER_LOGIN: '0', AUTH_FAILURES_PER_ADDRESS: '5' },
);

describeEachDatabase(
  'failed authentications with both limits off (D29)',
  (h) => {
    it('never answers 429 and counts nothing', async () => {
      const address = '203.0.113.100';
      assert.deepEqual(
        await statuses(h(), 30, address, (index) => basicAuth('editor', `guess ${index}`)),
        Array(30).fill(401),
      );
      assert.equal((await attempt(h(), address, h().users.editor)).statusCode, 200);
      assert.equal((await h().store.db.selectFrom('auth_failures').selectAll().execute()).length, 0);
    });
  },
  { AUTH_FAILURES_PER_LOGIN: '0', AUTH_FAILURES_PER_ADDRESS: '0' },
);

describe('authentication hardening configuration (D29)', () => {
  const rejects = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => loadConfig(env),
      (error: unknown) =>
        error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
    );

  it('has the contract defaults', () => {
    const config = loadConfig({});
    assert.deepEqual(config.authFailures, { perLogin: 10, perAddress: 100 });
    assert.deepEqual(config.trustProxy, []);
  });

  it('reads the limits, 0 included', () => {
    assert.deepEqual(loadConfig({ AUTH_FAILURES_PER_LOGIN: '0', AUTH_FAILURES_PER_ADDRESS: '250' }).authFailures, {
      perLogin: 0,
      perAddress: 250,
    });
  });

  it('reads TRUST_PROXY as a list of addresses and CIDRs', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: ' 10.0.0.1, 10.0.0.0/8,::1 , fd00::/8, loopback' }).trustProxy, [
      '10.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('stops on a bad value, naming the variable', () => {
    rejects({ AUTH_FAILURES_PER_LOGIN: '-1' }, 'AUTH_FAILURES_PER_LOGIN');
    rejects({ AUTH_FAILURES_PER_LOGIN: 'ten' }, 'AUTH_FAILURES_PER_LOGIN');
    rejects({ AUTH_FAILURES_PER_ADDRESS: '1.5' }, 'AUTH_FAILURES_PER_ADDRESS');
    rejects({ TRUST_PROXY: 'proxy.example.com' }, 'TRUST_PROXY');
    rejects({ TRUST_PROXY: '10.0.0.1, 10.0.0.300' }, 'TRUST_PROXY');
    rejects({ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY');
    rejects({ TRUST_PROXY: '::1/129' }, 'TRUST_PROXY');
    rejects({ TRUST_PROXY: 'true' }, 'TRUST_PROXY');
    rejects({ TRUST_PROXY: '*' }, 'TRUST_PROXY');
  });
});
