// D27: a subscription deleted while the worker turns changes into its deliveries. The worker reads the active
// subscriptions, then inserts their deliveries; a deletion committed in between made that insert fail on a foreign key
// (PostgreSQL), and the worker's whole run with it, until the next wake-up. The deletion now waits for the queueing,
// and takes the deliveries just queued with it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWebhook, deleteWebhook, ENQUEUE_LOCK } from '../../src/core/webhooks/subscriptions.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { rowCount } from '../helpers/queries.ts';

describeEachDatabase('Webhooks: a subscription deleted while its deliveries are queued', (h) => {
  it('waits for the queueing, then goes with the deliveries it queued', async () => {
    const store = h().store;
    const subscription = { url: 'http://127.0.0.1:9/hook', events: ['*'], active: true, description: '' };
    const { row } = await createWebhook(store, subscription, new Date());
    let deleted = false;
    let deletion: Promise<unknown> | undefined;
    await store.transaction(async (trx) => {
      // As the worker queues: the lock, the subscriptions it reads, then their deliveries.
      await store.lock(trx, ENQUEUE_LOCK);
      const active = await trx.selectFrom('webhooks').select('id').where('id', '=', row.id).execute();
      assert.equal(active.length, 1);
      deletion = deleteWebhook(store, row.id).then(() => {
        deleted = true;
      });
      // The deletion's chance to commit first, which it had before.
      await sleep(300);
      assert.equal(deleted, false, 'the deletion waits while deliveries are being queued');
      await trx
        .insertInto('webhook_deliveries')
        .values({
          webhook_id: row.id,
          seq: 1,
          msg_id: `msg_1_${row.id}`,
          event_type: 'event.created',
          item_type: 'event',
          item_id: 1,
          payload: '{}',
          status: 'pending',
          attempts: 0,
          next_attempt_ms: 0,
          lease_until_ms: 0,
          lease_token: '',
          created_ms: 0,
        })
        .execute();
    });
    await deletion;
    assert.equal(deleted, true);
    assert.equal(await rowCount(store, 'webhooks', ['id', row.id]), 0);
    assert.equal(await rowCount(store, 'webhook_deliveries', ['webhook_id', row.id]), 0, 'its deliveries went with it');
  });
});
