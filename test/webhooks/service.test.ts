// D27 in a real service process (`node src/main.ts`, the worker inline on SQLite, in its own thread on PostgreSQL):
// what depends on how the process runs. It runs with --max-http-header-size raised, as an operator whose clients send
// large headers would run it: the webhook answers' header limit must not follow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from '../helpers/harness.ts';
import { startService, stopService, waitForHealth, type Started } from '../helpers/service-process.ts';
import { startReceiver, type Receiver } from './receiver.ts';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`Webhooks in a service process [${database}]`, {
    skip: database === 'postgres' && !POSTGRES_AVAILABLE ? 'PostgreSQL does not answer' : false,
  }, () => {
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
      return { status: response.status, json: (await response.json()) as any };
    };

    /** The subscription's delivery log once it has `count` attempts (newest first). */
    const attempts = async (hookId: number, count: number) => {
      let log: any[] = [];
      await eventually(
        async () => {
          log = (await call('GET', `/webhooks/${hookId}/deliveries`)).json;
          return log.length >= count;
        },
        `${count} attempts are recorded`,
        () => `${JSON.stringify(log)}\n${service.output()}`,
      );
      return log;
    };

    /** The service's log lines, as JSON. */
    const logLines = () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const logged = async (predicate: (line: Record<string, unknown>) => boolean) => {
      await eventually(() => logLines().some(predicate), 'the line is logged', service.output);
      return logLines().find(predicate)!;
    };

    before(async () => {
      harness = await createHarness(database);
      authorization = harness.users.administrator.authorization;
      receiver = await startReceiver();
      const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --max-http-header-size=${256 * 1024}`.trim();
      service = await startService({
        ...harness.serviceEnv(),
        WEBHOOKS_ALLOW_PRIVATE: '1',
        WEBHOOKS_POLL_MS: '100',
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: nodeOptions,
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
        const failed = await logged(
          (line) => line.webhook_id === hook.json.id && line.msg === 'webhook delivery attempt failed',
        );
        assert.equal(failed.error_code, 'HPE_HEADER_OVERFLOW');
      } finally {
        await call('DELETE', `/webhooks/${hook.json.id}`);
      }
    });

    it('logs each failed attempt and the give-up at warn, with the ids, the attempt and the status, never the secret or the payload', async () => {
      receiver.behaviour = () => 503;
      const hook = await call('POST', '/webhooks', { url: receiver.url, events: ['venue.created'] });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      const venueName = 'Logged hall 7f3c';
      try {
        assert.equal((await call('POST', '/venues', { venue: venueName })).status, 201);
        const failed = await logged(
          (line) => line.webhook_id === hook.json.id && line.msg === 'webhook delivery attempt failed',
        );
        const [delivery] = await harness.store.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('webhook_id', '=', hook.json.id)
          .execute();
        assert.equal(failed.delivery_id, Number(delivery.id));
        const isOurs = (line: Record<string, unknown>) =>
          line.webhook_id === hook.json.id && line.delivery_id === Number(delivery.id);
        assert.equal(failed.level, 40, 'warn');
        assert.equal(failed.attempt, 1);
        assert.equal(failed.status, 503);
        assert.equal(failed.error_code, null);
        assert.match(String(failed.retry_at), /^\d{4}-\d{2}-\d{2}T/);

        // Its first attempt four days ago: the next failure is the last.
        await harness.store.db
          .updateTable('webhook_deliveries')
          .set({ created_ms: Date.now() - 4 * 24 * 3_600_000, next_attempt_ms: 0 })
          .where('id', '=', delivery.id)
          .execute();
        const givenUp = await logged((line) => isOurs(line) && line.msg === 'webhook delivery given up');
        assert.equal(givenUp.level, 40, 'warn');
        assert.equal(givenUp.attempt, 2);
        assert.equal(givenUp.status, 503);
        const lastAttempt = logLines().find(
          (line) => isOurs(line) && line.msg === 'webhook delivery attempt failed' && line.attempt === 2,
        );
        assert.equal(lastAttempt?.retry_at, null, 'the last failed attempt is logged too, with no retry');

        const output = service.output();
        assert.ok(
          !output.includes(hook.json.secret) && !output.includes(hook.json.secret.slice(6)),
          'the signing secret is never logged',
        );
        assert.ok(!output.includes(venueName), 'the payload is never logged');
      } finally {
        await call('DELETE', `/webhooks/${hook.json.id}`);
      }
    });

    it("logs a failed attempt that got no answer with the network error's code", async () => {
      const closed = await startReceiver();
      const url = closed.url;
      await closed.close();
      const hook = await call('POST', '/webhooks', { url, events: ['venue.created'] });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      try {
        assert.equal((await call('POST', '/venues', { venue: 'Unreachable hall' })).status, 201);
        const failed = await logged(
          (line) => line.webhook_id === hook.json.id && line.msg === 'webhook delivery attempt failed',
        );
        assert.equal(failed.level, 40);
        assert.equal(failed.attempt, 1);
        assert.equal(failed.status, null);
        assert.equal(failed.error_code, 'ECONNREFUSED');
      } finally {
        await call('DELETE', `/webhooks/${hook.json.id}`);
      }
    });
  });
}
