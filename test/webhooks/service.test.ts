// D27 in a real service process (`node src/main.ts`, the worker inline on SQLite, in its own thread on PostgreSQL):
// what depends on how the process runs. It runs with --max-http-header-size raised, as an operator whose clients send
// large headers would run it: the webhook answers' header limit must not follow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from '../helpers/harness.ts';
import { startService, stopService, waitForHealth, type Started } from '../helpers/service-process.ts';
import { startReceiver, sleep, type Receiver } from './receiver.ts';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`Webhooks in a service process [${database}]`, { skip: database === 'postgres' && !POSTGRES_AVAILABLE ? 'PostgreSQL does not answer' : false }, () => {
    let harness: Harness;
    let receiver: Receiver;
    let service: Started;
    let authorization: string;

    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${service.port}/calendar/events/v1${path}`, {
        method,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() as any };
    };

    /** The subscription's delivery log once it has `count` attempts (newest first). */
    const attempts = async (hookId: number, count: number) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const log = await call('GET', `/webhooks/${hookId}/deliveries`);
        if (log.json.length >= count) return log.json;
        if (Date.now() > deadline) throw new Error(`fewer than ${count} attempts recorded: ${JSON.stringify(log.json)}\n${service.output()}`);
        await sleep(50);
      }
    };

    before(async () => {
      harness = await createHarness(database);
      authorization = harness.users.administrator.authorization;
      receiver = await startReceiver();
      const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --max-http-header-size=${256 * 1024}`.trim();
      service = await startService({
        ...harness.serviceEnv(), WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_POLL_MS: '100', LOG_LEVEL: 'warn', NODE_OPTIONS: nodeOptions,
      });
      assert.equal(await waitForHealth(service), 200);
    });
    after(async () => {
      if (service) await stopService(service);
      await receiver?.close();
      await harness?.close();
    });

    it('an answer with more than 16 KiB of headers fails the attempt, whatever the process allows', async () => {
      receiver.behaviour = () => ({ status: 200, headers: { 'x-padding': 'a'.repeat(32 * 1024) } });
      const hook = await call('POST', '/webhooks', { url: receiver.url, events: ['venue.created'] });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      try {
        assert.equal((await call('POST', '/venues', { venue: 'Header hall' })).status, 201);
        const [attempt] = await attempts(hook.json.id, 1);
        assert.equal(attempt.status, 'failed', JSON.stringify(attempt));
        assert.equal(attempt.delivery_status, 'pending');
        assert.equal(attempt.response_code, null);
        assert.match(attempt.error, /header/i);
      } finally {
        await call('DELETE', `/webhooks/${hook.json.id}`);
      }
    });
  });
}
