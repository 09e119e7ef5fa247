// Closing the app waits for the route handlers under way, even one whose client is gone (an injected request has no
// connection for the server to wait for, as a client that hung up has none): the handler still reads the store after
// the close began, and the close ends only after it.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { endpoint, type RouteGroup } from '../../src/http/routes.ts';
import { createHarness, type Harness } from '../helpers/harness.ts';

const gate = Promise.withResolvers<void>();
const handlerStarted = Promise.withResolvers<void>();

const heldRoutes: RouteGroup[] = [
  {
    path: '/test-held',
    pattern: '/test-held',
    endpoints: [
      endpoint({
        methods: ['GET'],
        summary: 'a read held until the test lets it go on',
        responses: {},
        args: {},
        async handler(ctx) {
          handlerStarted.resolve();
          await gate.promise;
          const terms = await ctx.store.db.selectFrom('terms').select('id').execute();
          return { body: { terms: terms.length } };
        },
      }),
    ],
  },
];

describe('closing the app waits for the handlers under way', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness('sqlite', {}, { extraRouteGroups: heldRoutes });
  });
  after(async () => {
    await h.store.close();
  });

  it('ends only after a held handler has read the store and answered', async () => {
    const answer = h.request('GET', '/test-held', { as: h.users.administrator });
    await handlerStarted.promise;
    let closed = false;
    const closing = h.app.close().then(() => {
      closed = true;
    });
    await sleep(100);
    assert.equal(closed, false, 'the close ended while a handler was still running');
    gate.resolve();
    const response = await answer;
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(typeof response.json().terms, 'number');
    await closing;
    assert.equal(closed, true);
  });
});
