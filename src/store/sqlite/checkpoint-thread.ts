// The checkpoint thread of one SQLite store (started by checkpoints.ts): its own connection to the store's file, so
// that copying the write-ahead log into the database and syncing it to disk happens beside the requests' event loop
// instead of inside the commit that crossed SQLite's page limit.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointThreadData } from './checkpoints.ts';

const port = parentPort!;
// Node types workerData as `any`: it is the CheckpointThreadData that checkpoints.ts started this thread with.
const data: CheckpointThreadData = workerData;
const database = new BetterSqlite3(data.path);
// This connection never writes rows, so it never checkpoints on its own either.
database.pragma('wal_autocheckpoint = 0');
// A passive checkpoint copies what it can without waiting for anyone: a writer goes on writing meanwhile.
const passive = database.prepare('pragma wal_checkpoint(passive)');

port.on('message', (message: unknown) => {
  if (message === 'checkpoint') {
    try {
      passive.get();
    } catch (error) {
      port.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
    port.postMessage({ type: 'done' });
  } else if (message === 'stop') {
    database.close();
    port.close();
  }
});
