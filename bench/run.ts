import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { generateAppPassword } from '../src/users/secrets.ts';
import { createAppPassword, createUser } from '../src/users/store.ts';
import type { BenchContext, Scenario, ScenarioModule } from './scenario.ts';
import { seed } from './seed.ts';

const USAGE = `npm run bench -- [--events N] [--database sqlite|postgres] [--duration seconds] [--connections N]
  --events       events to seed (default 10000; 1000000 works)
  --database     sqlite (default) or postgres (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test, schema "bench")
  --duration     seconds per scenario (default 10)
  --connections  concurrent connections (default 10)
  --seed         fresh (default: a first load, indexes built at the end) or live (indexes kept row by row, as an
                 import into a database in use)`;

const { values: options } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    database: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    seed: { type: 'string', default: 'fresh' },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const eventCount = Number(options.events);
const duration = Number(options.duration);
const connections = Number(options.connections);
if (!Number.isInteger(eventCount) || eventCount < 100 || !['sqlite', 'postgres'].includes(options.database!) || !['fresh', 'live'].includes(options.seed!)) {
  console.error(USAGE);
  process.exit(2);
}

const SERVICE_PORT = 8181;
const CEILING_PORT = 8182;
const PG_SCHEMA = 'bench';

async function databaseUrl(): Promise<string> {
  if (options.database === 'sqlite') {
    mkdirSync('bench/data', { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(`bench/data/bench.db${suffix}`, { force: true });
    return 'bench/data/bench.db';
  }
  const base = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`drop schema if exists ${PG_SCHEMA} cascade`);
  await client.query(`create schema ${PG_SCHEMA}`);
  await client.end();
  return `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${PG_SCHEMA}`)}`;
}

/** Started as `npm start` starts the service (same V8 flags), so the numbers are the ones users get. */
function start(script: string, env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`${script} exited with ${code ?? signal}`);
  });
  return child;
}

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer`);
}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
};

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user + system) a process has used, in microseconds: `/proc/<pid>/stat` fields 14 and 15. */
const cpuMicros = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1e6;
};

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** 3xx answers (the 304s of a conditional GET, which autocannon also counts as non-2xx). */
  responses3xx: number;
  errors: number;
  ratioToCeiling: number | null;
  serverRssMb: number | null;
  /**
   * CPU time the serving process spent per answer, in microseconds: what an answer costs, whatever else shares the
   * machine (req/s and latencies move with the load of other processes; this does much less).
   */
  serverCpuUsPerRequest: number;
}

/** A webhook receiver that answers 204 to everything; its base URL. */
async function startWebhookReceiver(): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function main(): Promise<void> {
  const url = await databaseUrl();
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  const store = await openStore(config.database);
  const admin = await createUser(store.db, 'bench', 'administrator');
  const { secret } = generateAppPassword();
  await createAppPassword(store.db, admin.id, 'bench', secret);
  const authorization = `Basic ${Buffer.from(`bench:${secret}`).toString('base64')}`;

  console.log(`Seeding ${eventCount} events on ${options.database} (${options.seed})…`);
  const seeded = await seed(store, eventCount, admin.id, { deferIndexes: options.seed === 'fresh' });
  await store.close();
  console.log(`seeded ${eventCount} events at ${seeded.eventsPerSecond} events/s (${options.seed})`);

  const service = start('src/main.ts', {
    DATABASE_URL: url, PORT: String(SERVICE_PORT), LOG_LEVEL: 'warn', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=1048576',
    // D27: the webhook scenario's receiver listens on 127.0.0.1.
    WEBHOOKS_ALLOW_PRIVATE: '1',
  }, ['--max-semi-space-size=2']);
  const api = `http://127.0.0.1:${SERVICE_PORT}/calendar/events/v1`;
  try {
    await waitFor(`http://127.0.0.1:${SERVICE_PORT}/health`);
    const sample = await (await fetch(`${api}/events?per_page=1`)).json() as { events: Array<{ id: number }> };
    const eventId = sample.events[0].id;
    const singleResponse = await fetch(`${api}/events/${eventId}`);
    const single = await singleResponse.text();
    // D22: the tags of the item and of a list as their 200s send them, for conditional GETs answered 304.
    const singleTag = singleResponse.headers.get('etag')!;
    const authorizedTag = (await fetch(`${api}/events/${eventId}`, { headers: { authorization } })).headers.get('etag')!;
    const listTag = (await fetch(`${api}/events?per_page=50`)).headers.get('etag')!;
    const ceiling = start('bench/ceiling.ts', { PORT: String(CEILING_PORT), BODY_SIZE: String(Buffer.byteLength(single)) });
    try {
      await waitFor(`http://127.0.0.1:${CEILING_PORT}/fixed`);
      // Every created event gets its own title, as real creates do: thousands of identical titles would measure the
      // -2, -3… slug search instead of a create.
      let created = 0;
      const newEvent = () => JSON.stringify({ title: `Bench event ${++created}`, start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 11:00:00', categories: ['jazzs'] });
      const scenarios: Scenario[] = [
        { name: 'ceiling: bare Fastify, fixed body', url: `http://127.0.0.1:${CEILING_PORT}/fixed` },
        { name: 'GET /events/{id}', url: `${api}/events/${eventId}` },
        { name: 'GET /events/{id}, If-None-Match: current tag → 304', url: `${api}/events/${eventId}`, headers: { 'if-none-match': singleTag } },
        { name: 'GET /events/{id} (authenticated) → 200', url: `${api}/events/${eventId}`, authorized: true },
        { name: 'GET /events/{id} (authenticated), If-None-Match → 304', url: `${api}/events/${eventId}`, authorized: true, headers: { 'if-none-match': authorizedTag } },
        { name: 'GET /events (default window, 10)', url: `${api}/events` },
        { name: 'GET /events?categories&search', url: `${api}/events?categories=${seeded.sampleCategory}&search=jazz` },
        { name: 'GET /events?per_page=50', url: `${api}/events?per_page=50` },
        { name: 'GET /events?per_page=50, If-None-Match → 304', url: `${api}/events?per_page=50`, headers: { 'if-none-match': listTag } },
        { name: 'GET /venues', url: `${api}/venues` },
        { name: 'POST /events (authenticated)', url: `${api}/events`, method: 'POST', makeBody: newEvent, authorized: true },
        { name: 'PATCH /events/{id}', url: `${api}/events/${eventId}`, method: 'PATCH', body: JSON.stringify({ title: 'Renamed by the benchmark' }), authorized: true },
        { name: 'GET /events, 1 connection', url: `${api}/events`, connections: 1 },
        // D27: the same creates with ten active webhook subscriptions (deliveries happen after the commit, off the
        // request path, to a receiver in this process that answers 204 at once).
        {
          name: 'POST /events (authenticated), 10 webhook subscriptions', url: `${api}/events`, method: 'POST', makeBody: newEvent, authorized: true,
          setup: async () => {
            const receiverUrl = await startWebhookReceiver();
            for (let index = 0; index < 10; index++) {
              const response = await fetch(`${api}/webhooks`, {
                method: 'POST',
                headers: { authorization, 'content-type': 'application/json' },
                body: JSON.stringify({ url: `${receiverUrl}/${index}`, events: ['event.created', 'event.updated'] }),
              });
              if (response.status !== 201) throw new Error(`webhook subscription: ${response.status} ${await response.text()}`);
            }
          },
        },
      ];
      const context: BenchContext = { api, site: `http://127.0.0.1:${SERVICE_PORT}`, authorization, seeded };
      for (const file of readdirSync(new URL('./scenarios/', import.meta.url)).filter((name) => name.endsWith('.ts')).sort()) {
        const module = await import(new URL(`./scenarios/${file}`, import.meta.url).href) as ScenarioModule;
        scenarios.push(...await module.scenarios(context));
      }
      const results: Measured[] = [];
      let ceilingRate = 0;
      for (const scenario of scenarios) {
        const headers: Record<string, string> = { ...scenario.headers };
        if (scenario.body || scenario.makeBody) headers['content-type'] = 'application/json';
        if (scenario.authorized) headers.authorization = authorization;
        await scenario.setup?.();
        const served = results.length === 0 ? ceiling.pid! : service.pid!;
        const cpuBefore = cpuMicros(served);
        const run = await autocannon({
          url: scenario.url, method: scenario.method ?? 'GET', body: scenario.body, headers,
          ...(scenario.makeBody || scenario.makePath ? {
            requests: [{
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                ...(scenario.makeBody ? { body: scenario.makeBody() } : {}),
                ...(scenario.makePath ? { path: scenario.makePath() } : {}),
              }),
            }],
          } : {}),
          connections: scenario.connections ?? connections, duration,
        });
        const isCeiling = results.length === 0;
        if (isCeiling) ceilingRate = run.requests.average;
        const measured: Measured = {
          name: scenario.name,
          requestsPerSecond: Math.round(run.requests.average),
          p50: run.latency.p50,
          p99: run.latency.p99,
          non2xx: run.non2xx,
          responses3xx: run['3xx'],
          errors: run.errors,
          ratioToCeiling: isCeiling ? 1 : Math.round((run.requests.average / ceilingRate) * 1000) / 1000,
          serverRssMb: isCeiling ? null : rssMb(service.pid!),
          serverCpuUsPerRequest: Math.round((cpuMicros(served) - cpuBefore) / Math.max(1, run.requests.total)),
        };
        results.push(measured);
        console.log(`${measured.name}: ${measured.requestsPerSecond} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, ${measured.serverCpuUsPerRequest} µs CPU/request`);
      }

      const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
      console.log(`\n${options.database}, ${eventCount} events, ${connections} connections, ${duration} s per scenario — ${machine}\n`);
      console.log('| scenario | req/s | p50 ms | p99 ms | vs ceiling | server CPU µs/request | server RSS MB | non-2xx | of which 3xx |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const row of results) {
        console.log(`| ${row.name} | ${row.requestsPerSecond} | ${row.p50} | ${row.p99} | ${row.ratioToCeiling === null ? '' : `${Math.round(row.ratioToCeiling * 100)} %`} | ${row.serverCpuUsPerRequest} | ${row.serverRssMb ?? ''} | ${row.non2xx} | ${row.responses3xx} |`);
      }
      mkdirSync('bench/results', { recursive: true });
      const file = `bench/results/${options.database}-${eventCount}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      writeFileSync(file, JSON.stringify({ database: options.database, events: eventCount, connections, duration, machine, seed: options.seed, seedEventsPerSecond: seeded.eventsPerSecond, results }, null, 2));
      console.log(`\nwritten to ${file}`);
    } finally {
      ceiling.kill('SIGTERM');
    }
  } finally {
    service.kill('SIGTERM');
  }
}

await main();
