// Cluster mode (WORKERS>1): a real `node src/main.ts` whose primary forks two workers on one port and one database.
// Which worker answered is read from the request log lines (LOG_LEVEL=debug logs every request with its pid), so the
// service needs no header of its own for it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { eventually } from './helpers/eventually.ts';
import { basicAuth, createHarness, POSTGRES_AVAILABLE, type Harness } from './helpers/harness.ts';
import { startService, stopService, waitForHealth, type Started } from './helpers/service-process.ts';

const ADMIN = { ADMIN_USER: 'cluster-admin', ADMIN_PASSWORD: 'cluster admin password' };
const authorization = basicAuth(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD);
const API = '/calendar/events/v1';
/** The write load of the WORKERS=4 test: enough writes to meet the lock race about once before writes began IMMEDIATE. */
const CLIENTS = 20;
const WRITES_PER_CLIENT = 25;
/** A day inside the default window of GET /events (today to two years ahead). */
const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

describe('WORKERS configuration', () => {
  it('defaults to 1 and takes 1–64 or auto', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ WORKERS: '3' }).workers, 3);
    assert.ok(loadConfig({ WORKERS: 'auto' }).workers >= 1);
    for (const WORKERS of ['0', '65', 'two', '1.5']) {
      assert.throws(
        () => loadConfig({ WORKERS }),
        (error) => error instanceof ConfigError && error.variable === 'WORKERS',
        WORKERS,
      );
    }
  });
});

/** The pids of the primary's children: its workers (the webhook worker is a thread, not a process). */
function workerPids(primary: number): number[] {
  try {
    return execFileSync('ps', ['--ppid', String(primary), '-o', 'pid='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

/** GET on a connection of its own (no keep-alive pool): the status code. */
function statusOnNewConnection(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(target, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const logLines = (started: Started) =>
  started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const listening = (started: Started) =>
  logLines(started).filter((line) => String(line.msg).startsWith('API root:')).length;
/** The pids that logged a completed request. */
const answeredBy = (started: Started) =>
  new Set(
    logLines(started)
      .filter((line) => line.msg === 'request completed')
      .map((line) => line.pid as number),
  );

function clusterSuite(
  database: 'sqlite' | 'postgres',
  serviceEnv: () => Promise<{ env: Record<string, string>; cleanUp: () => Promise<void> }>,
) {
  describe(`cluster mode, WORKERS=2 [${database}]`, {
    skip: database === 'postgres' && !POSTGRES_AVAILABLE ? 'PostgreSQL does not answer' : false,
  }, () => {
    let started: Started;
    let cleanUp = async () => {};
    let workers: number[] = [];
    const url = (path: string) => `http://127.0.0.1:${started.port}${path}`;

    before(async () => {
      const prepared = await serviceEnv();
      cleanUp = prepared.cleanUp;
      started = await startService({ ...prepared.env, ...ADMIN, WORKERS: '2', LOG_LEVEL: 'debug' });
      assert.equal(await waitForHealth(started), 200);
      await eventually(() => listening(started) === 2, 'both workers listen', started.output);
      workers = workerPids(started.child.pid!);
    });
    after(async () => {
      await stopService(started);
      for (const pid of workerPids(started.child.pid!)) process.kill(pid, 'SIGKILL');
      await cleanUp();
    });

    it('forks two workers, after logging how many', () => {
      assert.equal(workers.length, 2, started.output());
      assert.ok(
        logLines(started).some((line) => line.pid === started.child.pid && line.workers === 2),
        started.output(),
      );
    });

    it('lands 40 concurrent creates through both workers, with no 5xx, and lists them all', async () => {
      const titles = Array.from({ length: 40 }, (_, index) => `Cluster ${database} ${index}`);
      const answers = await Promise.all(
        titles.map(async (title) => {
          const response = await fetch(url(`${API}/events`), {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json' },
            body: JSON.stringify({
              title,
              start_date: `${IN_A_MONTH} 10:00:00`,
              end_date: `${IN_A_MONTH} 12:00:00`,
              status: 'publish',
            }),
          });
          return { status: response.status, body: await response.text() };
        }),
      );
      for (const answer of answers) assert.equal(answer.status, 201, answer.body);
      // A worker logs a request once it has sent the answer: the line may come after the client has it.
      await eventually(
        () => workers.every((pid) => answeredBy(started).has(pid)),
        'both workers answered',
        started.output,
      );

      const list = await fetch(url(`${API}/events?per_page=100`));
      assert.equal(list.status, 200);
      const listed = ((await list.json()) as { events: Array<{ title: string }> }).events.map((event) => event.title);
      assert.deepEqual(listed.sort(), [...titles].sort());
    });

    it('replaces a worker killed with SIGKILL and keeps answering', async () => {
      const [killed, survivor] = workers;
      process.kill(killed, 'SIGKILL');
      await eventually(
        () => {
          const now = workerPids(started.child.pid!);
          return now.length === 2 && !now.includes(killed) && now.includes(survivor);
        },
        'a new worker replaces the killed one',
        started.output,
      );
      // Each on a new connection: an idle keep-alive connection to the killed worker is gone with it, and fetch may
      // not have read its close yet (nothing above yields to the event loop), which is the client's lot, not ours.
      for (let request = 0; request < 10; request++) assert.equal(await statusOnNewConnection(url('/health')), 200);
      await eventually(() => listening(started) === 3, 'the new worker listens', started.output);
      assert.match(started.output(), /a worker died; starting another/);
      workers = workerPids(started.child.pid!);
    });

    it('exits 0 on SIGTERM once its workers have exited, leaving none behind', async () => {
      const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
      started.child.kill('SIGTERM');
      assert.equal(await exited, 0, started.output());
      for (const pid of workers) assert.equal(isAlive(pid), false, `worker ${pid} outlived the primary`);
    });
  });
}

clusterSuite('sqlite', async () => {
  // A fresh file: the primary creates and migrates it before the workers open it.
  const directory = mkdtempSync(join(tmpdir(), 'calendar-events-cluster-'));
  return {
    env: { DATABASE_URL: join(directory, 'cluster.db') },
    cleanUp: async () => rmSync(directory, { recursive: true, force: true }),
  };
});

clusterSuite('postgres', async () => {
  const harness: Harness = await createHarness('postgres');
  return { env: harness.serviceEnv(), cleanUp: () => harness.close() };
});

describe('cluster mode, workers that cannot start', () => {
  it('stops restarting them after 5 crashes within a minute and exits non-zero', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'calendar-events-cluster-'));
    // An address of TEST-NET-1, which no interface of this machine has: every worker's listen fails. Five workers
    // make the five crashes come at once.
    const started = await startService({
      DATABASE_URL: join(directory, 'cluster.db'),
      WORKERS: '5',
      HOST: '192.0.2.1',
    });
    try {
      const code = await new Promise<number | null>((resolve) =>
        started.child.once('exit', (exitCode) => resolve(exitCode)),
      );
      assert.equal(code, 1, started.output());
      assert.match(started.output(), /5 workers died within 60 s; stopping the service/);
    } finally {
      await stopService(started);
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('cluster mode, WORKERS=4 on one SQLite file under a steady write load', () => {
  it('answers every create and update (each write transaction takes the write lock first: no write fails its race)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'calendar-events-cluster-'));
    const started = await startService({
      DATABASE_URL: join(directory, 'cluster.db'),
      ...ADMIN,
      WORKERS: '4',
      LOG_LEVEL: 'debug',
    });
    try {
      assert.equal(await waitForHealth(started), 200);
      await eventually(() => listening(started) === 4, 'the four workers listen', started.output);
      const workers = workerPids(started.child.pid!);
      const url = (path: string) => `http://127.0.0.1:${started.port}${API}${path}`;
      const headers = { authorization, 'content-type': 'application/json' };
      const write = async (path: string, method: string, body: Record<string, unknown>) => {
        const response = await fetch(url(path), { method, headers, body: JSON.stringify(body) });
        return { status: response.status, body: await response.text() };
      };
      const event = (title: string) => ({
        title,
        start_date: `${IN_A_MONTH} 10:00:00`,
        end_date: `${IN_A_MONTH} 12:00:00`,
        status: 'publish',
        categories: ['Shared'],
      });
      const shared: number[] = [];
      for (let index = 0; index < 5; index++)
        shared.push(JSON.parse((await write('/events', 'POST', event(`Shared ${index}`))).body).id);
      // Twenty clients of 25 writes each, creates (with the same category: its stored count) and renames of five
      // shared events, through four processes. Before writes began IMMEDIATE, about one write in 400 lost the race
      // for the lock eight times in a row and answered 500.
      const failures: string[] = [];
      const created: string[] = [];
      const renamed = new Map<number, Set<string>>(shared.map((id) => [id, new Set<string>()]));
      let writes = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let round = 0; round < WRITES_PER_CLIENT; round++) {
            const number = writes++;
            const id = shared[number % shared.length];
            const title = number % 2 === 0 ? `Load ${number}` : `Renamed ${number}`;
            const answer =
              number % 2 === 0
                ? await write('/events', 'POST', event(title))
                : await write(`/events/${id}`, 'PATCH', { title });
            if (answer.status >= 300) failures.push(`${answer.status} ${answer.body}`);
            else if (number % 2 === 0) created.push(title);
            else renamed.get(id)!.add(title);
          }
        }),
      );
      assert.equal(writes, CLIENTS * WRITES_PER_CLIENT);
      assert.deepEqual(failures, [], `${failures.length} of ${writes} writes failed`);
      assert.ok(
        workers.every((pid) => answeredBy(started).has(pid)),
        `all four workers answered: ${JSON.stringify([...answeredBy(started)])}`,
      );

      // Every write is visible: each create is listed, in the shared category whose stored count has them all, and
      // each shared event bears one of the titles it was given.
      const [category] = (
        (await (await fetch(url('/categories?search=Shared'))).json()) as {
          categories: Array<{ id: number; count: number }>;
        }
      ).categories;
      assert.equal(category.count, shared.length + created.length);
      const listed: string[] = [];
      for (let page = 1; ; page++) {
        const response = await fetch(url(`/events?categories=${category.id}&per_page=100&page=${page}`));
        assert.equal(response.status, 200);
        listed.push(
          ...((await response.json()) as { events: Array<{ title: string }> }).events.map(
            (listedEvent) => listedEvent.title,
          ),
        );
        if (page >= Number(response.headers.get('x-wp-totalpages'))) break;
      }
      assert.deepEqual(listed.filter((title) => title.startsWith('Load ')).sort(), [...created].sort());
      for (const id of shared) {
        const current = (await (await fetch(url(`/events/${id}`))).json()) as { title: string };
        assert.ok(renamed.get(id)!.has(current.title), `event ${id} is "${current.title}", one of its renames`);
      }
    } finally {
      await stopService(started);
      for (const pid of workerPids(started.child.pid!)) process.kill(pid, 'SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
