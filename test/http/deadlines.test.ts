// D31 (issue 17 items 6, 7, 11): the response budget, the request deadline, statement time limits, the request-body
// timeout, and the years 1–99 in time-zone offsets.
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { endpoint, type RouteGroup } from '../../src/http/routes.ts';
import { HANG_GUARD_MS } from '../helpers/eventually.ts';
import { createHarness, describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';

const BUDGET = 40_000;

describeEachDatabase(
  'D31 response budget: a list larger than MAX_RESPONSE_BYTES is 400, decided while serialising',
  (h) => {
    before(async () => {
      // Five events of ~10 KB each: 5 of them pass the budget, 3 do not.
      for (let index = 0; index < 5; index++)
        await createEvent(h(), { title: `Big ${index}`, description: `<p>${'x'.repeat(10_000)}</p>` });
      for (let index = 0; index < 5; index++) {
        const response = await h().request('POST', '/organizers', {
          as: h().users.editor,
          body: { organizer: `Org ${index}`, description: 'y'.repeat(10_000) },
        });
        assert.equal(response.statusCode, 201, response.body);
      }
    });

    it('answers 400 rest_response_too_large to GET /events past the budget, and 200 to a smaller page', async () => {
      const tooLarge = await h().request('GET', '/events', { query: { per_page: 5 } });
      assert.equal(tooLarge.statusCode, 400, tooLarge.body.slice(0, 200));
      assert.equal(tooLarge.json().code, 'rest_response_too_large');
      assert.match(tooLarge.json().message, /per_page/);
      assert.equal(tooLarge.json().data.status, 400);
      const fits = await h().request('GET', '/events', { query: { per_page: 3 } });
      assert.equal(fits.statusCode, 200);
      assert.equal(fits.json().events.length, 3);
      assert.ok(Buffer.byteLength(fits.body) <= BUDGET);
    });

    it('does the same for venue/organizer lists and /changes pages', async () => {
      const organizers = await h().request('GET', '/organizers', { query: { per_page: 5 } });
      assert.equal(organizers.statusCode, 400);
      assert.equal(organizers.json().code, 'rest_response_too_large');
      assert.equal((await h().request('GET', '/organizers', { query: { per_page: 2 } })).statusCode, 200);

      const changes = await h().request('GET', '/changes', { as: h().users.administrator, query: { per_page: 100 } });
      assert.equal(changes.statusCode, 400);
      assert.equal(changes.json().code, 'rest_response_too_large');
      const small = await h().request('GET', '/changes', { as: h().users.administrator, query: { per_page: 2 } });
      assert.equal(small.statusCode, 200);
      assert.equal(small.json().changes.length, 2);
    });

    it('is an answer in the error shape that is never cached as a success', async () => {
      const again = await h().request('GET', '/events', { query: { per_page: 5 } });
      assert.equal(again.statusCode, 400);
      assert.deepEqual(Object.keys(again.json()), ['code', 'message', 'data']);
    });
  },
  { MAX_RESPONSE_BYTES: String(BUDGET) },
);

/**
 * The test-only slow write: it holds its transaction open until the test lets it go on (after the answer, so it
 * certainly outlasts the deadline), and says when it has ended.
 */
class SlowWrite {
  readonly released: Promise<void>;
  readonly ended: Promise<void>;
  release!: () => void;
  end!: () => void;

  constructor() {
    this.released = new Promise((resolve) => {
      this.release = resolve;
    });
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }
}

let slowWrite = new SlowWrite();

/** Test-only routes: a write that outlasts the deadline, and a slow statement. */
const slowRoutes: RouteGroup[] = [
  {
    path: '/test-slow',
    pattern: '/test-slow',
    endpoints: [
      endpoint({
        methods: ['POST'],
        summary: 'slow write',
        responses: {},
        args: {},
        async handler(ctx) {
          const write = slowWrite;
          try {
            await ctx.store.transaction(async (trx) => {
              await trx
                .insertInto('terms')
                .values({ taxonomy: 'event_tag', name: 'slow-write', slug: 'slow-write' } as never)
                .execute();
              await write.released;
            });
          } finally {
            write.end();
          }
          return { status: 201, body: { written: true } };
        },
      }),
      endpoint({
        methods: ['GET'],
        summary: 'slow statement',
        responses: {},
        args: {},
        async handler(ctx) {
          await sql`select pg_sleep(2)`.execute(ctx.store.db);
          return { body: { slept: true } };
        },
      }),
    ],
  },
];

describeEachDatabase(
  'D31 request deadline: 503 rest_timeout, the transaction rolled back',
  (h) => {
    it('answers 503 rest_timeout at REQUEST_TIMEOUT_MS and commits nothing afterwards', {
      timeout: HANG_GUARD_MS,
    }, async () => {
      slowWrite = new SlowWrite();
      // The write waits for the test, which waits for the answer: only the deadline can answer.
      const response = await h().request('POST', '/test-slow', { as: h().users.administrator });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().code, 'rest_timeout');
      assert.deepEqual(response.json().data, { status: 503 });
      // The write's work goes on in the background, then finds its commit refused.
      slowWrite.release();
      await slowWrite.ended;
      const rows = await h().store.db.selectFrom('terms').select('id').where('slug', '=', 'slow-write').execute();
      assert.equal(rows.length, 0);
    });

    it('PostgreSQL: statement_timeout cancels a slow statement, answered 503 rest_timeout', async (t) => {
      if (h().database !== 'postgres') return t.skip('SQLite (better-sqlite3) cannot interrupt a statement');
      const response = await h().request('GET', '/test-slow', { as: h().users.administrator });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().code, 'rest_timeout');
      const setting = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(h().store.db);
      assert.equal(setting.rows[0].statement_timeout, '200ms');
    });
  },
  { REQUEST_TIMEOUT_MS: '300', STATEMENT_TIMEOUT_MS: '200' },
  { extraRouteGroups: slowRoutes },
);

describe('D31 request body timeout: a body that never finishes closes the connection', () => {
  let h: Harness;
  let port: number;
  before(async () => {
    h = await createHarness('sqlite', { REQUEST_TIMEOUT_MS: '500' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await h.close();
  });

  it('answers 408 in the error shape and closes the connection of a body that never finishes', {
    timeout: HANG_GUARD_MS,
  }, async () => {
    // Node's own request timeout, checked every second, does it (its default would be 300 s).
    assert.equal(h.app.server.requestTimeout, 500);
    const text = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${h.api}/events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title":`,
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    assert.match(text, /^HTTP\/1\.1 408 /);
    const body = JSON.parse(text.split('\r\n\r\n')[1]);
    assert.equal(body.code, 'rest_request_timeout');
    assert.deepEqual(body.data, { status: 408 });
  });
});

describeEachDatabase('Issue 17 item 7: an event in the years 1–99 does not corrupt later ones', (h) => {
  it('after an event in 0050 Europe/Paris, a 2030-01-15 Europe/Paris event is CET', async () => {
    const ancient = await createEvent(h(), {
      start_date: '0050-01-15 10:00:00',
      end_date: '0050-01-15 12:00:00',
      timezone: 'Europe/Paris',
    });
    assert.equal(ancient.timezone_abbr, 'GMT+0:09:21');
    assert.equal(ancient.utc_start_date, '0050-01-15 09:50:39');
    const modern = await createEvent(h(), {
      start_date: '2030-01-15 10:00:00',
      end_date: '2030-01-15 12:00:00',
      timezone: 'Europe/Paris',
    });
    assert.equal(modern.timezone_abbr, 'CET');
    assert.equal(modern.utc_start_date, '2030-01-15 09:00:00');
    const summer = await createEvent(h(), {
      start_date: '2030-07-15 10:00:00',
      end_date: '2030-07-15 12:00:00',
      timezone: 'Europe/Paris',
    });
    assert.equal(summer.timezone_abbr, 'CEST');
  });
});
