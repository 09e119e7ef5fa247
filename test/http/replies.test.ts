// Replies that are not JSON (iCalendar, raw bytes) and replies without a body (304), through the same route table,
// send path and read cache as the API's JSON answers: test-only route groups passed to buildApp.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arg } from '../../src/core/input/args.ts';
import { endpoint, type RouteGroup } from '../../src/http/routes.ts';
import { cacheKey } from '../../src/plugins/read-cache.ts';
import { encodeReply } from '../../src/plugins/reply.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

const CALENDAR_TYPE = 'text/calendar; charset=utf-8';
const NO_STORE = 'no-cache, must-revalidate, max-age=0, no-store, private';

/** How many times each test handler ran: a cached answer does not run it. */
const computed = { feed: 0, bytes: 0, conditional: 0 };

const feed = (serial: number) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//calendar-events//test//EN\r\nX-SERIAL:${serial}\r\nSUMMARY:Café\r\nEND:VCALENDAR\r\n`;
const BYTES = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f]);

const testGroups: RouteGroup[] = [
  {
    path: '/test-feed',
    pattern: '/test-feed',
    endpoints: [
      endpoint({
        methods: ['GET'],
        summary: 'An iCalendar feed (test only).',
        args: {},
        responses: { 200: { description: 'The feed.' } },
        handler: async () => ({
          type: CALENDAR_TYPE,
          headers: { 'Content-Disposition': 'inline; filename="events.ics"' },
          payload: feed(++computed.feed),
        }),
      }),
    ],
  },
  {
    path: '/test-bytes',
    pattern: '/test-bytes',
    endpoints: [
      endpoint({
        methods: ['GET'],
        summary: 'Raw bytes (test only).',
        args: {},
        responses: { 200: { description: 'Bytes.' } },
        handler: async () => {
          computed.bytes++;
          return { type: 'application/octet-stream', payload: BYTES };
        },
      }),
    ],
  },
  {
    path: '/test-conditional',
    pattern: '/test-conditional',
    endpoints: [
      endpoint({
        methods: ['GET'],
        summary: 'A 304 or a JSON answer (test only).',
        args: {
          known: arg.boolean({ description: 'Whether the caller already has the current version.', default: false }),
        },
        responses: { 200: { description: 'The item.' }, 304: { description: 'Not modified.' } },
        handler: async (_ctx, { known }) => {
          computed.conditional++;
          const headers = { ETag: '"v1"' };
          return known ? { status: 304 as const, headers } : { headers, body: { id: 1, title: 'Conditional' } };
        },
      }),
    ],
  },
];

describe('encodeReply', () => {
  it('serialises JSON bodies, keeps other payloads as they are, and gives 204/304 no body', () => {
    assert.deepEqual(encodeReply({ body: { a: 1 } }), {
      status: 200,
      headers: {},
      type: 'application/json; charset=UTF-8',
      payload: '{"a":1}',
    });
    assert.deepEqual(encodeReply({ status: 201, headers: { Location: '/x' }, body: [] }), {
      status: 201,
      headers: { Location: '/x' },
      type: 'application/json; charset=UTF-8',
      payload: '[]',
    });
    assert.deepEqual(encodeReply({ type: CALENDAR_TYPE, payload: 'BEGIN:VCALENDAR' }), {
      status: 200,
      headers: {},
      type: CALENDAR_TYPE,
      payload: 'BEGIN:VCALENDAR',
    });
    assert.deepEqual(encodeReply({ status: 304, headers: { ETag: '"1"' } }), {
      status: 304,
      headers: { ETag: '"1"' },
      type: null,
      payload: null,
    });
    assert.deepEqual(encodeReply({ status: 204 }), { status: 204, headers: {}, type: null, payload: null });
  });
});

describe('the read cache key', () => {
  it('is the URL, plus the conditional request headers when they are sent', () => {
    assert.equal(cacheKey({ url: '/a?b=1', headers: {} }), '/a?b=1');
    const conditional = cacheKey({ url: '/a?b=1', headers: { 'if-none-match': '"v1"' } });
    assert.notEqual(conditional, '/a?b=1');
    assert.notEqual(conditional, cacheKey({ url: '/a?b=1', headers: { 'if-none-match': '"v2"' } }));
    assert.notEqual(conditional, cacheKey({ url: '/a?b=1', headers: { 'if-modified-since': '"v1"' } }));
    assert.equal(cacheKey({ url: '/a', headers: { origin: 'https://app.example', accept: 'text/html' } }), '/a');
  });
});

describeEachDatabase(
  'replies of any type',
  (h) => {
    const touchData = () =>
      h().request('POST', '/venues', { as: h().users.editor, body: { venue: `Touch ${Math.random()}` } });

    it('sends an iCalendar payload under its own type, with the standard headers', async () => {
      h().setNow('2027-01-01T10:00:00Z');
      await touchData();
      const response = await h().request('GET', '/test-feed');
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], CALENDAR_TYPE);
      assert.equal(response.headers['content-disposition'], 'inline; filename="events.ics"');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-robots-tag'], 'noindex');
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.equal(response.headers.allow, 'GET');
      assert.equal(response.headers['cache-control'], undefined);
      assert.match(response.body, /^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n/);
      assert.match(response.body, /SUMMARY:Café\r\n/);
      assert.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body));
    });

    it('serves anonymous iCalendar reads from the cache, type and bytes intact, until the data changes', async () => {
      h().setNow('2027-01-01T11:00:00Z');
      await touchData();
      // The cache keeps an answer once its URL is asked for again (http/recent-keys.ts): the second.
      await h().request('GET', '/test-feed');
      const first = await h().request('GET', '/test-feed');
      const before = computed.feed;
      const second = await h().request('GET', '/test-feed');
      assert.equal(computed.feed, before, 'the second anonymous read is a cache hit');
      assert.equal(second.headers['content-type'], CALENDAR_TYPE);
      assert.equal(second.headers['content-disposition'], 'inline; filename="events.ics"');
      assert.equal(second.body, first.body);
      assert.deepEqual(second.rawPayload, first.rawPayload);

      const head = await h().request('HEAD', '/test-feed');
      assert.equal(computed.feed, before, 'HEAD shares the GET answer');
      assert.equal(head.body, '');
      assert.equal(head.headers['content-type'], CALENDAR_TYPE);

      const authenticated = await h().request('GET', '/test-feed', { as: h().users.editor });
      assert.equal(computed.feed, before + 1, 'an authenticated read is never served from the cache');
      assert.equal(authenticated.headers['content-type'], CALENDAR_TYPE);
      assert.equal(authenticated.headers['cache-control'], NO_STORE);
      assert.equal(authenticated.headers.allow, 'GET');

      await touchData();
      const after = await h().request('GET', '/test-feed');
      assert.equal(computed.feed, before + 2, 'a write makes the next anonymous read compute again');
      assert.notEqual(after.body, first.body);
    });

    it('keeps binary payloads byte for byte, cached or not', async () => {
      h().setNow('2027-01-01T12:00:00Z');
      await touchData();
      await h().request('GET', '/test-bytes');
      const first = await h().request('GET', '/test-bytes');
      const before = computed.bytes;
      const second = await h().request('GET', '/test-bytes');
      assert.equal(computed.bytes, before);
      for (const response of [first, second]) {
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-type'], 'application/octet-stream');
        assert.deepEqual(response.rawPayload, BYTES);
      }
    });

    it('answers 304 with no body and no type, and caches it apart from the full answer', async () => {
      h().setNow('2027-01-01T13:00:00Z');
      await touchData();
      const before = computed.conditional;
      const full = await h().request('GET', '/test-conditional');
      assert.equal(full.statusCode, 200);
      assert.equal(full.headers['content-type'], 'application/json; charset=UTF-8');
      assert.deepEqual(full.json(), { id: 1, title: 'Conditional' });
      assert.equal(full.headers.etag, '"v1"');
      await h().request('GET', '/test-conditional');

      for (let round = 0; round < 3; round++) {
        const notModified = await h().request('GET', '/test-conditional', { query: { known: 1 } });
        assert.equal(notModified.statusCode, 304);
        assert.equal(notModified.body, '');
        assert.equal(notModified.headers.etag, '"v1"');
        assert.equal(notModified.headers['content-type'], undefined);
        assert.equal(notModified.headers['content-length'], undefined);
        assert.equal(notModified.headers['x-content-type-options'], 'nosniff');
        assert.equal(notModified.headers.allow, 'GET');
      }
      const again = await h().request('GET', '/test-conditional');
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), { id: 1, title: 'Conditional' });
      assert.equal(
        computed.conditional,
        before + 4,
        'the 200 and the 304 each computed until asked for again (then kept), then cache hits',
      );

      const authenticated = await h().request('GET', '/test-conditional', {
        as: h().users.editor,
        query: { known: 1 },
      });
      assert.equal(authenticated.statusCode, 304);
      assert.equal(authenticated.headers['cache-control'], NO_STORE);
      assert.equal(authenticated.headers['content-type'], undefined);
    });

    it("leaves the API's own answers and the discovery documents unchanged by extra groups", async () => {
      const index = (await h().request('GET', h().api)).json();
      assert.equal(
        Object.keys(index.routes).some((route: string) => route.includes('test-')),
        false,
      );
      const venues = await h().request('GET', '/venues');
      assert.equal(venues.headers['content-type'], 'application/json; charset=UTF-8');
    });
  },
  {},
  { extraRouteGroups: testGroups },
);
