// The webhook delivery worker's own thread (started by background.ts for src/main.ts): its own event loop and its own
// database connection, so that signing, sending and recording deliveries take no time from the requests. The main
// thread sends `wake` after each commit that wrote changes, and `stop` on shutdown.
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../../config.ts';
import { openStore } from '../../store/store.ts';
import { WebhookWorker } from './worker.ts';
import { RequestActivity } from '../background/activity.ts';
import type { WebhookThreadData } from './background.ts';

const port = parentPort!;
// Node types workerData as `any`: it is a copy of the WebhookThreadData that background.ts started this thread with.
const data: WebhookThreadData = workerData;
const config = loadConfig(data.env);
const activity = new RequestActivity(data.activity);
const store = await openStore(config.database);
const worker = new WebhookWorker(store, config, {
  onError: (error) =>
    port.postMessage({
      type: 'error',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    }),
  // The main thread's logger writes these, with the process's other lines.
  log: { warn: (fields, message) => port.postMessage({ type: 'warn', fields, message }) },
  // The main thread's requests: deliveries yield to them (worker.ts YIELD_FACTOR).
  busy: () => activity.busy,
});
worker.start();
port.on('message', (message: unknown) => {
  if (message === 'wake') worker.wake(20);
  else if (message === 'stop') {
    void (async () => {
      await worker.stop();
      await store.close();
      port.postMessage({ type: 'stopped' });
      port.close();
    })();
  }
});
port.postMessage({ type: 'started' });
