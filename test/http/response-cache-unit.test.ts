import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unpooledBuffer } from '../../src/domain/unpooled-buffer.ts';
import { ResponseCache, type CachedReply } from '../../src/http/response-cache.ts';

const reply = (bytes: number): CachedReply => ({
  status: 200,
  headers: {},
  type: 'application/json; charset=UTF-8',
  payload: Buffer.alloc(bytes),
});

describe('ResponseCache', () => {
  it('serves an entry only for the same data version and within one second', () => {
    const cache = new ResponseCache(undefined, 'every');
    cache.set('/a', 'v1', 1000, reply(10));
    assert.ok(cache.get('/a', 'v1', 1999));
    assert.equal(cache.get('/a', 'v2', 1500), undefined);
    cache.set('/a', 'v1', 1000, reply(10));
    assert.equal(cache.get('/a', 'v1', 2000), undefined);
    cache.set('/a', 'v1', 1000, reply(10));
    assert.equal(cache.get('/a', 'v1', 999), undefined, 'a clock moved back is not trusted');
  });

  it('keeps its memory bounded, dropping the oldest answers first', () => {
    const cache = new ResponseCache(undefined, 'every');
    for (let index = 0; index < 100; index++) cache.set(`/${index}`, 'v', 0, reply(200 * 1024));
    assert.equal(cache.get('/0', 'v', 1), undefined);
    assert.ok(cache.get('/99', 'v', 1));
    let kept = 0;
    for (let index = 0; index < 100; index++) if (cache.get(`/${index}`, 'v', 1)) kept++;
    assert.ok(kept * 200 * 1024 <= 16 * 1024 * 1024, `${kept} entries kept`);
    assert.equal(cache.get('/big', 'v', 1), undefined);
    cache.set('/big', 'v', 0, reply(300 * 1024));
    assert.equal(cache.get('/big', 'v', 1), undefined, 'answers over 256 KiB are not kept');
  });

  it('lets go of answers past their second as new ones come, whatever the room left', () => {
    const cache = new ResponseCache(undefined, 'every');
    for (let index = 0; index < 10; index++) cache.set(`/${index}`, 'v', 0, reply(1024));
    const tenBytes = cache.bytes;
    cache.set('/a', 'v', 1000, reply(1024));
    assert.equal(cache.bytes, tenBytes / 10, 'only the fresh answer is held');
    assert.ok(cache.get('/a', 'v', 1500));
  });

  it('keeps answers of any type, and answers without a body, within the same memory bound', () => {
    const cache = new ResponseCache(undefined, 'every');
    const calendar: CachedReply = {
      status: 200,
      headers: { ETag: '"1"' },
      type: 'text/calendar; charset=utf-8',
      payload: Buffer.from('BEGIN:VCALENDAR\r\n'),
    };
    cache.set('/feed.ics', 'v', 0, calendar);
    assert.deepEqual(cache.get('/feed.ics', 'v', 1), { ...calendar, version: 'v', at: 0, size: cache.bytes });
    cache.set('/item\nif-none-match: "1"', 'v', 0, {
      status: 304,
      headers: { ETag: '"1"' },
      type: null,
      payload: null,
    });
    assert.equal(cache.get('/item\nif-none-match: "1"', 'v', 1)?.payload, null);
    // Bodiless and tiny answers under long URLs count their keys and headers too: a flood of them stays bounded.
    for (let index = 0; index < 10_000; index++)
      cache.set(`/${index}/${'x'.repeat(4000)}`, 'v', 0, { status: 304, headers: {}, type: null, payload: null });
    assert.ok(cache.bytes <= 16 * 1024 * 1024, `${cache.bytes} bytes`);
  });

  it('computes an answer once for simultaneous misses, and not again while it is fresh', async () => {
    const cache = new ResponseCache(undefined, 'every');
    let computed = 0;
    const compute = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return reply(10);
    };
    await Promise.all([
      cache.answer('/a', 'v', 0, compute),
      cache.answer('/a', 'v', 1, compute),
      cache.answer('/a', 'v', 2, compute),
    ]);
    await cache.answer('/a', 'v', 3, compute);
    assert.equal(computed, 1);
    await cache.answer('/a', 'v2', 4, compute);
    assert.equal(computed, 2, 'a new data version computes again');
  });

  it('keeps an answer only once its key is asked for again within its lifetime', () => {
    const cache = new ResponseCache();
    cache.set('/once', 'v', 0, reply(10));
    assert.equal(cache.get('/once', 'v', 1), undefined, 'asked for once: not kept');
    assert.equal(cache.bytes, 0);
    cache.set('/once', 'v', 400, reply(10));
    assert.ok(cache.get('/once', 'v', 401), 'asked for again within half a second: kept');
    cache.set('/next', 'v', 1000, reply(10));
    cache.set('/next', 'v', 1900, reply(10));
    assert.ok(cache.get('/next', 'v', 1901), 'asked for again within the generation after: kept');
    // Asked for again only after more than a second, when a kept answer would have expired: as if asked for the
    // first time, then kept from the next request.
    cache.set('/rare', 'v', 3000, reply(10));
    cache.set('/rare', 'v', 4600, reply(10));
    assert.equal(cache.get('/rare', 'v', 4601), undefined);
    cache.set('/rare', 'v', 4700, reply(10));
    assert.ok(cache.get('/rare', 'v', 4701));
  });

  it('copies in none of the answers to ids that come round every second and a half', () => {
    const cache = new ResponseCache();
    // 3,000 ids, each asked for every 1.5 s (2,000 requests a second), five times over.
    let kept = 0;
    for (let request = 0; request < 15_000; request++) {
      const nowMs = Math.floor(request / 2);
      const key = `/events/${request % 3_000}`;
      cache.set(key, 'v', nowMs, reply(1024));
      if (cache.get(key, 'v', nowMs)) kept++;
    }
    // Only keys whose bits collide with a recent one's: about 1,000–2,000 keys / 2^18 bits of them each.
    assert.ok(kept < 150, `${kept} of 15,000 kept`);
  });

  it('copies in almost none of many keys each asked for once', () => {
    const cache = new ResponseCache();
    for (let index = 0; index < 5_000; index++) cache.set(`/events/${index}`, 'v', index / 10, reply(1024));
    let kept = 0;
    for (let index = 0; index < 5_000; index++) if (cache.get(`/events/${index}`, 'v', 500)) kept++;
    // Only keys whose bits collide with an earlier one's are kept: about 5,000 / 2^18 of them each.
    assert.ok(kept < 100, `${kept} of 5,000 kept`);
  });

  it('encodes a text answer only when it keeps it, and then serves its UTF-8 bytes', () => {
    const cache = new ResponseCache();
    const text = '{"title":"Café – 日本"}';
    const fresh = { status: 200, headers: {}, type: 'application/json; charset=UTF-8', payload: text };
    const { allocUnsafeSlow } = Buffer;
    let encoded = 0;
    Buffer.allocUnsafeSlow = (size: number) => {
      encoded++;
      return allocUnsafeSlow(size);
    };
    try {
      cache.set('/text', 'v', 0, fresh);
      assert.equal(encoded, 0, 'asked for once: not kept, not encoded');
      cache.set('/text', 'v', 10, fresh);
      assert.equal(encoded, 1, 'asked for again: kept, encoded once');
    } finally {
      Buffer.allocUnsafeSlow = allocUnsafeSlow;
    }
    const kept = cache.get('/text', 'v', 20);
    assert.ok(kept?.payload instanceof Buffer);
    assert.deepEqual(kept.payload, Buffer.from(text, 'utf8'));
    assert.equal(cache.bytes, Buffer.byteLength(text) + '/text'.length + 256);
  });

  it('keeps no text answer longer than its limit in bytes, however it counts in characters', () => {
    const cache = new ResponseCache(undefined, 'every');
    // 100,000 characters, 300,000 bytes: over the 256 KiB limit only once encoded.
    const text = '日'.repeat(100_000);
    cache.set('/wide', 'v', 0, { status: 200, headers: {}, type: 'text/plain', payload: text });
    assert.equal(cache.get('/wide', 'v', 1), undefined);
    assert.equal(cache.bytes, 0);
  });
});

describe('answers the caches keep', () => {
  it('hold memory of their own, not a slice of a shared slab', () => {
    for (const payload of [
      '{"id":1}',
      'é'.repeat(3000),
      Buffer.from('small, so pooled'),
      Buffer.concat([Buffer.alloc(10)]),
    ]) {
      const kept = unpooledBuffer(payload);
      assert.equal(kept.buffer.byteLength, kept.length, 'exactly its bytes');
      assert.equal(kept.byteOffset, 0);
      assert.deepEqual(kept, Buffer.from(payload));
    }
    const own = Buffer.allocUnsafeSlow(4);
    assert.equal(unpooledBuffer(own), own, 'a Buffer that owns its memory is kept as it is');
  });

  it('are kept so by the read cache, text or Buffer', () => {
    const cache = new ResponseCache(undefined, 'every');
    cache.set('/text', 'v', 0, { ...reply(0), payload: '{"events":[]}' });
    cache.set('/buffer', 'v', 0, { ...reply(0), payload: Buffer.from('pooled answer') });
    for (const key of ['/text', '/buffer']) {
      const payload = cache.get(key, 'v', 1)?.payload;
      assert.ok(payload);
      assert.equal(payload.buffer.byteLength, payload.length, key);
    }
  });
});
