// D27 pure parts: the SSRF address rules, the retry schedule, signing (checked with the standardwebhooks package).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { GIVE_UP_AFTER_MS, nextAttemptAt, RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { DEFAULT_TIMEOUT_MS } from '../../src/webhooks/send.ts';
import { generateSecret, signature } from '../../src/webhooks/signing.ts';
import { checkWebhookUrl, isBlockedAddress, UnsafeUrlError } from '../../src/webhooks/url-safety.ts';

describe('webhooks: SSRF address rules', () => {
  it('blocks loopback, private, link-local, metadata, CGNAT, multicast and their IPv6 forms', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1',
      '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', '[::1]', 'not-an-ip']) {
      assert.equal(isBlockedAddress(address), true, address);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isBlockedAddress(address), false, address);
    }
  });

  it('checks the scheme and every resolved address, unless private addresses are allowed', async () => {
    const resolver = (answers: Record<string, string[]>) => async (host: string) => {
      if (!answers[host]) throw new Error('ENOTFOUND');
      return answers[host];
    };
    const resolve = resolver({ 'public.test': ['93.184.215.14'], 'mixed.test': ['93.184.215.14', '10.1.2.3'], 'meta.test': ['169.254.169.254'] });
    await checkWebhookUrl('https://public.test/hook', false, resolve);
    for (const url of ['ftp://public.test/', 'javascript:alert(1)', 'not a url', 'http://mixed.test/', 'http://meta.test/', 'http://nowhere.test/',
      'http://127.0.0.1:8080/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/']) {
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
    assert.equal(nextAttemptAt(1, 0, 0, () => 0), 4_500);
    assert.equal(nextAttemptAt(1, 0, 0, () => 0.999999), 5_500);
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
    const body = JSON.stringify({ type: 'event.created', timestamp: '2030-01-01T00:00:00Z', data: { id: 1, title: 'Ünïcode' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signature(secret, 'msg_1_1', timestamp, body);
    assert.equal(header, new Webhook(secret).sign('msg_1_1', new Date(timestamp * 1000), body));
    new Webhook(secret).verify(body, { 'webhook-id': 'msg_1_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header });
    assert.throws(() => new Webhook(secret).verify(`${body} `, { 'webhook-id': 'msg_1_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header }));
  });
});
