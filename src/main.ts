import { DateTime } from 'luxon';
import { buildApp } from './app.ts';
import { keepChangesPruned } from './changes/retention.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openStore } from './store/store.ts';
import { ensureAdmin } from './users/bootstrap.ts';
import { startWebhooks } from './webhooks/background.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }

  const store = await openStore(config.database);
  const app = await buildApp({ config, store, clock: () => DateTime.utc() });
  const stopPruning = await keepChangesPruned(store, {
    retentionDays: config.changesRetentionDays,
    onError: (error) => app.log.warn({ err: error }, 'pruning the change log failed; tried again in an hour'),
  });
  await ensureAdmin(config, store, app.log);
  // D27: deliveries run after commits, off the request path (a thread of their own on PostgreSQL); one worker per
  // process, cooperating with the other processes' through the database.
  const webhooks = startWebhooks(store, config, app.log);
  await webhooks.ready;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    stopPruning();
    await app.close();
    // After the last request: attempts in flight finish and are recorded; queued ones wait in the database.
    await webhooks.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`API root: ${config.apiRoot} (${config.database.dialect})`);
}

await main();
