// Runs the webhook delivery worker (worker.ts) of a service process, woken after each commit of this process that
// wrote changes; stop() lets the attempts in flight finish and be recorded before it resolves.
// - PostgreSQL: in a thread of its own (thread.ts, with its own connection pool), so that signing, sending and
//   recording deliveries take no time from the requests' event loop.
// - SQLite: in the main thread, through the process's one connection. A second connection in a thread would be a
//   second writer competing for the database's single write lock with every request's write (measured: its
//   transactions failed with SQLITE_BUSY under a steady write load and deliveries fell behind).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { onChangesCommitted } from '../change-log/log.ts';
import type { Config } from '../../config.ts';
import type { Store } from '../../store/store.ts';
import { WebhookWorker } from './worker.ts';
import { requestActivity } from '../background/activity.ts';

/** What thread.ts receives as its `workerData`. */
export interface WebhookThreadData {
  env: Record<string, string | undefined>;
  activity: SharedArrayBuffer;
}

export interface WebhookThread {
  /** Resolves once the thread has started its worker (its database is open). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

function startWebhookThread(store: Store, log: FastifyBaseLogger): WebhookThread {
  // thread.ts beside this file, or thread.js once compiled.
  const thread = new Worker(new URL(`./thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url), {
    workerData: { env: { ...process.env }, activity: requestActivity.buffer } satisfies WebhookThreadData,
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    thread.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  let wakePending = false;
  const unsubscribe = onChangesCommitted(store, () => {
    // One message per burst of commits: the thread batches anyway.
    if (wakePending) return;
    wakePending = true;
    queueMicrotask(() => {
      wakePending = false;
      if (!exited) thread.postMessage('wake');
    });
  });
  const ready = new Promise<void>((resolve, reject) => {
    thread.on('message', (message: { type: string; message?: string; fields?: Record<string, unknown> }) => {
      if (message.type === 'started') resolve();
      else if (message.type === 'error')
        log.warn({ error: message.message }, 'webhook delivery worker: a run failed; tried again at the next wake-up');
      else if (message.type === 'warn') log.warn(message.fields, message.message);
    });
    thread.once('error', (error) => {
      log.error({ err: error }, 'webhook delivery thread failed');
      reject(error);
    });
    void exit.then(() => reject(new Error('the webhook delivery thread exited')));
  });
  ready.catch(() => {});
  return {
    ready,
    async stop() {
      unsubscribe();
      if (!exited) thread.postMessage('stop');
      await exit;
    },
  };
}

/** The delivery worker of this process: in a thread on PostgreSQL, inline on SQLite (see above). */
export function startWebhooks(store: Store, config: Config, log: FastifyBaseLogger): WebhookThread {
  if (store.writers === 'many') return startWebhookThread(store, log);
  const worker = new WebhookWorker(store, config, {
    onError: (error) =>
      log.warn({ err: error }, 'webhook delivery worker: a run failed; tried again at the next wake-up'),
    log,
    busy: () => requestActivity.busy,
  });
  worker.start();
  return { ready: Promise.resolve(), stop: () => worker.stop() };
}
