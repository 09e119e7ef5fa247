// D27 delivery worker, one per process (started by src/main.ts). Driven from the change log (D21), so nothing a client
// was told is committed can be lost, whatever happens to the process:
// 1. enqueue: the changes after each active subscription's cursor become delivery rows (one per change and selecting
//    subscription; unique on (subscription, seq), so a change is never queued twice), and the cursor moves past them,
//    in one transaction;
// 2. claim: due pending deliveries whose item has no earlier pending delivery for that subscription (per-item order)
//    are leased to this process (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so processes never claim the same row; SQLite:
//    one writer). A lease outlives the send timeout; one whose process died runs out and the delivery is tried again;
// 3. send, off any transaction, then record the attempt (only while the lease is still ours) and schedule a retry
//    (schedule.ts) or mark the delivery succeeded / failed; each failed attempt, and each give-up, is logged at warn.
// The worker wakes after each commit of this process that wrote changes (onChangesCommitted) and every WEBHOOKS_POLL_MS
// (other processes' commits, retries coming due). stop() lets the sends in flight finish and be recorded.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import { formatAt, onChangesCommitted, type CommittedChange } from '../change-log/log.ts';
import { readChanges } from '../change-log/read.ts';
import type { Config } from '../../config.ts';
import type { Store, Trx } from '../../store/store.ts';
import { adminActor, payloadOf, renderItems } from './payload.ts';
import { nextAttemptAt } from './schedule.ts';
import { DEFAULT_TIMEOUT_MS, sendWebhook, type Sender, type SendResult } from './send.ts';
import { signature } from './signing.ts';
import { advanceCursors, ENQUEUE_LOCK, parseEvents, selects } from './subscriptions.ts';

/** Where failed attempts and give-ups are reported: the service's logger (pino's warn), or a thread's relay to it. */
export interface DeliveryLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** For the workers tests make without reading the log. */
const UNREAD_LOG: DeliveryLog = { warn: () => {} };

export interface WorkerOptions {
  /** The clock, ms since the epoch (tests inject a fake one). */
  now?: () => number;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** An attempt without a complete 2xx answer by then fails (default 10 s). */
  timeoutMs?: number;
  /** How often to look for work besides this process's commits (default config.webhooks.pollMs). */
  pollMs?: number;
  /** How long a claimed delivery stays leased (default timeoutMs + 5 s). */
  leaseMs?: number;
  send?: Sender;
  /** Changes read, and deliveries claimed, per step. */
  batchSize?: number;
  /** How long a commit's wake-up waits for more commits to handle with it (default 20 ms). */
  batchDelayMs?: number;
  /**
   * Whether the process is serving requests: after each batch sent meanwhile, the worker pauses for YIELD_FACTOR times
   * as long as the batch took (default: never).
   */
  busy?: () => boolean;
  /** Waits that long, in real time (tests inject a recorder). */
  pause?: (ms: number) => Promise<void>;
  onError?: (error: unknown) => void;
  log?: DeliveryLog;
}

/**
 * While requests are being served, deliveries take at most 1 / (1 + YIELD_FACTOR) of the time (about 9 %): writes are
 * not slowed by their own webhooks (measured in `npm run bench`); under a sustained load deliveries fall behind and
 * catch up once the load drops, which at-least-once delivery from the change log allows.
 */
export const YIELD_FACTOR = 10;
/** The longest pause after one batch, so that a slow batch (a receiver taking seconds) does not stall the queue. */
const MAX_YIELD_MS = 2_000;

interface Outcome {
  delivery: Claimed;
  result: SendResult;
  startedMs: number;
  endedMs: number;
}

interface Claimed {
  id: number;
  webhook_id: number;
  seq: number;
  item_type: string;
  item_id: number;
  msg_id: string;
  payload: string;
  attempts: number;
  created_ms: number;
  url: string;
  secret: string;
  token: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 10_000;

export class WebhookWorker {
  readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly send: Sender;
  private readonly batchSize: number;
  private readonly onError: (error: unknown) => void;
  private readonly log: DeliveryLog;
  private readonly busy: () => boolean;
  private readonly pause: (ms: number) => Promise<void>;
  /** Several writers at once (StoreDialect.writers): claims take row locks, and own transactions skip the commit order. */
  private readonly manyWriters: boolean;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private scheduled: NodeJS.Timeout | undefined;
  private readonly batchDelayMs: number;
  private stopping = false;
  /** When {@link prune} last ran (0: not yet since the start). */
  private prunedAtMs = 0;
  /**
   * Runs a function in the context the worker was created in: a wake-up comes from a request's after-commit hook, and
   * the worker's runs must not inherit that request's context (its D31 deadline would refuse their commits).
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  private readonly store: Store;
  private readonly config: Config;

  constructor(store: Store, config: Config, options: WorkerOptions = {}) {
    this.store = store;
    this.config = config;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.pollMs = options.pollMs ?? config.webhooks.pollMs;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 5_000;
    this.send = options.send ?? sendWebhook;
    this.batchSize = options.batchSize ?? 100;
    this.batchDelayMs = options.batchDelayMs ?? 20;
    this.onError =
      options.onError ?? ((error) => process.emitWarning(error instanceof Error ? error : new Error(String(error))));
    this.log = options.log ?? UNREAD_LOG;
    this.busy = options.busy ?? (() => false);
    this.pause = options.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.manyWriters = store.writers === 'many';
  }

  /**
   * The worker's own transactions. They record no change, so on PostgreSQL they skip the store's commit order (the
   * data_version row every write transaction takes): they neither wait for writers nor invalidate read caches. On
   * SQLite the store's runner retries them while another process holds the write lock.
   */
  private tx<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
    return this.manyWriters ? this.store.db.transaction().execute(work) : this.store.transaction(work);
  }

  /** Starts working in the background: now, after each commit of this process that wrote changes, and on a timer. */
  start(): void {
    this.stopping = false;
    this.unsubscribe = onChangesCommitted(this.store, () => this.wake(this.batchDelayMs));
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops taking work; resolves once the attempts in flight are sent and recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    this.unsubscribe?.();
    await this.running;
  }

  /**
   * Asks for a run, `delayMs` from now (commits wake it after BATCH_DELAY_MS, so that a burst of writes is handled in
   * a few runs rather than one run per write); a run already going runs once more afterwards.
   */
  wake(delayMs = 0): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    if (delayMs > 0) {
      this.scheduled = setTimeout(
        () =>
          this.detached(() => {
            this.scheduled = undefined;
            this.wake();
          }),
        delayMs,
      );
      return;
    }
    this.running = this.detached(async () => {
      do {
        this.again = false;
        try {
          await this.runOnce();
        } catch (error) {
          this.onError(error);
        }
      } while (this.again && !this.stopping);
    }).finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Enqueues new changes and sends the deliveries due now, a batch of each in turn (so that a steady stream of writes
   * never starves the sending), until neither has anything left; returns how many deliveries were attempted.
   */
  async runOnce(): Promise<number> {
    let attempted = 0;
    if (this.now() - this.prunedAtMs >= PRUNE_INTERVAL_MS) await this.prune();
    for (;;) {
      if (this.stopping) return attempted;
      const read = await this.enqueue();
      if (this.stopping) return attempted;
      const claimed = await this.claim();
      if (claimed.length > 0) {
        const started = performance.now();
        await this.record(await Promise.all(claimed.map((delivery) => this.attempt(delivery))));
        attempted += claimed.length;
        if (this.busy() && !this.stopping)
          await this.pause(Math.min(MAX_YIELD_MS, (performance.now() - started) * YIELD_FACTOR));
      }
      if (read < this.batchSize && claimed.length === 0) return attempted;
    }
  }

  /**
   * Deletes settled deliveries (succeeded or failed; their attempts go with them) older than the change log's
   * retention, a batch at a time: the delivery log keeps what is recent, and its tables do not grow without bound.
   * Runs with the first work after a start and then at most hourly; returns how many deliveries went.
   */
  async prune(): Promise<number> {
    const nowMs = this.now();
    this.prunedAtMs = nowMs;
    const settledBefore = nowMs - this.config.changesRetentionDays * DAY_MS;
    let pruned = 0;
    for (;;) {
      const result = await this.tx((trx) =>
        trx
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('status', 'in', ['succeeded', 'failed'])
              .where('created_ms', '<', settledBefore)
              .limit(PRUNE_BATCH),
          )
          .executeTakeFirst(),
      );
      const deleted = Number(result.numDeletedRows);
      pruned += deleted;
      if (deleted < PRUNE_BATCH || this.stopping) return pruned;
    }
  }

  /** Turns the next batch of changes into deliveries; returns how many changes were read. */
  async enqueue(): Promise<number> {
    const db = this.store.db;
    const active = await db.selectFrom('webhooks').select('cursor').where('active', '=', 1).execute();
    if (active.length === 0) return 0;
    const from = Math.min(...active.map((row) => Number(row.cursor)));
    const changes = await readChanges(db, { afterSeq: from, limit: this.batchSize });
    if (changes.length === 0) return 0;
    const nowMs = this.now();
    const items = await renderItems(db, adminActor(this.config, DateTime.fromMillis(nowMs, { zone: 'utc' })), changes);
    const payloads = new Map<number, string>(changes.map((change) => [change.seq, payloadOf(change, items)]));
    const last = changes[changes.length - 1].seq;
    // A change of an item that has an earlier pending delivery for the subscription waits for it (claim's NOT EXISTS):
    // it is not due before that delivery's next attempt, so that while the earlier one is in retry backoff (a dead
    // receiver's, for up to three days) claims stop at it in the (status, next_attempt_ms, seq) index instead of
    // walking it on every wake-up. One probe of the (webhook_id, item_type, item_id, status, seq) index per row.
    const dueAt = (webhookId: number, itemType: string, itemId: number) => sql<number>`coalesce((
      select case when e.next_attempt_ms > ${nowMs} then e.next_attempt_ms end from webhook_deliveries e
      where e.webhook_id = ${webhookId} and e.item_type = ${itemType} and e.item_id = ${itemId} and e.status = 'pending'
      order by e.seq limit 1), ${nowMs})`;
    await this.tx(async (trx) => {
      await this.store.lock(trx, ENQUEUE_LOCK);
      const subscriptions = await trx
        .selectFrom('webhooks')
        .select(['id', 'events', 'cursor'])
        .where('active', '=', 1)
        .where('cursor', '<', last)
        .execute();
      const rows = subscriptions.flatMap((subscription) => {
        const events = parseEvents(subscription.events);
        return changes
          .filter(
            (change: CommittedChange) =>
              change.seq > Number(subscription.cursor) && selects(events, `${change.type}.${change.action}`),
          )
          .map((change) => ({
            webhook_id: subscription.id,
            seq: change.seq,
            msg_id: `msg_${change.seq}_${subscription.id}`,
            event_type: `${change.type}.${change.action}`,
            item_type: change.type,
            item_id: change.id,
            payload: payloads.get(change.seq)!,
            status: 'pending' as const,
            attempts: 0,
            next_attempt_ms: dueAt(subscription.id, change.type, change.id),
            lease_until_ms: 0,
            lease_token: '',
            created_ms: nowMs,
          }));
      });
      for (let start = 0; start < rows.length; start += 200) {
        await trx
          .insertInto('webhook_deliveries')
          .values(rows.slice(start, start + 200))
          .onConflict((conflict) => conflict.columns(['webhook_id', 'seq']).doNothing())
          .execute();
      }
      await advanceCursors(
        trx,
        subscriptions.map((subscription) => subscription.id),
        last,
      );
    });
    return changes.length;
  }

  /**
   * Leases the deliveries due now (longest due first, then oldest; never one queued behind an earlier pending one of
   * its item).
   */
  async claim(): Promise<Claimed[]> {
    const nowMs = this.now();
    const token = randomUUID();
    // Most wake-ups find nothing due: say so with one read, without a write transaction. Both reads go through the
    // (status, next_attempt_ms, seq) index and stop at the first row not due: a backlog waiting in retry backoff (a
    // dead receiver's) is never walked, which on SQLite would block the request thread on every wake-up.
    const any = await this.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_ms', '<=', nowMs)
      .where('lease_until_ms', '<=', nowMs)
      .where('webhook_id', 'in', (eb) => eb.selectFrom('webhooks').select('id').where('active', '=', 1))
      .limit(1)
      .executeTakeFirst();
    if (!any) return [];
    return this.tx(async (trx) => {
      const due = await trx
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_ms', '<=', nowMs)
        .where('d.lease_until_ms', '<=', nowMs)
        // A paused subscription's retries wait too (a subquery, so that the lock below takes no webhooks row).
        .where('d.webhook_id', 'in', (eb) => eb.selectFrom('webhooks').select('id').where('active', '=', 1))
        // One probe of the (webhook_id, item_type, item_id, status, seq) index per candidate.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as e')
                .select('e.id')
                .whereRef('e.webhook_id', '=', 'd.webhook_id')
                .whereRef('e.item_type', '=', 'd.item_type')
                .whereRef('e.item_id', '=', 'd.item_id')
                .where('e.status', '=', 'pending')
                .whereRef('e.seq', '<', 'd.seq'),
            ),
          ),
        )
        // The index's order, so that the walk stops at a batch: ordering by seq alone would make it sort every due
        // delivery after an outage, or walk the not-due ones in seq order.
        .orderBy('d.next_attempt_ms')
        .orderBy('d.seq')
        .limit(this.batchSize)
        .$if(this.manyWriters, (query) => query.forUpdate().skipLocked())
        .execute();
      if (due.length === 0) return [];
      const ids = due.map((row) => Number(row.id));
      await trx
        .updateTable('webhook_deliveries')
        .set({ lease_until_ms: nowMs + this.leaseMs, lease_token: token })
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .where('lease_until_ms', '<=', nowMs)
        .execute();
      const rows = await trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .select([
          'd.id',
          'd.webhook_id',
          'd.seq',
          'd.item_type',
          'd.item_id',
          'd.msg_id',
          'd.payload',
          'd.attempts',
          'd.created_ms',
          'w.url',
          'w.secret',
        ])
        .where('d.id', 'in', ids)
        .where('d.lease_token', '=', token)
        .orderBy('d.seq')
        .execute();
      return rows.map(
        (row): Claimed => ({
          ...row,
          id: Number(row.id),
          seq: Number(row.seq),
          created_ms: Number(row.created_ms),
          token,
        }),
      );
    });
  }

  /** Sends one claimed delivery; what to record about it. */
  private async attempt(delivery: Claimed): Promise<Outcome> {
    const startedMs = this.now();
    const timestamp = Math.floor(startedMs / 1000);
    const result = await this.send({
      url: delivery.url,
      body: delivery.payload,
      headers: {
        'webhook-id': delivery.msg_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(delivery.secret, delivery.msg_id, timestamp, delivery.payload),
      },
      timeoutMs: this.timeoutMs,
      allowPrivate: this.config.webhooks.allowPrivate,
    });
    return { delivery, result, startedMs, endedMs: this.now() };
  }

  /**
   * Records the attempts of one claimed batch in one transaction: each delivery's new state (only while this process
   * still holds its lease) and its attempt row; a retry's later deliveries of its item wait for it, and a settled
   * delivery's next one of its item is due now. Successes and attempt rows take a few statements whatever their
   * number; each failure two of its own (its retry time is its own).
   */
  private async record(outcomes: readonly Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const token = outcomes[0].delivery.token;
    // Logged once the transaction has committed (it may be run again).
    let failures: Array<{ outcome: Outcome; retryAt: number | null }> = [];
    await this.tx(async (trx) => {
      failures = [];
      const nowMs = this.now();
      const held = new Set(
        (
          await trx
            .selectFrom('webhook_deliveries')
            .select('id')
            .where(
              'id',
              'in',
              outcomes.map((outcome) => outcome.delivery.id),
            )
            .where('lease_token', '=', token)
            .execute()
        ).map((row) => Number(row.id)),
      );
      const mine = outcomes.filter((outcome) => held.has(outcome.delivery.id));
      const succeeded = mine.filter((outcome) => outcome.result.ok);
      const settled = succeeded.map((outcome) => outcome.delivery.id);
      if (succeeded.length > 0) {
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: 'succeeded',
            attempts: sql<number>`attempts + 1`,
            next_attempt_ms: nowMs,
            lease_until_ms: 0,
            lease_token: '',
          })
          .where('id', 'in', settled)
          .execute();
      }
      for (const outcome of mine) {
        const { delivery, result, endedMs } = outcome;
        if (result.ok) continue;
        const retryAt = nextAttemptAt(delivery.attempts + 1, delivery.created_ms, endedMs, this.random);
        failures.push({ outcome, retryAt });
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: retryAt === null ? 'failed' : 'pending',
            attempts: delivery.attempts + 1,
            next_attempt_ms: retryAt ?? endedMs,
            lease_until_ms: 0,
            lease_token: '',
          })
          .where('id', '=', delivery.id)
          .execute();
        if (retryAt === null) {
          settled.push(delivery.id);
          continue;
        }
        // The item's later deliveries wait for this one (see enqueue): not due before its retry either.
        await trx
          .updateTable('webhook_deliveries')
          .set({ next_attempt_ms: retryAt })
          .where('webhook_id', '=', delivery.webhook_id)
          .where('item_type', '=', delivery.item_type)
          .where('item_id', '=', delivery.item_id)
          .where('status', '=', 'pending')
          .where('seq', '>', delivery.seq)
          .where('next_attempt_ms', '<', retryAt)
          .execute();
      }
      if (settled.length > 0) {
        // The first later pending delivery of each settled one's item no longer waits: due now, not at a retry time
        // it was given to wait behind a backoff that is over. Found by id only (the min is in the SET): a condition on
        // status or next_attempt_ms could make SQLite walk the backlog in the (status, next_attempt_ms, seq) index.
        await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            next_attempt_ms: eb
              .case()
              .when('next_attempt_ms', '>', nowMs)
              .then(nowMs)
              .else(eb.ref('next_attempt_ms'))
              .end(),
          }))
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('webhook_deliveries as s')
              .select((inner) =>
                inner
                  .selectFrom('webhook_deliveries as e')
                  .select('e.id')
                  .whereRef('e.webhook_id', '=', 's.webhook_id')
                  .whereRef('e.item_type', '=', 's.item_type')
                  .whereRef('e.item_id', '=', 's.item_id')
                  .where('e.status', '=', 'pending')
                  .whereRef('e.seq', '>', 's.seq')
                  .orderBy('e.seq')
                  .limit(1)
                  .as('next'),
              )
              .where('s.id', 'in', settled),
          )
          .execute();
      }
      const rows = mine.map(({ delivery, result, startedMs }) => ({
        delivery_id: delivery.id,
        webhook_id: delivery.webhook_id,
        attempt: delivery.attempts + 1,
        attempted_utc: formatAt(new Date(startedMs)),
        succeeded: result.ok ? 1 : 0,
        response_status: result.status,
        duration_ms: result.durationMs,
        error: result.error,
        response_body: result.body,
      }));
      for (let start = 0; start < rows.length; start += 200)
        await trx
          .insertInto('webhook_attempts')
          .values(rows.slice(start, start + 200))
          .execute();
    });
    for (const { outcome, retryAt } of failures) this.logFailure(outcome, retryAt);
  }

  /**
   * Says which attempt failed and what the receiver answered (its status, or the network error's code): ids only, never
   * the secret, the payload or the URL (which may hold a receiver's token).
   */
  private logFailure({ delivery, result }: Outcome, retryAt: number | null): void {
    const fields = {
      webhook_id: delivery.webhook_id,
      delivery_id: delivery.id,
      attempt: delivery.attempts + 1,
      status: result.status,
      error_code: result.errorCode ?? null,
    };
    this.log.warn(
      { ...fields, retry_at: retryAt === null ? null : new Date(retryAt).toISOString() },
      'webhook delivery attempt failed',
    );
    if (retryAt === null) this.log.warn(fields, 'webhook delivery given up');
  }
}
