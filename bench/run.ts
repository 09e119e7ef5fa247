import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { renderStaleDocuments } from '../src/core/background/documents.ts';
import { compactAllCounts, countUncountedEvents } from '../src/core/background/occurrence-counts.ts';
import { keepDocumentsCurrent } from '../src/core/documents/follow.ts';
import { keepCountsCurrent } from '../src/core/occurrences/follow-counts.ts';
import { generateAppPassword } from '../src/core/users/secrets.ts';
import { createAppPassword, createUser, findUserByLogin } from '../src/core/users/store.ts';
import type { BenchContext, Scenario, ScenarioModule } from './scenario.ts';
import { IMPORT_MEASUREMENT, measureImport } from './import.ts';
import { seed, type SeedResult } from './seed.ts';

const USAGE = `npm run bench -- [--events N] [--database sqlite|postgres] [--duration seconds] [--connections N] …
  --events             events to seed (default 10000; 1000000 works)
  --database           sqlite (default) or postgres (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test, schema "bench")
  --duration           seconds per scenario (default 10)
  --repeat N           measure each scenario N times (default 1), the A/B pair in turns (A then B, then B then A):
                       the table then also gives each one's median and range, since one run of a service on a
                       shared machine can be a third off
  --warmup             seconds of each scenario's load sent before it is measured (default 5): the service's code is
                       optimised as it runs, and a service in use is warm
  --connections        concurrent connections of the read scenarios (default 32)
  --write-connections  concurrent authenticated clients of the write scenarios (default 10)
  --seed               fresh (default: a first load, indexes built at the end) or live (indexes kept row by row, as an
                       import into a database in use)
  --only               run only the scenarios whose name contains one of these comma-separated words (the ceiling
                       always runs)
  --ab NAME=VAR=value[;VAR=value…] | NAME=/other/checkout
                       A/B in one run: a second service on the same database with these extra environment variables,
                       or started from another checkout of the code (the same migrations); every scenario is measured
                       on both, one after the other, B labelled NAME
  --reuse              measure the database a previous run of the same --database and --events seeded (its seed
                       description is kept beside it) instead of seeding again
  --cpu-prof DIR       run the service under node --cpu-prof, profiles written to DIR when it stops
  --site-url URL       the SITE_URL of the service (default: its own address, a free port each run); the stored
                       documents name it, so --reuse with the URL of the seeding run keeps them current instead of
                       rendering them all again
  --workers N          serve with WORKERS=N processes (default 1), and run the ceiling as as many processes; CPU and
                       RSS are those of the primary and its workers together`;

const { values: options } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    database: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    repeat: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    'write-connections': { type: 'string', default: '10' },
    seed: { type: 'string', default: 'fresh' },
    only: { type: 'string' },
    ab: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'site-url': { type: 'string' },
    workers: { type: 'string', default: '1' },
    reuse: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const eventCount = Number(options.events);
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const repeat = Number(options.repeat);
const connections = Number(options.connections);
const writeConnections = Number(options['write-connections']);
const workers = Number(options.workers);
const only = options.only
  ?.split(',')
  .map((word) => word.trim().toLowerCase())
  .filter((word) => word !== '');
const abVariant =
  options.ab === undefined
    ? undefined
    : (() => {
        const [name, ...assignments] = options.ab.split('=');
        const rest = assignments.join('=');
        const env: Record<string, string> = {};
        // Another checkout of the service (the code before a change), on the same database.
        if (rest.startsWith('/'))
          return { name, env: {} as Record<string, string>, directory: rest as string | undefined };
        for (const assignment of rest.split(';').filter((part) => part !== '')) {
          const at = assignment.indexOf('=');
          env[assignment.slice(0, at)] = assignment.slice(at + 1);
        }
        return { name, env, directory: undefined as string | undefined };
      })();
if (
  !Number.isInteger(eventCount) ||
  eventCount < 100 ||
  !Number.isInteger(workers) ||
  workers < 1 ||
  workers > 64 ||
  !(Number.isFinite(warmup) && warmup >= 0) ||
  !Number.isInteger(repeat) ||
  repeat < 1 ||
  !['sqlite', 'postgres'].includes(options.database!) ||
  !['fresh', 'live'].includes(options.seed!) ||
  (abVariant !== undefined &&
    (abVariant.name === '' || (abVariant.directory === undefined && Object.keys(abVariant.env).length === 0)))
) {
  console.error(USAGE);
  process.exit(2);
}

/** Ports nobody listens on now (another benchmark may be running on this machine). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const SERVICE_PORT = await freePort();
/** What the service's and the seed's documents name as the site (D34: another one renders every document again). */
const siteUrl = options['site-url'] ?? `http://127.0.0.1:${SERVICE_PORT}`;
const CEILING_PORT = await freePort();
const VARIANT_PORT = await freePort();
const PROTOTYPE_PORT = await freePort();
const PG_SCHEMA = 'bench';

const SEED_FILE = `bench/data/${options.database}-${eventCount}.seed.json`;

async function databaseUrl(): Promise<string> {
  mkdirSync('bench/data', { recursive: true });
  if (options.database === 'sqlite') {
    if (!options.reuse)
      for (const suffix of ['', '-wal', '-shm']) rmSync(`bench/data/bench.db${suffix}`, { force: true });
    return 'bench/data/bench.db';
  }
  return await postgresSchema(PG_SCHEMA, !options.reuse);
}

/** A URL of the benchmark's PostgreSQL database whose tables are those of `schema` (made afresh when `fresh`). */
async function postgresSchema(schema: string, fresh: boolean): Promise<string> {
  const base = process.env.DATABASE_URL?.startsWith('postgres')
    ? process.env.DATABASE_URL
    : 'postgres://postgres@127.0.0.1:5432/test';
  if (fresh) {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`create schema ${schema}`);
    await client.end();
  }
  return `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** The prototype's write database (bench/prototype.ts): empty, with the service's tables, new for each run. */
async function prototypeWriteDatabase(): Promise<string> {
  let url = 'bench/data/prototype-writes.db';
  if (options.database === 'sqlite')
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${url}${suffix}`, { force: true });
  else url = await postgresSchema('bench_prototype', true);
  const store = await openStore(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }).database);
  await store.close();
  return url;
}

/** Started as `npm start` starts the service (same V8 flags), so the numbers are the ones users get. */
function start(script: string, env: Record<string, string>, nodeFlags: string[] = [], cwd?: string): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') console.error(`${script} exited with ${code ?? signal}`);
  });
  return child;
}

/**
 * How `directory`'s checkout (the current one by default) starts as its `npm start` does: compiled first
 * (scripts/build.ts), then the environment assignments, node flags and entry point of its package.json's start script
 * (`A=b node --flag dist/main.js`), so that a checkout measured beside another runs with its own flags. A checkout
 * from before that build ran its sources, and still does, with what the benchmark gave every service then.
 */
function startCommand(directory = '.'): { entry: string; env: Record<string, string>; nodeFlags: string[] } {
  if (!existsSync(resolve(directory, 'scripts/build.ts')))
    return {
      entry: 'src/main.ts',
      env: { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=1048576' },
      nodeFlags: ['--max-semi-space-size=2'],
    };
  execFileSync(process.execPath, ['scripts/build.ts'], { cwd: directory, stdio: 'inherit' });
  const script = (
    JSON.parse(readFileSync(resolve(directory, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const words = script.trim().split(/\s+/);
  const node = words.indexOf('node');
  const entry = words.at(-1);
  if (node < 0 || entry === undefined || !entry.endsWith('.js'))
    throw new Error(
      `${directory}/package.json: the start script is not [VAR=value …] node [flags …] entry.js: ${script}`,
    );
  const env = Object.fromEntries(
    words.slice(0, node).map((word) => word.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  return { entry, env, nodeFlags: words.slice(node + 1, -1) };
}

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** Waits (up to two minutes) until `url` answers within 50 ms: the service has finished the work a scenario left. */
async function drained(url: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const started = performance.now();
    try {
      await (await fetch(url)).arrayBuffer();
    } catch {
      /* busy or restarting */
    }
    if (performance.now() - started < 50) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A process and its descendants (a cluster's primary and its workers), from each thread's `/proc/<pid>/task/<tid>/children`:
 * with --workers the service is several processes, and what it costs is theirs together.
 */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${tree[index]}/task`);
    } catch {
      continue; // exited meanwhile
    }
    for (const task of tasks) {
      try {
        tree.push(
          ...readFileSync(`/proc/${tree[index]}/task/${task}/children`, 'utf8')
            .split(' ')
            .filter((child) => child !== '')
            .map(Number),
        );
      } catch {
        /* the thread ended */
      }
    }
  }
  return tree;
}

/** Sums `read` over the process tree of `pid`, skipping a process that exited meanwhile. */
const sumOverTree = (pid: number, read: (pid: number) => number) =>
  processTree(pid).reduce((sum, member) => {
    try {
      return sum + read(member);
    } catch {
      return sum;
    }
  }, 0);

const rssMb = (pid: number) =>
  Math.round(
    sumOverTree(pid, (member) => {
      const status = readFileSync(`/proc/${member}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    }) / 1024,
  );

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The name of a `/proc/…/stat` line's process or thread, and its CPU time (user + system, fields 14 and 15) in µs. */
function readStat(stat: string): { name: string; micros: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    micros: ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1e6,
  };
}

/** CPU time (user + system) a process and its descendants have used, in microseconds. */
const cpuMicros = (pid: number) =>
  sumOverTree(pid, (member) => readStat(readFileSync(`/proc/${member}/stat`, 'utf8')).micros);

/**
 * CPU time of V8's helper threads (`V8Worker`: the garbage collector's parallel and concurrent work, and optimising
 * compilation, little once warm) in a process and its descendants, in microseconds: the part of the CPU time above
 * that no profile of the main thread shows.
 */
const helperCpuMicros = (pid: number) =>
  sumOverTree(pid, (member) => {
    let micros = 0;
    for (const task of readdirSync(`/proc/${member}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${member}/task/${task}/stat`, 'utf8');
      } catch {
        continue; // the thread ended
      }
      const thread = readStat(stat);
      if (thread.name === 'V8Worker') micros += thread.micros;
    }
    return micros;
  });

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** With --repeat: per scenario and service, in the order first measured, the median of its runs and their range. */
function printMedians(results: readonly Measured[]): void {
  const byName = new Map<string, Measured[]>();
  for (const row of results) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  console.log(
    '\n| scenario | runs | req/s, median | server CPU µs/request, median | range | of which V8 helper threads, median |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, rows] of byName) {
    const cpu = rows.map((row) => row.serverCpuUsPerRequest);
    console.log(
      `| ${name} | ${rows.length} | ${Math.round(median(rows.map((row) => row.requestsPerSecond)))} | ${Math.round(median(cpu))} | ${Math.min(...cpu)}–${Math.max(...cpu)} | ${Math.round(median(rows.map((row) => row.serverV8HelperCpuUsPerRequest)))} |`,
    );
  }
}

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** 3xx answers (the 304s of a conditional GET, which autocannon also counts as non-2xx). */
  responses3xx: number;
  errors: number;
  /** Requests without an answer within autocannon's 10 s (counted among the errors). */
  timeouts: number;
  ratioToCeiling: number | null;
  serverRssMb: number | null;
  /**
   * CPU time the serving process spent per answer, in microseconds: what an answer costs, whatever else shares the
   * machine (req/s and latencies move with the load of other processes; this does much less).
   */
  serverCpuUsPerRequest: number;
  /** Of that, V8's helper threads' ({@link helperCpuMicros}): mostly garbage collection. */
  serverV8HelperCpuUsPerRequest: number;
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

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const between = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1));
const shuffled = <T>(items: readonly T[]) => [...items].sort(() => Math.random() - 0.5);

/**
 * The items in a random order, each once, then again in another order: reads by random ids that the service never
 * answers from its memory. Drawn independently from 10,000 ids at 4,600 reads a second, a third of the reads would
 * ask for an id read less than a second before, which the one-second read cache (READ_CACHE_BYTES) answers.
 */
function cycling<T>(items: readonly T[]): () => T {
  let order: T[] = [];
  return () => {
    if (order.length === 0) {
      // Fisher–Yates: every order equally likely.
      order = [...items];
      for (let index = order.length - 1; index > 0; index--) {
        const other = Math.floor(Math.random() * (index + 1));
        [order[index], order[other]] = [order[other], order[index]];
      }
    }
    return order.pop()!;
  };
}

/** A day `offset` days after `day` (`YYYY-MM-DD`), in UTC arithmetic (dates only). */
const addDays = (day: string, offset: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/** A window of 0–30 days starting on any day of the seed's years: the varied lists' `dates` filter. */
function randomWindow(seeded: SeedResult): { first: string; last: string } {
  const totalDays = Math.round((Date.parse(seeded.lastDay) - Date.parse(seeded.firstDay)) / 86_400_000);
  const first = addDays(seeded.firstDay, between(0, totalDays));
  return { first, last: addDays(first, between(0, 30)) };
}

/**
 * The deepest page of the varied lists: enough pages that none is asked for twice within a second at these rates,
 * few enough that a million events do not turn the mix into a measure of deep offsets (a client reaches those by
 * paging on, which the service answers from where the last page ended).
 */
const MAX_LIST_PAGE = 1_000;

/**
 * The varied list of `GET /events` a client sends: a random page of the default list, or the first page of one to
 * three random filters (categories, tags, venue, organizer, a search term, a date window, a place and radius). The
 * pages are every page of the default list (`pages` of them, up to its {@link MAX_LIST_PAGE}th) once in a random
 * order, then again in another, as the reads by id take their ids: drawn from a few, most would be answered from the
 * one-second read cache (until 2026-11-27 they were pages 1–20, a quarter of the anonymous lists' CPU saved by such
 * hits).
 */
function makeListPath(seeded: SeedResult, apiPath: string, pages: number): () => string {
  const nextPage = cycling(
    Array.from({ length: Math.min(Math.max(1, pages), MAX_LIST_PAGE) }, (_, index) => index + 1),
  );
  const filters: Record<string, (query: URLSearchParams) => void> = {
    categories: (query) => query.set('categories', String(pick(seeded.categoryIds))),
    tags: (query) => query.set('tags', String(pick(seeded.tagIds))),
    venue: (query) => query.set('venue', String(pick(seeded.venueIds))),
    organizer: (query) => query.set('organizer', String(pick(seeded.organizerIds))),
    search: (query) => query.set('search', pick(seeded.words)),
    dates: (query) => {
      const { first, last } = randomWindow(seeded);
      query.set('start_date', first);
      query.set('end_date', last);
    },
    geoloc: (query) => {
      query.set('geoloc_lat', (Math.random() * 120 - 60).toFixed(3));
      query.set('geoloc_lng', (Math.random() * 300 - 150).toFixed(3));
      query.set('geoloc_radius', String(between(100, 2000)));
    },
  };
  const names = Object.keys(filters);
  return () => {
    const query = new URLSearchParams();
    if (Math.random() < 0.3) {
      query.set('page', String(nextPage()));
    } else {
      for (const name of shuffled(names).slice(0, between(1, 3))) filters[name](query);
    }
    return `${apiPath}/events?${query}`;
  };
}

/**
 * A list of a window of days (the varied lists' `dates` filter alone): any day of the seed's years, 0–30 days long.
 * Nearly every URL is new, so the read cache answers none, and the prototype's list answers the same URLs.
 */
function makeWindowPath(seeded: SeedResult, eventsPath: string): () => string {
  return () => {
    const { first, last } = randomWindow(seeded);
    return `${eventsPath}?start_date=${first}&end_date=${last}`;
  };
}

/**
 * The list prototype stands for the service's list only if it answers the same: the same events of a window, in the
 * same order, and the same total (read from the service's answer and the prototype's before anything is measured).
 */
async function sameListAsService(api: string, prototype: string, seeded: SeedResult): Promise<void> {
  const first = addDays(seeded.firstDay, 400);
  const query = `start_date=${first}&end_date=${addDays(first, 45)}&page=2`;
  const read = async (url: string) => {
    const body = (await (await fetch(url)).json()) as { total: number; events: Array<{ id: number }> };
    return { total: body.total, ids: body.events.map((event) => event.id) };
  };
  const [service, minimal] = await Promise.all([read(`${api}/events?${query}`), read(`${prototype}/events?${query}`)]);
  if (JSON.stringify(service) !== JSON.stringify(minimal) || service.ids.length === 0)
    throw new Error(
      `the list prototype answers ${JSON.stringify(minimal)} where the service answers ${JSON.stringify(service)}`,
    );
}

/**
 * A search with a category (D30, measured at a million events): a random category and either one of the seed's twenty
 * words (each in 5–30 % of all events: the worst case of a search, thousands of matches to count) or a word and a
 * number (a title's: a few matches, as most real searches).
 */
function makeSearchPath(seeded: SeedResult, apiPath: string, selective: boolean): () => string {
  return () => {
    const terms = selective ? `${pick(seeded.words)} ${between(1, eventCount)}` : pick(seeded.words);
    return `${apiPath}/events?${new URLSearchParams({ categories: String(pick(seeded.categoryIds)), search: terms })}`;
  };
}

interface Target {
  label: string;
  pid: () => number;
  api: string;
  site: string;
  port: number;
}

async function main(): Promise<void> {
  const url = await databaseUrl();
  // The service's own site address (see serviceEnv): the documents the seed renders are those the service reads.
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', SITE_URL: siteUrl });
  const store = await openStore(config.database);
  // The seed writes as every process of this code does: each batch renders its stored documents and counts its
  // events (D34) in its own transaction, so its figure includes that work.
  keepDocumentsCurrent(store, config);
  keepCountsCurrent(store);
  const admin = options.reuse
    ? (await findUserByLogin(store.db, 'bench'))!
    : await createUser(store.db, 'bench', 'administrator');
  const { secret } = generateAppPassword();
  await createAppPassword(store.db, admin.id, 'bench', secret);
  const authorization = `Basic ${Buffer.from(`bench:${secret}`).toString('base64')}`;

  let seeded: SeedResult;
  if (options.reuse) {
    seeded = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as SeedResult;
    console.log(`measuring the ${eventCount} events seeded before on ${options.database}`);
  } else {
    console.log(`Seeding ${eventCount} events on ${options.database} (${options.seed})…`);
    seeded = await seed(store, eventCount, admin.id, { deferIndexes: options.seed === 'fresh' });
    writeFileSync(SEED_FILE, JSON.stringify(seeded));
    console.log(`seeded ${eventCount} events at ${seeded.eventsPerSecond} events/s (${options.seed})`);
  }

  const serviceEnv = {
    // One site address for every service of the run (the A/B variant listens elsewhere): the stored documents (D34)
    // name it, and a service with another would render them all again.
    SITE_URL: siteUrl,
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    WORKERS: String(workers),
    // D27: the webhook scenario's receiver listens on 127.0.0.1.
    WEBHOOKS_ALLOW_PRIVATE: '1',
  };
  // D34: documents a reused database lacks (seeded by older code, or under another site address), rendered now as
  // the service's start would, so that the service measures reads of a database whose documents are current.
  const documentsStarted = Date.now();
  const rendered = await renderStaleDocuments(store, config);
  if (rendered.events + rendered.linked > 0) {
    const seconds = (Date.now() - documentsStarted) / 1000;
    console.log(
      `rendered ${rendered.events} event and ${rendered.linked} venue and organizer documents at ${Math.round((rendered.events + rendered.linked) / seconds)}/s`,
    );
  }
  await countUncountedEvents(store);
  // The ledger as the service's minute job leaves it: one row per key.
  const compactStarted = Date.now();
  const compacted = await compactAllCounts(store);
  if (compacted > 0)
    console.log(`compacted the occurrence counts: ${compacted} rows merged in ${Date.now() - compactStarted} ms`);
  await store.close();
  // D26: the command-line import of a generated .ics file, into a database of its own (bench/import.ts).
  if (only === undefined || only.some((word) => IMPORT_MEASUREMENT.toLowerCase().includes(word)))
    await measureImport(options.database as 'sqlite' | 'postgres', { cpuProfileDir: options['cpu-prof'] });

  const profiled = options['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${options['cpu-prof']}`] : [];
  const served = startCommand();
  const service = start(served.entry, { ...served.env, ...serviceEnv, PORT: String(SERVICE_PORT) }, [
    ...served.nodeFlags,
    ...profiled,
  ]);
  const variantCommand = abVariant && startCommand(abVariant.directory);
  const variant =
    abVariant &&
    variantCommand &&
    start(
      variantCommand.entry,
      {
        ...variantCommand.env,
        ...serviceEnv,
        ...abVariant.env,
        PORT: String(VARIANT_PORT),
        ...(abVariant.directory && !isAbsolute(url) && !url.startsWith('postgres')
          ? { DATABASE_URL: resolve(url) }
          : {}),
      },
      [...variantCommand.nodeFlags, ...profiled],
      abVariant.directory,
    );
  const targetOf = (label: string, child: ChildProcess, port: number): Target => ({
    label,
    pid: () => child.pid!,
    port,
    site: `http://127.0.0.1:${port}`,
    api: `http://127.0.0.1:${port}/calendar/events/v1`,
  });
  const targets = [
    targetOf('', service, SERVICE_PORT),
    ...(variant ? [targetOf(abVariant!.name, variant, VARIANT_PORT)] : []),
  ];
  const api = targets[0].api;
  try {
    for (const target of targets) await waitFor(`${target.site}/health`);
    const eventId = seeded.eventIds[0];
    const singleResponse = await fetch(`${api}/events/${eventId}`);
    const single = await singleResponse.text();
    // D22: the tags of the item and of a list as their 200s send them, for conditional GETs answered 304.
    const singleTag = singleResponse.headers.get('etag')!;
    const authorizedTag = (await fetch(`${api}/events/${eventId}`, { headers: { authorization } })).headers.get(
      'etag',
    )!;
    const listTag = (await fetch(`${api}/events?per_page=50`)).headers.get('etag')!;
    const defaultListPages = Number((await fetch(`${api}/events`)).headers.get('x-wp-totalpages'));
    // What the scenario being measured leaves behind, undone once it ends (also when it fails), so that later
    // scenarios, and later `--reuse` runs, do not measure a service busy with it.
    const undo: Array<() => Promise<void>> = [];
    const undoAll = async () => {
      for (const step of undo.splice(0).reverse())
        await step().catch((error: Error) => console.error(`bench clean-up failed: ${error.message}`));
    };
    // As many processes as the service, so that the ratios to the ceiling compare like with like.
    const ceiling = start('bench/ceiling.ts', {
      PORT: String(CEILING_PORT),
      BODY_SIZE: String(Buffer.byteLength(single)),
      WORKERS: String(workers),
    });
    // The bars of a read by id and of a create (bench/prototype.ts): one process, on the same database and on one of
    // its own for the writes.
    const prototype = start('bench/prototype.ts', {
      PORT: String(PROTOTYPE_PORT),
      DATABASE_URL: url,
      WRITE_DATABASE_URL: await prototypeWriteDatabase(),
    });
    try {
      await waitFor(`http://127.0.0.1:${CEILING_PORT}/fixed`);
      await waitFor(`http://127.0.0.1:${PROTOTYPE_PORT}/events/${eventId}`);
      await sameListAsService(api, `http://127.0.0.1:${PROTOTYPE_PORT}`, seeded);
      // Every created event gets its own title, as real creates do: thousands of identical titles would measure the
      // -2, -3… slug search instead of a create.
      let created = 0;
      // Reads by id: each event once in a random order, then again (no answer from the read cache).
      const anyEventId = cycling(seeded.eventIds);
      const newEvent = () => {
        const day = addDays(seeded.firstDay, between(700, 1400));
        const hour = between(8, 18);
        return JSON.stringify({
          title: `Bench ${pick(seeded.words)} ${++created}`,
          description: `A ${pick(seeded.words)} with ${pick(seeded.words)}.`,
          start_date: `${day} ${String(hour).padStart(2, '0')}:00:00`,
          end_date: `${day} ${String(hour + 2).padStart(2, '0')}:00:00`,
          categories: [pick(seeded.categoryIds)],
          tags: [pick(seeded.tagIds), pick(seeded.tagIds)],
          venue: { id: pick(seeded.venueIds) },
        });
      };
      let renamed = 0;
      const ceilingScenario: Scenario = {
        name: 'ceiling: bare Fastify, fixed body',
        url: `http://127.0.0.1:${CEILING_PORT}/fixed`,
      };
      const scenariosFor = (target: Target): Scenario[] => {
        const { api } = target;
        const path = new URL(api).pathname;
        return [
          // Varied traffic first: what a service with many clients answers.
          { name: 'GET /events/{random id}', url: api, makePath: () => `${path}/events/${anyEventId()}` },
          {
            name: 'GET /events/{random id} (authenticated)',
            url: api,
            makePath: () => `${path}/events/${anyEventId()}`,
            authorized: true,
          },
          {
            name: 'GET /events?{random page or filters}',
            url: api,
            makePath: makeListPath(seeded, path, defaultListPages),
          },
          {
            name: 'GET /events?{random page or filters} (authenticated)',
            url: api,
            makePath: makeListPath(seeded, path, defaultListPages),
            authorized: true,
          },
          {
            name: 'GET /events?categories={random}&search={random word}',
            url: api,
            makePath: makeSearchPath(seeded, path, false),
          },
          {
            name: 'GET /events?categories={random}&search={random word and number}',
            url: api,
            makePath: makeSearchPath(seeded, path, true),
          },
          {
            name: 'GET /events?{random page or filters}, 1 connection',
            url: api,
            makePath: makeListPath(seeded, path, defaultListPages),
            connections: 1,
          },
          { name: 'GET /events?{random window of days}', url: api, makePath: makeWindowPath(seeded, `${path}/events`) },
          {
            name: 'POST /events (authenticated, random)',
            url: `${api}/events`,
            method: 'POST',
            makeBody: newEvent,
            authorized: true,
            connections: writeConnections,
          },
          {
            name: 'PATCH /events/{random id} (authenticated)',
            url: api,
            method: 'PATCH',
            authorized: true,
            connections: writeConnections,
            makePath: () => `${path}/events/${pick(seeded.eventIds)}`,
            makeBody: () => JSON.stringify({ title: `Renamed by the benchmark ${++renamed}` }),
          },
          // One URL repeated: every answer but the first of each second comes from the read cache.
          { name: 'GET /events/{id} (cache hit)', url: `${api}/events/${eventId}` },
          {
            name: 'GET /events/{id}, If-None-Match: current tag → 304 (cache hit)',
            url: `${api}/events/${eventId}`,
            headers: { 'if-none-match': singleTag },
          },
          { name: 'GET /events/{id} (authenticated, one id) → 200', url: `${api}/events/${eventId}`, authorized: true },
          {
            name: 'GET /events/{id} (authenticated, one id), If-None-Match → 304',
            url: `${api}/events/${eventId}`,
            authorized: true,
            headers: { 'if-none-match': authorizedTag },
          },
          { name: 'GET /events (default window, 10) (cache hit)', url: `${api}/events` },
          {
            name: 'GET /events?categories&search (cache hit)',
            url: `${api}/events?categories=${seeded.sampleCategory}&search=jazz`,
          },
          { name: 'GET /events?per_page=50 (cache hit)', url: `${api}/events?per_page=50` },
          {
            name: 'GET /events?per_page=50, If-None-Match → 304 (cache hit)',
            url: `${api}/events?per_page=50`,
            headers: { 'if-none-match': listTag },
          },
          { name: 'GET /venues (cache hit)', url: `${api}/venues` },
          { name: 'GET /events, 1 connection (cache hit)', url: `${api}/events`, connections: 1 },
          // D27: the same creates with ten active webhook subscriptions (deliveries happen after the commit, off the
          // request path, to a receiver in this process that answers 204 at once).
          {
            name: 'POST /events (authenticated), 10 webhook subscriptions',
            url: `${api}/events`,
            method: 'POST',
            makeBody: newEvent,
            authorized: true,
            connections: writeConnections,
            setup: async () => {
              const receiverUrl = await startWebhookReceiver();
              for (let index = 0; index < 10; index++) {
                const response = await fetch(`${api}/webhooks`, {
                  method: 'POST',
                  headers: { authorization, 'content-type': 'application/json' },
                  body: JSON.stringify({ url: `${receiverUrl}/${index}`, events: ['event.created', 'event.updated'] }),
                });
                if (response.status !== 201)
                  throw new Error(`webhook subscription: ${response.status} ${await response.text()}`);
                // Deleting the subscription deletes its deliveries too (foreign key, on delete cascade).
                const { id } = (await response.json()) as { id: number };
                undo.push(async () => {
                  const deleted = await fetch(`${api}/webhooks/${id}`, {
                    method: 'DELETE',
                    headers: { authorization },
                  });
                  if (deleted.status !== 200)
                    throw new Error(`DELETE webhook ${id}: ${deleted.status} ${await deleted.text()}`);
                });
              }
            },
          },
        ];
      };
      const withModules = async (target: Target) => {
        const list = scenariosFor(target);
        const context: BenchContext = { api: target.api, site: target.site, authorization, seeded };
        for (const file of readdirSync(new URL('./scenarios/', import.meta.url))
          .filter((name) => name.endsWith('.ts'))
          .sort()) {
          const module = (await import(new URL(`./scenarios/${file}`, import.meta.url).href)) as ScenarioModule;
          list.push(...(await module.scenarios(context)));
        }
        return list.filter(
          (scenario) => only === undefined || only.some((word) => scenario.name.toLowerCase().includes(word)),
        );
      };
      const perTarget = await Promise.all(targets.map(withModules));
      // Each scenario on A, then on B: the two measured one after the other, under the same conditions.
      const prototypeScenario: Scenario = {
        name: 'prototype: stored document by random id, one statement (bench/prototype.ts)',
        url: `http://127.0.0.1:${PROTOTYPE_PORT}`,
        makePath: () => `/events/${anyEventId()}`,
      };
      // `reference`: measured beside the service, not of it (the ceiling; the prototype when by-id reads are measured).
      const runs: Array<{ scenario: Scenario; target: Target | null; reference?: ChildProcess }> = [
        { scenario: ceilingScenario, target: null, reference: ceiling },
      ];
      const prototypeWrites: Scenario = {
        name: 'prototype: create an event, three inserts in one transaction (bench/prototype.ts), 10 clients',
        url: `http://127.0.0.1:${PROTOTYPE_PORT}/events`,
        method: 'POST',
        makeBody: newEvent,
        connections: writeConnections,
      };
      const prototypeList: Scenario = {
        name: 'prototype: a window of days, ten a page, three statements (bench/prototype.ts)',
        url: `http://127.0.0.1:${PROTOTYPE_PORT}`,
        makePath: makeWindowPath(seeded, '/events'),
      };
      const selected = (name: string) => only === undefined || only.some((word) => name.includes(word));
      if (selected('get /events/{random id}'))
        runs.push({ scenario: prototypeScenario, target: null, reference: prototype });
      if (selected('get /events?{random window of days}'))
        runs.push({ scenario: prototypeList, target: null, reference: prototype });
      if (selected('post /events (authenticated, random)'))
        runs.push({ scenario: prototypeWrites, target: null, reference: prototype });
      // Each round measures every scenario once on each service; every other round B goes first, so that neither
      // is always the one measured second (the later one often did better on a busy machine).
      for (let round = 0; round < repeat; round++) {
        perTarget[0].forEach((scenario, index) => {
          const pair = [{ scenario, target: targets[0] }];
          if (targets[1]) pair.push({ scenario: perTarget[1][index], target: targets[1] });
          runs.push(...(round % 2 === 0 ? pair : pair.reverse()));
        });
      }

      const results: Measured[] = [];
      let ceilingRate = 0;
      for (const { scenario, target, reference } of runs) {
        const headers: Record<string, string> = { ...scenario.headers };
        if (scenario.body || scenario.makeBody) headers['content-type'] = 'application/json';
        if (scenario.authorized) headers.authorization = authorization;
        try {
          await scenario.setup?.();
        } catch (error) {
          // One scenario's preparation failing (e.g. two services writing one SQLite file in an A/B run) should not
          // lose the others' results.
          console.error(
            `${scenario.name}${target?.label ? ` [${target.label}]` : ''}: not measured, its setup failed: ${(error as Error).message}`,
          );
          await undoAll();
          continue;
        }
        const served = target === null ? reference!.pid! : target.pid();
        const load = (seconds: number) =>
          autocannon({
            url: scenario.url,
            method: scenario.method ?? 'GET',
            body: scenario.body,
            headers,
            ...(scenario.makeBody || scenario.makePath
              ? {
                  requests: [
                    {
                      setupRequest: (request: autocannon.Request) => ({
                        ...request,
                        ...(scenario.makeBody ? { body: scenario.makeBody() } : {}),
                        ...(scenario.makePath ? { path: scenario.makePath() } : {}),
                      }),
                    },
                  ],
                }
              : {}),
            connections: scenario.connections ?? connections,
            duration: seconds,
          });
        // Unmeasured: V8 optimises the code a scenario runs while it runs (a service started cold spent its first
        // seconds compiling: 600 µs of CPU per read by id, 320 µs after ten seconds). Then the backlog drains.
        if (warmup > 0) {
          await load(warmup);
          if (target !== null) await drained(`${target.site}/health`);
        }
        const cpuBefore = cpuMicros(served);
        const helperCpuBefore = helperCpuMicros(served);
        const run = await load(duration);
        const isCeiling = reference === ceiling;
        if (isCeiling) ceilingRate = run.requests.average;
        const measured: Measured = {
          name: target?.label ? `${scenario.name} [${target.label}]` : scenario.name,
          requestsPerSecond: Math.round(run.requests.average),
          p50: run.latency.p50,
          p99: run.latency.p99,
          non2xx: run.non2xx,
          responses3xx: run['3xx'],
          errors: run.errors,
          timeouts: run.timeouts,
          ratioToCeiling: isCeiling ? 1 : Math.round((run.requests.average / ceilingRate) * 1000) / 1000,
          serverRssMb: target === null ? null : rssMb(served),
          serverCpuUsPerRequest: Math.round((cpuMicros(served) - cpuBefore) / Math.max(1, run.requests.total)),
          serverV8HelperCpuUsPerRequest: Math.round(
            (helperCpuMicros(served) - helperCpuBefore) / Math.max(1, run.requests.total),
          ),
        };
        results.push(measured);
        // Requests the service still works on after the load stopped would be measured as the next scenario's: wait
        // until it answers a cheap request promptly again.
        if (target !== null) await drained(`${target.site}/health`);
        console.log(
          `${measured.name}: ${measured.requestsPerSecond} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, ${measured.serverCpuUsPerRequest} µs CPU/request (V8 helper threads ${measured.serverV8HelperCpuUsPerRequest}), non-2xx ${measured.non2xx}, errors ${measured.errors} (timeouts ${measured.timeouts})`,
        );
        await undoAll();
      }

      const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
      console.log(
        `\n${options.database}, ${eventCount} events, ${workers} worker process${workers === 1 ? '' : 'es'}, ${connections} connections (writes: ${writeConnections}), ${duration} s per scenario after ${warmup} s of warm-up, seeded at ${seeded.eventsPerSecond} events/s — ${machine}\n`,
      );
      console.log(
        '| scenario | req/s | p50 ms | p99 ms | vs ceiling | server CPU µs/request | of which V8 helper threads | server RSS MB | non-2xx | of which 3xx | errors (timeouts) |',
      );
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const row of results) {
        console.log(
          `| ${row.name} | ${row.requestsPerSecond} | ${row.p50} | ${row.p99} | ${row.ratioToCeiling === null ? '' : `${Math.round(row.ratioToCeiling * 100)} %`} | ${row.serverCpuUsPerRequest} | ${row.serverV8HelperCpuUsPerRequest} | ${row.serverRssMb ?? ''} | ${row.non2xx} | ${row.responses3xx} | ${row.errors} (${row.timeouts}) |`,
        );
      }
      if (repeat > 1) printMedians(results);
      mkdirSync('bench/results', { recursive: true });
      const file = `bench/results/${options.database}-${eventCount}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      writeFileSync(
        file,
        JSON.stringify(
          {
            database: options.database,
            events: eventCount,
            workers,
            connections,
            writeConnections,
            duration,
            warmup,
            machine,
            seed: options.seed,
            seedEventsPerSecond: seeded.eventsPerSecond,
            ab: abVariant,
            repeat,
            results,
          },
          null,
          2,
        ),
      );
      console.log(`\nwritten to ${file}`);
    } finally {
      await undoAll();
      ceiling.kill('SIGTERM');
      prototype.kill('SIGTERM');
    }
  } finally {
    service.kill('SIGTERM');
    variant?.kill('SIGTERM');
  }
}

await main();
