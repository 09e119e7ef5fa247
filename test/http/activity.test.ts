// The requests-in-flight counter the webhook worker yields to (http/activity.ts, plugins/activity.ts): it counts a
// request while it is served and never leaks, whether the answer was sent, failed or abandoned.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { requestActivity } from '../../src/core/background/activity.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

describeEachDatabase('requests in flight', (h) => {
  it('are counted while served and no longer once answered, errors and unknown routes included', async () => {
    assert.equal(requestActivity.busy, false);
    const answers = await Promise.all([
      h().request('GET', '/events'),
      h().request('GET', '/events/999999'),
      h().request('POST', '/events', { body: { title: 'x' } }),
      h().app.inject({ method: 'GET', url: '/no/such/route' }),
      h().app.inject({ method: 'GET', url: '/calendar/events/v1/events?per_page=abc' }),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      [200, 404, 400, 404, 400],
    );
    assert.equal(requestActivity.busy, false);
  });

  it('counts a request that is being served', async () => {
    let seen = false;
    // Observed from inside: a request's own handler runs while it is counted.
    const app = h().app;
    const original = app.readThrough;
    app.readThrough = async (request, compute) => {
      seen = requestActivity.busy;
      return original.call(app, request, compute);
    };
    try {
      await h().request('GET', '/venues');
    } finally {
      app.readThrough = original;
    }
    assert.equal(seen, true);
    assert.equal(requestActivity.busy, false);
  });
});
