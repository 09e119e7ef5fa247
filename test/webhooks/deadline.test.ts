// D27 × D31: the worker is woken from a request's after-commit hook, but its runs must not inherit that request's
// deadline (which would refuse their commits once the request's time is up).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { WebhookWorker } from '../../src/core/webhooks/worker.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { startReceiver } from './receiver.ts';

describeEachDatabase(
  'Webhooks: runs woken by a request outlive its deadline',
  (h) => {
    it("records an attempt that ends after the waking request's deadline", async () => {
      const receiver = await startReceiver(() => ({ status: 200, delayMs: 400 }));
      const admin = h().users.administrator;
      const hook = (
        await h().request('POST', '/webhooks', { as: admin, body: { url: receiver.url, events: ['*'] } })
      ).json();
      const worker = new WebhookWorker(h().store, h().config, { pollMs: 60_000 });
      worker.start();
      try {
        const created = await h().request('POST', '/venues', { as: admin, body: { venue: 'Deadline hall' } });
        assert.equal(created.statusCode, 201);
        await receiver.waitFor((received) => received.length === 1);
        // Stopping lets the attempt in flight finish and be recorded (or its commit be refused).
        await worker.stop();
        const row = await h()
          .store.db.selectFrom('webhook_deliveries')
          .select(['status', 'attempts'])
          .where('webhook_id', '=', hook.id)
          .executeTakeFirst();
        assert.deepEqual(row && { status: row.status, attempts: Number(row.attempts) }, {
          status: 'succeeded',
          attempts: 1,
        });
      } finally {
        await worker.stop();
        await receiver.close();
      }
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: '1', REQUEST_TIMEOUT_MS: '200' },
);
