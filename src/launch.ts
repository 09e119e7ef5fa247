// What the service's entry point (src/main.ts) runs once Node.js is known to be new enough. WORKERS=1: this process
// serves (src/serve.ts). WORKERS>1: this process is the primary of a node:cluster; it prepares the database once, then
// forks WORKERS workers that each serve, all on the one port, and keeps that many running until it is told to stop.
import cluster from 'node:cluster';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { loggerOptions } from './log-format.ts';
import { openStore } from './store/store.ts';
import { ensureAdmin } from './core/users/bootstrap.ts';

/** Workers dying this often mean they cannot run (a port in use, a broken database): stop restarting them. */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;

/**
 * Migrates the database and ensures ADMIN_USER here, once, before any worker opens it: workers never race on a
 * migration, and none of them checks ADMIN_PASSWORD again.
 */
async function prepareDatabase(config: Config, log: FastifyBaseLogger): Promise<void> {
  const store = await openStore(config.database);
  try {
    await ensureAdmin(config, store, log);
  } finally {
    await store.close();
  }
}

async function runPrimary(config: Config): Promise<void> {
  // The primary serves nothing; a Fastify instance that never listens gives it the workers' logger (the same lines
  // at the same LOG_LEVEL, in the same LOG_FORMAT).
  const log = Fastify({ logger: await loggerOptions(config) }).log;
  await prepareDatabase(config, log);

  let running = 0;
  let stopping = false;
  let exitCode = 0;
  const crashTimes: number[] = [];
  const fork = () => {
    cluster.fork();
    running++;
  };
  const stopWorkers = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };

  cluster.on('exit', (worker, code, signal) => {
    running--;
    if (stopping) {
      // Each worker closes gracefully on its own (serve.ts); the primary leaves last.
      if (running === 0) process.exit(exitCode);
      return;
    }
    const now = Date.now();
    crashTimes.push(now);
    while (crashTimes[0] <= now - CRASH_WINDOW_MS) crashTimes.shift();
    if (crashTimes.length >= MAX_CRASHES) {
      log.error(
        { pid: worker.process.pid, code, signal },
        `${MAX_CRASHES} workers died within ${CRASH_WINDOW_MS / 1000} s; stopping the service`,
      );
      exitCode = 1;
      if (running === 0) process.exit(exitCode);
      stopWorkers('SIGTERM');
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'a worker died; starting another');
    fork();
  });

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    log.info({ signal }, 'shutting down the workers');
    stopWorkers(signal);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  log.info({ workers: config.workers }, `starting ${config.workers} worker processes`);
  for (let index = 0; index < config.workers; index++) fork();
}

async function start(): Promise<void> {
  const config = loadConfig();
  if (cluster.isPrimary && config.workers > 1) return runPrimary(config);
  // Loaded only where requests are served: a cluster's primary stays smaller (measured: 128 MB resident instead of 166).
  const { serve } = await import('./serve.ts');
  await serve(config, { ensureAdmin: !cluster.isWorker });
}

export async function launch(): Promise<void> {
  try {
    await start();
  } catch (error) {
    // A setting the service cannot run with (a bad variable, a database schema it may not create): one line saying
    // so, and EX_CONFIG, rather than a stack trace.
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(78);
  }
}
