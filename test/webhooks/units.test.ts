// D27 pure parts: the SSRF address rules, the retry schedule, signing (checked with the standardwebhooks package).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { GIVE_UP_AFTER_MS, nextAttemptAt, RETRY_DELAYS_MS } from '../../src/core/webhooks/schedule.ts';
import { DEFAULT_TIMEOUT_MS } from '../../src/core/webhooks/send.ts';
import { generateSecret, signature } from '../../src/core/webhooks/signing.ts';
import {
  checkWebhookUrl,
  embeddedIpv4Addresses,
  isBlockedAddress,
  safeLookup,
  UnsafeUrlError,
} from '../../src/core/webhooks/url-safety.ts';

describe('webhooks: SSRF address rules', () => {
  it('blocks loopback, private, link-local, metadata, CGNAT, multicast and their IPv6 forms', () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '[::1]',
      'not-an-ip',
    ]) {
      assert.equal(isBlockedAddress(address), true, address);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isBlockedAddress(address), false, address);
    }
  });

  // Each IPv6 transition form routes to the IPv4 address it carries: it is as private as that address.
  const embeddingForms: Array<[form: string, carryingPrivate: string[], carryingPublic: string[]]> = [
    ['IPv4-compatible ::/96', ['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::a9fe:a9fe'], ['::8.8.8.8', '::808:808']],
    [
      'IPv4-mapped ::ffff:0:0/96',
      ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:192.168.0.1', '[::ffff:a9fe:a9fe]'],
      ['::ffff:8.8.8.8', '::ffff:808:808'],
    ],
    ['IPv4-translated ::ffff:0:0:0/96', ['::ffff:0:7f00:1', '::ffff:0:10.1.2.3'], ['::ffff:0:808:808']],
    [
      'NAT64 64:ff9b::/96',
      ['64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:FF9B::A9FE:A9FE'],
      ['64:ff9b::808:808', '64:ff9b::8.8.8.8'],
    ],
    [
      '6to4 2002::/16',
      ['2002:7f00:1::', '2002:7f00:0001:0:0:0:0:1', '2002:c0a8:0101::1', '2002:a9fe:a9fe::'],
      ['2002:0808:0808::', '2002:808:808:1::1'],
    ],
    // Server 65.54.227.120 (bits 32..63), client 192.0.2.45 (the last 32 bits inverted): RFC 4380's example.
    [
      'Teredo 2001::/32',
      [
        '2001::7f00:1',
        '2001:0:4136:e378:8000:63bf:3fff:fdd2',
        '2001:0:7f00:1:0:0:f7f7:f7f7',
        '2001:0:808:808:0:0:80ff:fffe',
      ],
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', '2001:0:808:808::f7f7:f7f7'],
    ],
  ];
  for (const [form, carryingPrivate, carryingPublic] of embeddingForms) {
    it(`an IPv6 ${form} address is blocked when the IPv4 address it carries is, and only then`, () => {
      for (const address of carryingPrivate) assert.equal(isBlockedAddress(address), true, address);
      for (const address of carryingPublic) assert.equal(isBlockedAddress(address), false, address);
    });
  }

  it("reads the IPv4 addresses each form carries (Teredo: the server's, then the client's inverted one)", () => {
    assert.deepEqual(embeddedIpv4Addresses('::7f00:1'), ['127.0.0.1']);
    assert.deepEqual(embeddedIpv4Addresses('::ffff:10.0.0.1'), ['10.0.0.1']);
    assert.deepEqual(embeddedIpv4Addresses('::ffff:0:a00:1'), ['10.0.0.1']);
    assert.deepEqual(embeddedIpv4Addresses('64:ff9b::c0a8:101'), ['192.168.1.1']);
    assert.deepEqual(embeddedIpv4Addresses('2002:0808:0808::'), ['8.8.8.8']);
    assert.deepEqual(embeddedIpv4Addresses('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['65.54.227.120', '192.0.2.45']);
    assert.deepEqual(embeddedIpv4Addresses('2606:4700:4700::1111'), []);
    assert.deepEqual(embeddedIpv4Addresses('93.184.215.14'), []);
  });

  it('blocks the local-use NAT64 prefix 64:ff9b:1::/48 whatever it carries: its translator is inside the network', () => {
    for (const address of ['64:ff9b:1::7f00:1', '64:ff9b:1::808:808', '64:ff9b:1:ffff::1'])
      assert.equal(isBlockedAddress(address), true, address);
    assert.equal(isBlockedAddress('64:ff9b:2::808:808'), false);
  });

  it('refuses, when a delivery connects, a name resolving to an IPv6 form that carries a private IPv4 address', async () => {
    // dns.lookup answers an IP literal itself, without asking any resolver: this is the check a resolved name meets.
    const lookup = (hostname: string) =>
      new Promise<unknown>((resolve, reject) => {
        safeLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
      });
    for (const address of [
      '::127.0.0.1',
      '2002:7f00:1::',
      '64:ff9b:1::7f00:1',
      '2001::7f00:1',
      '64:ff9b::a00:1',
      '::ffff:7f00:1',
    ]) {
      await assert.rejects(lookup(address), UnsafeUrlError, address);
    }
    assert.deepEqual(await lookup('2002:808:808::'), [{ address: '2002:808:808::', family: 6 }]);
  });

  it('checks the scheme and every resolved address, unless private addresses are allowed', async () => {
    const resolver = (answers: Record<string, string[]>) => async (host: string) => {
      if (!answers[host]) throw new Error('ENOTFOUND');
      return answers[host];
    };
    const resolve = resolver({
      'public.test': ['93.184.215.14'],
      'mixed.test': ['93.184.215.14', '10.1.2.3'],
      'meta.test': ['169.254.169.254'],
    });
    await checkWebhookUrl('https://public.test/hook', false, resolve);
    for (const url of [
      'ftp://public.test/',
      'javascript:alert(1)',
      'not a url',
      'http://mixed.test/',
      'http://meta.test/',
      'http://nowhere.test/',
      'http://127.0.0.1:8080/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      await assert.rejects(checkWebhookUrl(url, false, resolve), UnsafeUrlError, url);
    }
    await checkWebhookUrl('http://127.0.0.1:8080/', true, resolve);
    await assert.rejects(checkWebhookUrl('ftp://127.0.0.1/', true, resolve), UnsafeUrlError);
  });
});

describe('webhooks: retry schedule', () => {
  it('waits about 5 s, 1 min, 10 min, 1 h, 6 h, then 12 h, with jitter, and gives up after 3 days', () => {
    assert.deepEqual([...RETRY_DELAYS_MS], [5_000, 60_000, 600_000, 3_600_000, 21_600_000]);
    const start = 1_000_000;
    let now = start;
    const delays: number[] = [];
    for (let failures = 1; ; failures++) {
      const next = nextAttemptAt(failures, start, now, () => 0.5);
      if (next === null) break;
      delays.push(next - now);
      now = next;
    }
    assert.deepEqual(delays.slice(0, 6), [5_000, 60_000, 600_000, 3_600_000, 21_600_000, 43_200_000]);
    assert.ok(delays.slice(5).every((delay) => delay === 43_200_000));
    assert.ok(now - start <= GIVE_UP_AFTER_MS && now - start + 43_200_000 > GIVE_UP_AFTER_MS);
    assert.equal(delays.length, 10);
    // Jitter: ±10 %.
    assert.equal(
      nextAttemptAt(1, 0, 0, () => 0),
      4_500,
    );
    assert.equal(
      nextAttemptAt(1, 0, 0, () => 0.999999),
      5_500,
    );
  });

  it('cuts an attempt after 10 s by default', () => {
    assert.equal(DEFAULT_TIMEOUT_MS, 10_000);
  });
});

describe('webhooks: signing', () => {
  it('signs as Standard Webhooks verifies', () => {
    const secret = generateSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    const body = JSON.stringify({
      type: 'event.created',
      timestamp: '2030-01-01T00:00:00Z',
      data: { id: 1, title: 'Ünïcode' },
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signature(secret, 'msg_1_1', timestamp, body);
    assert.equal(header, new Webhook(secret).sign('msg_1_1', new Date(timestamp * 1000), body));
    new Webhook(secret).verify(body, {
      'webhook-id': 'msg_1_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': header,
    });
    assert.throws(() =>
      new Webhook(secret).verify(`${body} `, {
        'webhook-id': 'msg_1_1',
        'webhook-timestamp': String(timestamp),
        'webhook-signature': header,
      }),
    );
  });
});
