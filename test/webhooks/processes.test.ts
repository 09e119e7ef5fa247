// D27 across real service processes: two processes on one PostgreSQL database deliver each change once; a process
// killed (SIGKILL) right after acknowledging a write still gets that change delivered once a process runs again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, HANG_GUARD_MS } from '../helpers/eventually.ts';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from '../helpers/harness.ts';
import {
  describeOnTwoProcesses,
  startService,
  stopService,
  waitForHealth,
  type Started,
} from '../helpers/service-process.ts';
import { startReceiver, sleep, type Receiver } from './receiver.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_POLL_MS: '100', LOG_LEVEL: 'warn' };
/** Only against a hang: starting two processes and waiting for each can take a busy machine minutes. */
const PROCESSES_TEST_TIMEOUT_MS = 5 * HANG_GUARD_MS;

async function call(service: Started, authorization: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${service.port}/calendar/events/v1${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
}

describeOnTwoProcesses(
  'Webhooks: two service processes on one PostgreSQL database deliver each change once',
  (h, services) => {
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
    });

    it('every change arrives exactly once', async () => {
      const auth = h().users.administrator.authorization;
      const [one, two] = services();
      const hook = await call(one, auth, 'POST', '/webhooks', { url: receiver.url, events: ['*'] });
      assert.equal(hook.status, 201, JSON.stringify(hook.json));
      const writes = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          call(index % 2 === 0 ? one : two, auth, 'POST', '/venues', { venue: `Hall ${index}` }),
        ),
      );
      assert.ok(writes.every((write) => write.status === 201));
      await receiver.waitFor((received) => received.length >= 30);
      await sleep(1_000);
      const verified = receiver.verified(hook.json.secret);
      assert.equal(verified.length, 30);
      assert.equal(new Set(verified.map((entry) => entry.id)).size, 30);
      assert.deepEqual(
        new Set(verified.map((entry) => entry.payload.data.id)),
        new Set(writes.map((write) => write.json.id)),
      );
    });
  },
  ENV,
);

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`Webhooks: a write acknowledged before a kill -9 is still delivered [${database}]`, {
    skip: database === 'postgres' && !POSTGRES_AVAILABLE ? 'PostgreSQL does not answer' : false,
  }, () => {
    let harness: Harness;
    let receiver: Receiver;
    const started: Started[] = [];
    before(async () => {
      harness = await createHarness(database);
      // Nothing is acknowledged by the receiver before the kill: only a process running after it can deliver.
      let killed = false;
      receiver = await startReceiver(() => (killed ? 200 : 503));
      (receiver as Receiver & { markKilled: () => void }).markKilled = () => {
        killed = true;
      };
    });
    after(async () => {
      // A killed process has exited already (stopService waits for an exit only a live one still has to make).
      for (const service of started)
        if (service.child.exitCode === null && service.child.signalCode === null) await stopService(service);
      await receiver.close();
      await harness.close();
    });

    it('delivers the change after a restart', { timeout: PROCESSES_TEST_TIMEOUT_MS }, async () => {
      const auth = harness.users.administrator.authorization;
      const env = { ...harness.serviceEnv(), ...ENV };
      const first = await startService(env);
      started.push(first);
      assert.equal(await waitForHealth(first), 200);
      const hook = await call(first, auth, 'POST', '/webhooks', { url: receiver.url, events: ['venue.created'] });
      assert.equal(hook.status, 201);
      const venue = await call(first, auth, 'POST', '/venues', { venue: 'Survivor hall' });
      assert.equal(venue.status, 201);
      first.child.kill('SIGKILL');
      await new Promise((resolve) =>
        first.child.exitCode !== null || first.child.signalCode !== null
          ? resolve(null)
          : first.child.once('exit', resolve),
      );
      (receiver as Receiver & { markKilled: () => void }).markKilled();

      const second = await startService(env);
      started.push(second);
      assert.equal(await waitForHealth(second), 200);
      // Only the restarted process can get a 2xx (the receiver answered 503 until the kill); the delivery log says so.
      await receiverSucceeded(second, auth, hook.json.id);
      const verified = receiver.verified(hook.json.secret);
      assert.ok(verified.length >= 1);
      assert.ok(
        verified.every((entry) => entry.payload.type === 'venue.created' && entry.payload.data.id === venue.json.id),
      );
      assert.equal(new Set(verified.map((entry) => entry.id)).size, 1);
    });
  });
}

/** Waits until the delivery log records a success. */
async function receiverSucceeded(service: Started, auth: string, id: number): Promise<void> {
  let log: unknown;
  await eventually(
    async () => {
      log = (await call(service, auth, 'GET', `/webhooks/${id}/deliveries`)).json;
      return (log as Array<{ status: string }>).some((entry) => entry.status === 'succeeded');
    },
    'the delivery log records a success',
    () => JSON.stringify(log),
  );
}

describe('Webhooks: SIGTERM lets the attempt in flight finish and be recorded', () => {
  it('records the slow answer before exiting', { timeout: PROCESSES_TEST_TIMEOUT_MS }, async () => {
    const harness = await createHarness('sqlite');
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 1_500 }));
    try {
      const auth = harness.users.administrator.authorization;
      const service = await startService({ ...harness.serviceEnv(), ...ENV });
      assert.equal(await waitForHealth(service), 200);
      const hook = await call(service, auth, 'POST', '/webhooks', { url: receiver.url, events: ['*'] });
      await call(service, auth, 'POST', '/venues', { venue: 'Graceful hall' });
      await receiver.waitFor((received) => received.length === 1);
      await stopService(service);
      assert.equal(service.child.exitCode, 0, service.output());
      const rows = await harness.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', hook.json.id)
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.status, row.attempts, Number(row.lease_until_ms)]),
        [['succeeded', 1, 0]],
      );
    } finally {
      await receiver.close();
      await harness.close();
    }
  });
});
