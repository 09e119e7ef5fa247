import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** What checkpoint-thread.ts receives as its `workerData`. */
export interface CheckpointThreadData {
  path: string;
}

/** SQLite's own default: a commit that leaves the log longer than this copies it into the database itself. */
const COMMIT_CHECKPOINT_PAGES = 1000;

export interface CheckpointTuning {
  /**
   * While the thread runs, the log length past which a commit still checkpoints itself: the thread's checkpoints
   * cannot start the log over while commits keep landing, and a commit's can (see createCheckpoints).
   */
  commitCheckpointPages: number;
  /** A checkpoint follows a burst of commits by this long, so that one copy serves the whole burst. */
  afterCommitMs: number;
}

/** 16 MB of log at most; a checkpoint 50 ms after a burst of commits. */
const DEFAULT_TUNING: CheckpointTuning = { commitCheckpointPages: 4_000, afterCommitMs: 50 };

export interface Checkpoints {
  /** After each commit of this connection. */
  committed(): void;
  /** Resolves once no checkpoint is waiting or running (for tests: a checkpoint's effects can then be read). */
  settled(): Promise<void>;
  /** Stops the thread; its checkpoint in progress, if any, finishes first. */
  close(): Promise<void>;
}

/**
 * Moves SQLite's checkpoints out of the commits. By default the commit that makes the write-ahead log longer than
 * 1,000 pages copies the whole log into the database and syncs it to disk, in the thread that committed: a write
 * every 20 or so (a create writes about 50 pages) held the event loop, reads included, for that copy and sync, and
 * the same index pages were copied again at every one (measured: a create's commit 640 µs on average, 280 µs
 * without). Here a thread of this store's own (started at the first commit, so a store that only reads has none)
 * copies the log shortly after each burst of commits, while the requests go on.
 *
 * SQLite starts the log over (instead of growing it) only at a write that finds all of it copied. Under a steady
 * load a commit lands while the thread copies, so the thread never gets there; a commit's own checkpoint, which no
 * other commit of this process can interrupt, does. So commits still checkpoint, once the log is past
 * {@link CheckpointTuning.commitCheckpointPages}: four times more rarely than by default, with most of the log
 * already copied by the thread. Should the thread fail, commits checkpoint at SQLite's default again.
 */
export function createCheckpoints(
  database: BetterSqlite3.Database,
  path: string,
  tuning: CheckpointTuning = DEFAULT_TUNING,
): Checkpoints {
  if (path === ':memory:' || database.memory) return { committed() {}, settled: async () => {}, close: async () => {} };
  let thread: Worker | undefined;
  let exited: Promise<void> | undefined;
  let failed = false;
  let stopped = false;
  let scheduled = false;
  let running = false;
  let again = false;
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (scheduled || running) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };

  const fallBack = (reason: unknown) => {
    if (failed || stopped) return;
    failed = true;
    // The store has no logger: Node prints the warning on stderr, as the store's other warnings.
    process.emitWarning(`SQLite checkpoint thread stopped, commits checkpoint again: ${String(reason)}`, {
      code: 'SQLITE_CHECKPOINT_THREAD',
    });
    void thread?.terminate();
    thread = undefined;
    database.pragma(`wal_autocheckpoint = ${COMMIT_CHECKPOINT_PAGES}`);
    scheduled = running = false;
    settle();
  };

  const start = (): Worker => {
    // checkpoint-thread.ts beside this file, or checkpoint-thread.js once compiled.
    const started = new Worker(
      new URL(`./checkpoint-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
      {
        workerData: { path } satisfies CheckpointThreadData,
      },
    );
    // An idle thread does not keep its process alive; one that is checkpointing or stopping does.
    started.unref();
    started.on('message', (message: { type: string; message?: string }) => {
      if (message.type === 'done') {
        running = false;
        if (!stopped) started.unref();
        if (again) {
          again = false;
          schedule();
        }
        settle();
      } else if (message.type === 'error') fallBack(message.message);
    });
    started.on('error', fallBack);
    exited = new Promise((resolve) =>
      started.once('exit', (code) => {
        fallBack(`exited with code ${code}`);
        resolve();
      }),
    );
    database.pragma(`wal_autocheckpoint = ${tuning.commitCheckpointPages}`);
    return started;
  };

  const request = () => {
    if (failed || stopped) return settle();
    if (running) {
      again = true;
      return;
    }
    thread ??= start();
    running = true;
    thread.ref();
    thread.postMessage('checkpoint');
  };

  const schedule = () => {
    if (scheduled || failed || stopped) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      request();
    }, tuning.afterCommitMs).unref();
  };

  return {
    committed: schedule,
    settled: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        settle();
      }),
    async close() {
      stopped = true;
      if (!thread) return;
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
