// D27 delivery from the change log to a real HTTP receiver on 127.0.0.1, signatures verified with standardwebhooks.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readChanges } from '../../src/core/change-log/read.ts';
import { WebhookWorker, type WorkerOptions } from '../../src/core/webhooks/worker.ts';
import { HANG_GUARD_MS } from '../helpers/eventually.ts';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { startReceiver, type Behaviour, type Receiver } from './receiver.ts';

describeEachDatabase(
  'Webhooks: delivery',
  (h) => {
    const admin = () => h().users.administrator;

    async function subscribe(receiver: Receiver, events: string[] = ['*']): Promise<{ id: number; secret: string }> {
      const response = await h().request('POST', '/webhooks', { as: admin(), body: { url: receiver.url, events } });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    }

    /** A receiver, a subscription to it and a worker, torn down after `body`. */
    async function withSubscription(
      behaviour: Behaviour,
      options: WorkerOptions,
      body: (setup: {
        receiver: Receiver;
        hook: { id: number; secret: string };
        worker: WebhookWorker;
        harness: Harness;
      }) => Promise<void>,
      events?: string[],
    ) {
      const receiver = await startReceiver(behaviour);
      const hook = await subscribe(receiver, events);
      const worker = new WebhookWorker(h().store, h().config, options);
      try {
        await body({ receiver, hook, worker, harness: h() });
      } finally {
        await worker.stop();
        await h().request('DELETE', `/webhooks/${hook.id}`, { as: admin() });
        await receiver.close();
      }
    }

    const createEvent = async (title: string) => {
      const response = await h().request('POST', '/events', {
        as: admin(),
        body: { title, start_date: '2031-01-01 10:00', end_date: '2031-01-01 11:00', status: 'publish' },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json() as { id: number };
    };

    it('yields to requests: after a batch sent while requests are served, it pauses ten times as long as the batch took', async () => {
      const pauses: number[] = [];
      let busy = true;
      const options: WorkerOptions = {
        pollMs: 60_000,
        busy: () => busy,
        pause: async (ms) => void pauses.push(ms),
        batchSize: 2,
      };
      await withSubscription(
        () => 200,
        options,
        async ({ receiver, worker }) => {
          for (const title of ['Yield 1', 'Yield 2', 'Yield 3']) await createEvent(title);
          await worker.runOnce();
          await receiver.waitFor((received) => received.length >= 3);
          assert.equal(pauses.length, 2, 'one pause after each of the two batches (2 + 1 deliveries)');
          assert.ok(
            pauses.every((ms) => ms > 0 && ms <= 2_000),
            JSON.stringify(pauses),
          );
          busy = false;
          await createEvent('No yield');
          await worker.runOnce();
          await receiver.waitFor((received) => received.length >= 4);
          assert.equal(pauses.length, 2, 'no pause while no request is served');
        },
      );
    });

    it("prunes settled deliveries, and their attempts, older than the change log's retention, and keeps the rest", async () => {
      await withSubscription(
        () => 200,
        { pollMs: 60_000 },
        async ({ receiver, worker }) => {
          await createEvent('Pruned later');
          await worker.runOnce();
          await receiver.waitFor((received) => received.length >= 1);
          const db = h().store.db;
          const delivered = await db
            .selectFrom('webhook_deliveries')
            .select(['id', 'status'])
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirstOrThrow();
          assert.equal(delivered.status, 'succeeded');
          const attempts = () =>
            db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', delivered.id).execute();
          assert.equal((await attempts()).length, 1);

          assert.equal(await worker.prune(), 0, 'a recent delivery stays');
          const old = Date.now() - (h().config.changesRetentionDays + 1) * 24 * 60 * 60 * 1000;
          await db.updateTable('webhook_deliveries').set({ created_ms: old }).where('id', '=', delivered.id).execute();
          assert.ok((await worker.prune()) >= 1);
          assert.equal(
            (await db.selectFrom('webhook_deliveries').select('id').where('id', '=', delivered.id).execute()).length,
            0,
          );
          assert.equal((await attempts()).length, 0, 'its attempts go with it');
        },
      );
    });

    it('every selected change arrives exactly once, signed, in order per item, with the item as an administrator reads it', async () => {
      const narrowReceiver = await startReceiver();
      const narrow = await subscribe(narrowReceiver, ['venue.created', 'event.deleted']);
      try {
        await withSubscription(
          () => 200,
          { pollMs: 50 },
          async ({ receiver, hook, worker }) => {
            const [{ cursor }] = await h()
              .store.db.selectFrom('webhooks')
              .select('cursor')
              .where('id', '=', hook.id)
              .execute();
            worker.start();
            const event = await createEvent('Hooked');
            await h().request('PATCH', `/events/${event.id}`, {
              as: admin(),
              body: { title: 'Hooked again', status: 'draft' },
            });
            const venue = (await h().request('POST', '/venues', { as: admin(), body: { venue: 'Hook hall' } })).json();
            await h().request('POST', '/categories', { as: admin(), body: { name: 'Hook category' } });
            await h().request('DELETE', `/events/${event.id}`, { as: admin() });
            await h().request('POST', `/events/${event.id}`, { as: admin(), body: { status: 'publish' } });
            await h().request('DELETE', `/events/${event.id}`, { as: admin(), query: { force: 'true' } });
            const changes = await readChanges(h().store.db, { afterSeq: Number(cursor), limit: 1000 });
            assert.ok(changes.length >= 7, JSON.stringify(changes));
            await receiver.waitFor((received) => received.length >= changes.length);
            await narrowReceiver.waitFor((received) => received.length >= 2);
            // Nothing more comes, however often the worker runs.
            await worker.runOnce();
            await worker.runOnce();
            await new Promise((resolve) => setTimeout(resolve, 200));
            const arrived = receiver.verified(hook.secret);
            assert.equal(arrived.length, changes.length);
            // Different items may arrive in any order (sent concurrently); each item's changes arrive in seq order.
            const seqOf = (id: string) => Number(id.split('_')[1]);
            const verified = [...arrived].sort((a, b) => seqOf(a.id) - seqOf(b.id));
            assert.deepEqual(
              verified.map((entry) => entry.id),
              changes.map((change) => `msg_${change.seq}_${hook.id}`),
            );
            assert.deepEqual(
              verified.map((entry) => entry.payload.type),
              changes.map((change) => `${change.type}.${change.action}`),
            );
            const eventTypes = arrived
              .filter((entry) => entry.payload.type.startsWith('event.') && entry.payload.data.id === event.id)
              .map((entry) => entry.payload.type);
            assert.deepEqual(eventTypes, [
              'event.created',
              'event.updated',
              'event.trashed',
              'event.restored',
              'event.deleted',
            ]);
            const first = verified.find((entry) => entry.payload.type === 'event.created')!;
            assert.equal(first.payload.data.id, event.id);
            assert.ok(
              'title' in first.payload.data && 'rest_url' in first.payload.data,
              JSON.stringify(first.payload.data),
            );
            assert.match(first.payload.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
            assert.deepEqual(verified.at(-1)!.payload, {
              type: 'event.deleted',
              timestamp: verified.at(-1)!.payload.timestamp,
              data: { id: event.id },
            });
            assert.equal(verified.find((entry) => entry.payload.type === 'venue.created')!.payload.data.id, venue.id);
            assert.equal(receiver.received[0].headers['content-type'], 'application/json');

            const narrowTypes = narrowReceiver.verified(narrow.secret).map((entry) => entry.payload.type);
            assert.deepEqual(narrowTypes, ['venue.created', 'event.deleted']);

            const log = await h().request('GET', `/webhooks/${hook.id}/deliveries`, { as: admin() });
            assert.equal(log.statusCode, 200);
            assert.equal(log.json().length, changes.length);
            assert.ok(
              log
                .json()
                .every(
                  (entry: { status: string; delivery_status: string; response_code: number }) =>
                    entry.status === 'succeeded' &&
                    entry.delivery_status === 'succeeded' &&
                    entry.response_code === 200,
                ),
            );
          },
        );
      } finally {
        await h().request('DELETE', `/webhooks/${narrow.id}`, { as: admin() });
        await narrowReceiver.close();
      }
    });

    it('500 twice then 200: three attempts with growing delays (fake clock), the same webhook-id each time', async () => {
      let fakeNow = Date.now();
      await withSubscription(
        (n) => (n < 2 ? 500 : 200),
        { now: () => fakeNow },
        async ({ receiver, hook, worker }) => {
          const event = await createEvent('Retried');
          assert.equal(await worker.runOnce(), 1);
          assert.equal(receiver.received.length, 1);
          const delivery = () =>
            h()
              .store.db.selectFrom('webhook_deliveries')
              .selectAll()
              .where('webhook_id', '=', hook.id)
              .executeTakeFirstOrThrow();
          const first = await delivery();
          assert.equal(first.status, 'pending');
          const firstDelay = Number(first.next_attempt_ms) - fakeNow;
          assert.ok(firstDelay >= 4_500 && firstDelay <= 5_500, String(firstDelay));
          // Not due yet: nothing is sent.
          fakeNow += 4_000;
          assert.equal(await worker.runOnce(), 0);
          fakeNow = Number(first.next_attempt_ms);
          assert.equal(await worker.runOnce(), 1);
          const second = await delivery();
          const secondDelay = Number(second.next_attempt_ms) - fakeNow;
          assert.ok(secondDelay >= 54_000 && secondDelay <= 66_000, String(secondDelay));
          fakeNow = Number(second.next_attempt_ms);
          assert.equal(await worker.runOnce(), 1);
          assert.equal((await delivery()).status, 'succeeded');
          assert.equal(await worker.runOnce(), 0);

          const verified = receiver.verified(hook.secret);
          assert.equal(verified.length, 3);
          assert.equal(new Set(verified.map((entry) => entry.id)).size, 1);
          assert.ok(
            verified.every((entry) => entry.payload.type === 'event.created' && entry.payload.data.id === event.id),
          );
          const gaps = [verified[1].timestamp - verified[0].timestamp, verified[2].timestamp - verified[1].timestamp];
          assert.ok(gaps[0] >= 4 && gaps[1] > gaps[0], JSON.stringify(gaps));
          const log = (await h().request('GET', `/webhooks/${hook.id}/deliveries`, { as: admin() })).json();
          assert.deepEqual(
            log.map((entry: { response_code: number }) => entry.response_code),
            [200, 500, 500],
          );
          assert.deepEqual(
            log.map((entry: { attempt: number }) => entry.attempt),
            [3, 2, 1],
          );
        },
      );
    });

    it('a receiver that hangs is cut at the timeout (10 s by default; 300 ms here) and retried later', {
      timeout: HANG_GUARD_MS,
    }, async () => {
      assert.equal(new WebhookWorker(h().store, h().config).timeoutMs, 10_000);
      await withSubscription(
        () => 'hang',
        { timeoutMs: 300 },
        async ({ receiver, hook, worker }) => {
          await createEvent('Hanging');
          // The receiver never answers: the run ends only because the attempt is cut.
          assert.equal(await worker.runOnce(), 1);
          assert.equal(receiver.received.length, 1);
          const [attempt] = (await h().request('GET', `/webhooks/${hook.id}/deliveries`, { as: admin() })).json();
          assert.equal(attempt.status, 'failed');
          assert.equal(attempt.delivery_status, 'pending');
          assert.equal(attempt.response_code, null);
          assert.match(attempt.error, /300 ms/);
          assert.ok(Number.isInteger(attempt.duration_ms), String(attempt.duration_ms));
          assert.ok(attempt.next_attempt);
        },
      );
    });

    it('redirects are not followed, answers beyond 1 KiB are not stored, a later change of an item waits for the earlier one', async () => {
      const behaviour: Behaviour = (n) =>
        n === 0
          ? { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }
          : { status: 200, body: 'x'.repeat(5000) };
      let fakeNow = Date.now();
      await withSubscription(behaviour, { now: () => fakeNow }, async ({ receiver, hook, worker }) => {
        const event = await createEvent('Ordered');
        await h().request('PATCH', `/events/${event.id}`, { as: admin(), body: { title: 'Ordered 2' } });
        // The create fails (302); its update must not overtake it.
        assert.equal(await worker.runOnce(), 1);
        assert.equal(receiver.received.length, 1);
        fakeNow += 6_000;
        assert.equal(await worker.runOnce(), 2);
        const types = receiver.verified(hook.secret).map((entry) => entry.payload.type);
        assert.deepEqual(types, ['event.created', 'event.created', 'event.updated']);
        const log = (await h().request('GET', `/webhooks/${hook.id}/deliveries`, { as: admin() })).json();
        const redirected = log.find((entry: { response_code: number }) => entry.response_code === 302);
        assert.match(redirected.error, /redirect/);
        const big = log.find((entry: { response_code: number }) => entry.response_code === 200);
        assert.equal(big.response_body.length, 1024);
      });
    });

    it("a paused subscription's retries wait until it is resumed", async () => {
      let fakeNow = Date.now();
      await withSubscription(
        (n) => (n === 0 ? 500 : 200),
        { now: () => fakeNow },
        async ({ receiver, hook, worker }) => {
          await createEvent('Paused retry');
          assert.equal(await worker.runOnce(), 1);
          await h().request('PATCH', `/webhooks/${hook.id}`, { as: admin(), body: { active: false } });
          fakeNow += 10_000;
          assert.equal(await worker.runOnce(), 0);
          await h().request('PATCH', `/webhooks/${hook.id}`, { as: admin(), body: { active: true } });
          assert.equal(await worker.runOnce(), 1);
          assert.equal(receiver.received.length, 2);
        },
      );
    });

    it('a paused subscription gets nothing; a deleted one takes its deliveries with it', async () => {
      await withSubscription(
        () => 200,
        {},
        async ({ receiver, hook, worker }) => {
          await h().request('PATCH', `/webhooks/${hook.id}`, { as: admin(), body: { active: false } });
          await createEvent('Unheard');
          await worker.runOnce();
          assert.equal(receiver.received.length, 0);
          await h().request('PATCH', `/webhooks/${hook.id}`, { as: admin(), body: { active: true } });
          await worker.runOnce();
          assert.equal(receiver.received.length, 0);
          await createEvent('Heard');
          await worker.runOnce();
          assert.equal(receiver.received.length, 1);
        },
      );
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: '1' },
);
