// D27: a large backlog of deliveries waiting in retry backoff (subscriptions whose receivers are dead) is not walked
// by the worker: the deliveries due beside it are still claimed, in order per item, and the backlog's plan is by index.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery, type Insertable, type KyselyPlugin } from 'kysely';
import type { WebhookDeliveriesTable } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/store.ts';
import { WebhookWorker } from '../../src/core/webhooks/worker.ts';
import type { Sender, SendResult } from '../../src/core/webhooks/send.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

const BACKLOG = 20_000;
const HOUR_MS = 60 * 60 * 1000;

describeEachDatabase(
  'Webhooks: a backlog in retry backoff',
  (h) => {
    const admin = () => h().users.administrator;
    const nowMs = Date.now();

    async function subscribe(url: string): Promise<number> {
      const response = await h().request('POST', '/webhooks', { as: admin(), body: { url, events: ['*'] } });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().id;
    }

    const delivery = (
      webhookId: number,
      seq: number,
      itemId: number,
      nextAttemptMs: number,
    ): Insertable<WebhookDeliveriesTable> => ({
      webhook_id: webhookId,
      seq,
      msg_id: `msg_${seq}_${webhookId}`,
      event_type: 'event.updated',
      item_type: 'event',
      item_id: itemId,
      payload: JSON.stringify({ type: 'event.updated', data: { id: itemId } }),
      status: 'pending',
      attempts: 0,
      next_attempt_ms: nextAttemptMs,
      lease_until_ms: 0,
      lease_token: '',
      created_ms: nowMs - HOUR_MS,
    });

    async function insert(rows: Insertable<WebhookDeliveriesTable>[]) {
      for (let start = 0; start < rows.length; start += 500) {
        await h()
          .store.db.insertInto('webhook_deliveries')
          .values(rows.slice(start, start + 500))
          .execute();
      }
    }

    /** A store whose queries on webhook_deliveries are recorded (compiled), to be explained afterwards. */
    function recording(queries: CompiledQuery[]): Store {
      const store = h().store;
      const plugin: KyselyPlugin = {
        transformQuery(args) {
          const compiled = store.db.getExecutor().compileQuery(args.node, args.queryId);
          if (/^select .* from "webhook_deliveries"/is.test(compiled.sql)) queries.push(compiled);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      return {
        ...store,
        db: store.db.withPlugin(plugin),
        transaction: (work) => store.transaction((trx) => work(trx.withPlugin(plugin))),
      };
    }

    it('claims the few due deliveries beside 20,000 not due, in order per item, and never one behind an earlier pending one', async () => {
      const dead = await subscribe('http://127.0.0.1:1/dead');
      const live = await subscribe('http://127.0.0.1:2/live');
      try {
        // The dead receiver's backlog: every delivery retried in an hour, some items with several.
        await insert(
          Array.from({ length: BACKLOG }, (_, i) => delivery(dead, 1_000_000 + i, 1 + (i % 5_000), nowMs + HOUR_MS)),
        );
        // Due: item 1 three times, item 2 once; item 3's update waits for its create (in backoff); so does the dead
        // subscription's later delivery of an item whose earlier one is in its backlog.
        const base = 2_000_000;
        await insert([
          delivery(live, base + 1, 1, nowMs - 3_000),
          delivery(live, base + 2, 2, nowMs - 2_000),
          delivery(live, base + 3, 1, nowMs - 5_000),
          delivery(live, base + 4, 3, nowMs + HOUR_MS),
          delivery(live, base + 5, 3, nowMs - 10_000),
          delivery(live, base + 6, 1, nowMs - 1_000),
          delivery(dead, base + 7, 42, nowMs - 10_000),
        ]);
        const sent: string[] = [];
        const send = async (request: Parameters<Sender>[0]): Promise<SendResult> => {
          sent.push(request.headers['webhook-id']);
          return { ok: true, status: 200, durationMs: 1, error: '', body: '' };
        };
        const queries: CompiledQuery[] = [];
        const worker = new WebhookWorker(recording(queries), h().config, { now: () => nowMs, send, pollMs: 60_000 });
        assert.equal(await worker.runOnce(), 4);
        // Batches: 1 and 2 (3 and 6 wait for 1), then 3, then 6: item 1's deliveries in seq order although 3 was due first.
        assert.deepEqual(
          sent,
          [1, 2, 3, 6].map((n) => `msg_${base + n}_${live}`),
        );
        const pending = await h()
          .store.db.selectFrom('webhook_deliveries')
          .select(({ fn }) => fn.countAll<number>().as('count'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        assert.equal(Number(pending.count), BACKLOG + 3, "the backlog, item 3's two deliveries and the dead item 42's");
        assert.equal(await worker.runOnce(), 0);

        if (h().database === 'sqlite') {
          let explained = 0;
          for (const query of queries) {
            const plan = (
              await h().store.db.executeQuery(
                CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
              )
            ).rows.map((row) => (row as { detail: string }).detail);
            if (!/"next_attempt_ms" <=/.test(query.sql)) continue;
            assert.ok(
              plan.some((step) => step.includes('webhook_deliveries_next_attempt')),
              plan.join('\n'),
            );
            assert.ok(!plan.some((step) => /^SCAN (webhook_deliveries|d|e)\b/.test(step)), plan.join('\n'));
            explained += 1;
          }
          assert.ok(explained >= 2, 'the probe and the claim');
        }
      } finally {
        await h().request('DELETE', `/webhooks/${dead}`, { as: admin() });
        await h().request('DELETE', `/webhooks/${live}`, { as: admin() });
      }
    });

    it('once the backlog comes due (the receiver is back), a claim takes a batch of the longest due among the first pending delivery of each item', async () => {
      const hook = await subscribe('http://127.0.0.1:1/back');
      try {
        // Four deliveries of each of 5,000 items, the later ones due earlier (retried less often).
        await insert(
          Array.from({ length: BACKLOG }, (_, i) =>
            delivery(hook, 3_000_000 + i, 1 + (i % 5_000), nowMs - HOUR_MS - i),
          ),
        );
        const worker = new WebhookWorker(h().store, h().config, { now: () => nowMs, batchSize: 50 });
        const claimed = await worker.claim();
        const seqs = claimed.map((row) => Number(row.msg_id.split('_')[1]) - 3_000_000);
        // Only the first 5,000 are first of their item; of those, the longest due, returned in seq order.
        assert.deepEqual(
          seqs,
          Array.from({ length: 50 }, (_, i) => 4_950 + i),
        );
      } finally {
        await h().request('DELETE', `/webhooks/${hook}`, { as: admin() });
      }
    });

    /** The subscription's deliveries of one item, in seq order. */
    const deliveriesOf = async (webhookId: number, itemId: number) =>
      (
        await h()
          .store.db.selectFrom('webhook_deliveries')
          .select(['msg_id', 'seq', 'status', 'attempts', 'next_attempt_ms'])
          .where('webhook_id', '=', webhookId)
          .where('item_id', '=', itemId)
          .orderBy('seq')
          .execute()
      ).map((row) => ({ ...row, seq: Number(row.seq), next_attempt_ms: Number(row.next_attempt_ms) }));

    it("a change queued behind a delivery of its item in retry backoff is not due before that delivery's next attempt; once the receiver is back, they follow it in seq order", async () => {
      const hook = await subscribe('http://127.0.0.1:1/flaky');
      try {
        let up = false;
        const sent: string[] = [];
        const send = async (request: Parameters<Sender>[0]): Promise<SendResult> => {
          sent.push(request.headers['webhook-id']);
          return up
            ? { ok: true, status: 200, durationMs: 1, error: '', body: '' }
            : { ok: false, status: 503, durationMs: 1, error: 'HTTP 503', body: '' };
        };
        let clock = nowMs;
        // No jitter: the retries come exactly 5 s, then 1 min, after a failed attempt.
        const worker = new WebhookWorker(h().store, h().config, {
          now: () => clock,
          random: () => 0.5,
          send,
          pollMs: 60_000,
        });
        /** The updates wait untried, not due before the create's next attempt: a claim just before it reads none. */
        const assertWaitingBehind = async (
          updates: Array<{ status: string; attempts: number; next_attempt_ms: number }>,
          create: { next_attempt_ms: number },
        ) => {
          assert.ok(
            updates.every(
              (row) => row.status === 'pending' && row.attempts === 0 && row.next_attempt_ms >= create.next_attempt_ms,
            ),
            JSON.stringify(updates),
          );
          clock = create.next_attempt_ms - 1;
          assert.deepEqual(await worker.claim(), []);
        };
        const created = await h().request('POST', '/events', {
          as: admin(),
          body: {
            title: 'Queued behind',
            start_date: '2031-01-01 10:00',
            end_date: '2031-01-01 11:00',
            status: 'publish',
          },
        });
        assert.equal(created.statusCode, 201, created.body);
        const itemId: number = created.json().id;
        assert.equal(await worker.runOnce(), 1);
        const [first] = await deliveriesOf(hook, itemId);
        assert.deepEqual([first.status, first.attempts, first.next_attempt_ms], ['pending', 1, nowMs + 5_000]);

        // Three updates while the create is in backoff: enqueued not due before it, so no claim reads them until then.
        clock = nowMs + 1_000;
        for (const title of ['Queued 1', 'Queued 2', 'Queued 3']) {
          const updated = await h().request('PATCH', `/events/${itemId}`, { as: admin(), body: { title } });
          assert.equal(updated.statusCode, 200, updated.body);
        }
        assert.equal(await worker.runOnce(), 0);
        const later = (await deliveriesOf(hook, itemId)).slice(1);
        assert.equal(later.length, 3);
        await assertWaitingBehind(later, first);

        // The create's retry fails again: its next attempt is a minute later, and the updates move with it.
        clock = first.next_attempt_ms;
        assert.equal(await worker.runOnce(), 1);
        const [retried, ...moved] = await deliveriesOf(hook, itemId);
        assert.deepEqual([retried.attempts, retried.next_attempt_ms], [2, clock + 60_000]);
        await assertWaitingBehind(moved, retried);

        // The receiver is back: at the create's retry, it and then each update in turn, in one run.
        up = true;
        clock = retried.next_attempt_ms;
        assert.equal(await worker.runOnce(), 4);
        const all = await deliveriesOf(hook, itemId);
        assert.deepEqual(sent, [first.msg_id, first.msg_id, ...all.map((row) => row.msg_id)]);
        assert.ok(
          all.every((row) => row.status === 'succeeded'),
          JSON.stringify(all),
        );
      } finally {
        await h().request('DELETE', `/webhooks/${hook}`, { as: admin() });
      }
    });

    it('when a delivery succeeds or is given up, the next pending one of its item is due at once, whatever time it was given to wait', async () => {
      const hook = await subscribe('http://127.0.0.1:1/settled');
      try {
        const base = 4_000_000;
        // Item 1's first delivery is due, its later ones wait an hour (behind a backoff that is over, e.g. by another
        // process's clock); so does item 2's second one, behind a first that fails for good (3 days old).
        await insert([
          delivery(hook, base + 1, 1, nowMs - 1_000),
          delivery(hook, base + 2, 1, nowMs + HOUR_MS),
          delivery(hook, base + 3, 1, nowMs + HOUR_MS),
          { ...delivery(hook, base + 4, 2, nowMs - 1_000), created_ms: nowMs - 3 * 24 * HOUR_MS },
          delivery(hook, base + 5, 2, nowMs + HOUR_MS),
        ]);
        const sent: string[] = [];
        const send = async (request: Parameters<Sender>[0]): Promise<SendResult> => {
          sent.push(request.headers['webhook-id']);
          const ok = !request.body.includes('"id":2');
          return { ok, status: ok ? 200 : 503, durationMs: 1, error: ok ? '' : 'HTTP 503', body: '' };
        };
        const worker = new WebhookWorker(h().store, h().config, { now: () => nowMs, send, pollMs: 60_000 });
        assert.equal(await worker.runOnce(), 5);
        // Batches: 1 and 4, then 2 and 5 (due once 1 succeeded and 4 was given up), then 3.
        assert.deepEqual(
          sent,
          [1, 4, 2, 5, 3].map((n) => `msg_${base + n}_${hook}`),
        );
        const statuses = [...(await deliveriesOf(hook, 1)), ...(await deliveriesOf(hook, 2))].map((row) => [
          row.seq - base,
          row.status,
          row.attempts,
        ]);
        assert.deepEqual(statuses, [
          [1, 'succeeded', 1],
          [2, 'succeeded', 1],
          [3, 'succeeded', 1],
          [4, 'failed', 1],
          [5, 'pending', 1],
        ]);
      } finally {
        await h().request('DELETE', `/webhooks/${hook}`, { as: admin() });
      }
    });
  },
  { WEBHOOKS_ALLOW_PRIVATE: '1' },
);
