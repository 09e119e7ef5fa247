// What one serving process does: open the store, serve the API until SIGTERM or SIGINT, then close gracefully. Run by
// src/launch.ts in its own process (WORKERS=1) or in each cluster worker (WORKERS>1).
import { DateTime } from 'luxon';
import { buildApp } from './app.ts';
import { keepDocumentsRendered } from './core/background/documents.ts';
import { keepOccurrenceCounts } from './core/background/occurrence-counts.ts';
import { keepSeriesHorizons } from './core/background/series-horizons.ts';
import { keepChangesPruned } from './core/change-log/retention.ts';
import type { Config } from './config.ts';
import { openStore } from './store/store.ts';
import { ensureAdmin } from './core/users/bootstrap.ts';
import { startWebhooks } from './core/webhooks/background.ts';

export interface ServeOptions {
  /**
   * Whether this process ensures the ADMIN_USER administrator; a cluster's primary has done it once for all its
   * workers, which skip it (scrypt-checking ADMIN_PASSWORD in every worker would only cost start-up time).
   */
  ensureAdmin: boolean;
}

export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const store = await openStore(config.database);
  const app = await buildApp({ config, store, clock: () => DateTime.utc() });
  const stopPruning = await keepChangesPruned(store, {
    retentionDays: config.changesRetentionDays,
    onError: (error) => app.log.warn({ err: error }, 'pruning the change log failed; tried again in an hour'),
  });
  if (options.ensureAdmin) await ensureAdmin(config, store, app.log);
  // D25: open-ended series follow the rolling horizon in the background (one process at a time), never in a read.
  const stopHorizons = keepSeriesHorizons(store, {
    actor: () => ({ viewer: null, now: DateTime.utc(), config }),
    onError: (error) => app.log.warn({ err: error }, 'extending series horizons failed; tried again in an hour'),
  });
  // D34: documents missing or rendered under another configuration are rendered again, off the request path.
  const stopDocuments = keepDocumentsRendered(store, config, {
    onError: (error) => app.log.warn({ err: error }, 'rendering stored documents failed; reads render live'),
    onDone: (run) => {
      if (run.events + run.linked > 0) app.log.info(run, 'stored documents rendered');
    },
  });
  // Totals without scans: the events of an older database are counted, and the ledger compacted, off the request path.
  const stopCounts = keepOccurrenceCounts(store, {
    onError: (error) => app.log.warn({ err: error }, 'counting events failed; lists count rows meanwhile'),
  });
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
    await stopHorizons();
    await stopDocuments();
    await stopCounts();
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
