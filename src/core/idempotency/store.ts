// D23: the table `idempotency_keys`, which this module alone reads and writes. A key is claimed by one atomic statement
// (an insert that does nothing when a live row exists), so of simultaneous requests with one key, in one process or
// many, exactly one runs the create; the others find its row. The claim holds a random token: only the attempt that
// made it stores the answer or gives the key back, so an attempt whose lease was taken over cannot overwrite the row
// of the attempt that took it.
//
// Expired rows are never replayed (every read checks the age) and are deleted in the background at most once an
// interval (an hour) per process, after a claim: by a range on an index, in bounded batches, nothing on replays, as
// the change log's retention does (src/core/change-log/retention.ts).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/store.ts';

const HOUR_MS = 60 * 60 * 1000;
/** How long a key is kept and replayed (D23: 24 hours). */
export const KEY_RETENTION_MS = 24 * HOUR_MS;
/**
 * How long a `running` row blocks its key. Longer than any request may run (REQUEST_TIMEOUT_MS, D31, is 30 s), so a
 * live attempt is never taken over; a row older than this was left by a process that stopped (crash, kill) and a new
 * attempt takes it over.
 */
export const CLAIM_LEASE_MS = 60 * 1000;
/** Rows deleted per statement when pruning, so that a large backlog never holds the write lock for long. */
const ROWS_PER_PRUNE = 10_000;

/** Whose key and where: keys of different users, or of different routes, never meet. */
export interface KeyScope {
  userId: number;
  /** Method and route pattern, e.g. `POST /calendar/events/v1/events`. */
  route: string;
  key: string;
}

/** A create's answer as it was first sent (the handler's own headers; the plugins add theirs on every send). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  type: string | null;
  payload: string | Buffer | null;
}

/** The headers `complete` stored as JSON: an object of strings; anything else is a bug, and throws. */
function parseStoredHeaders(json: string): Record<string, string> {
  const value: unknown = JSON.parse(json);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new TypeError(`stored answer headers are not an object: ${json.slice(0, 80)}`);
  const headers: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (typeof text !== 'string') throw new TypeError(`stored answer header ${name} is not a string`);
    headers[name] = text;
  }
  return headers;
}

export type KeyState =
  /** This attempt holds the key: run the create, then {@link IdempotencyKeys.complete} or {@link IdempotencyKeys.release}. */
  | { state: 'claimed'; claim: string }
  /** Another attempt holds the key and has not answered yet. */
  | { state: 'running'; requestHash: string }
  /** The key's create answered: replay `answer` if the request is the same. */
  | { state: 'done'; requestHash: string; answer: StoredAnswer };

export interface IdempotencyKeysOptions {
  retentionMs?: number;
  leaseMs?: number;
  /** Least time between two prunings of this process. */
  pruneIntervalMs?: number;
  /** Milliseconds since the epoch (tests). */
  clock?: () => number;
  /** Where a failed background pruning is reported (it is tried again an interval later). */
  onPruneError?: (error: unknown) => void;
}

const byScope = (scope: KeyScope) => ({ user_id: scope.userId, route: scope.route, key: scope.key });

export class IdempotencyKeys {
  readonly #db: Db;
  readonly #retentionMs: number;
  readonly #leaseMs: number;
  readonly #pruneIntervalMs: number;
  readonly #clock: () => number;
  readonly #onPruneError: (error: unknown) => void;
  /** 0: the first claim of this process prunes (as the change log is pruned when the service starts). */
  #lastPrune = 0;
  #pruning = false;

  constructor(db: Db, options: IdempotencyKeysOptions = {}) {
    this.#db = db;
    this.#retentionMs = options.retentionMs ?? KEY_RETENTION_MS;
    this.#leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
    this.#pruneIntervalMs = options.pruneIntervalMs ?? HOUR_MS;
    this.#clock = options.clock ?? Date.now;
    this.#onPruneError = options.onPruneError ?? (() => {});
  }

  /**
   * Looks the key up and claims it when it is free: absent, expired, or `running` past its lease (abandoned). A live
   * row is only read, so a replay writes nothing. The claim is one statement (insert, or take over an expired or
   * abandoned row, else nothing): of simultaneous attempts exactly one gets it, whatever process they run in.
   */
  async begin(scope: KeyScope, requestHash: string): Promise<KeyState> {
    let seen: KeyState | undefined;
    // A row can vanish between the read and the claim (its attempt failed and gave the key back): look again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.#clock();
      const row = await this.#db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'state', 'created_ms', 'status', 'headers', 'content_type', 'body', 'body_base64'])
        .where('user_id', '=', scope.userId)
        .where('route', '=', scope.route)
        .where('key', '=', scope.key)
        .executeTakeFirst();
      if (row && this.#isLive(row.state, Number(row.created_ms), now)) {
        seen =
          row.state === 'running'
            ? { state: 'running', requestHash: row.request_hash }
            : {
                state: 'done',
                requestHash: row.request_hash,
                answer: {
                  status: row.status!,
                  headers: parseStoredHeaders(row.headers ?? '{}'),
                  type: row.content_type,
                  payload:
                    row.body === null
                      ? null
                      : Number(row.body_base64) === 1
                        ? Buffer.from(row.body, 'base64')
                        : row.body,
                },
              };
        return seen;
      }
      const claim = randomUUID();
      const fresh = {
        request_hash: requestHash,
        state: 'running' as const,
        claim,
        created_ms: now,
        status: null,
        headers: null,
        content_type: null,
        body: null,
        body_base64: 0,
      };
      const taken = await this.#db
        .insertInto('idempotency_keys')
        .values({ ...byScope(scope), ...fresh })
        .onConflict((conflict) =>
          conflict
            .columns(['user_id', 'route', 'key'])
            .doUpdateSet(fresh)
            .where((eb) =>
              eb.or([
                eb('idempotency_keys.created_ms', '<=', now - this.#retentionMs),
                eb.and([
                  eb('idempotency_keys.state', '=', 'running'),
                  eb('idempotency_keys.created_ms', '<=', now - this.#leaseMs),
                ]),
              ]),
            ),
        )
        .returning('claim')
        .executeTakeFirst();
      if (taken?.claim === claim) {
        this.#pruneNowAndThen(now);
        return { state: 'claimed', claim };
      }
    }
    // Claimed and given back over and over by others: as good as in use.
    return seen ?? { state: 'running', requestHash };
  }

  /** Stores the answer of the attempt that holds `claim`; false when its claim was taken over meanwhile. */
  async complete(scope: KeyScope, claim: string, answer: StoredAnswer): Promise<boolean> {
    const { payload } = answer;
    const binary = Buffer.isBuffer(payload);
    const result = await this.#db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        status: answer.status,
        headers: JSON.stringify(answer.headers),
        content_type: answer.type,
        body: payload === null ? null : binary ? payload.toString('base64') : payload,
        body_base64: binary ? 1 : 0,
      })
      .where('user_id', '=', scope.userId)
      .where('route', '=', scope.route)
      .where('key', '=', scope.key)
      .where('claim', '=', claim)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Gives the key back (the create failed): the next attempt with it runs afresh. */
  async release(scope: KeyScope, claim: string): Promise<void> {
    await this.#db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', scope.userId)
      .where('route', '=', scope.route)
      .where('key', '=', scope.key)
      .where('claim', '=', claim)
      .execute();
  }

  /** Deletes the keys older than the retention, in batches; returns how many. */
  async prune(): Promise<number> {
    const cutoff = this.#clock() - this.#retentionMs;
    let deleted = 0;
    for (;;) {
      const result = await this.#db
        .deleteFrom('idempotency_keys')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('user_id', 'route', 'key'),
            'in',
            selectFrom('idempotency_keys')
              .select(['user_id', 'route', 'key'])
              .where('created_ms', '<=', cutoff)
              .orderBy('created_ms')
              .limit(ROWS_PER_PRUNE)
              .$asTuple('user_id', 'route', 'key'),
          ),
        )
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      deleted += count;
      if (count < ROWS_PER_PRUNE) return deleted;
    }
  }

  #isLive(state: 'running' | 'done', createdMs: number, now: number): boolean {
    if (createdMs <= now - this.#retentionMs) return false;
    return state === 'done' || createdMs > now - this.#leaseMs;
  }

  /** At most one pruning at a time and one an interval per process, in the background. */
  #pruneNowAndThen(now: number): void {
    if (this.#pruning || now - this.#lastPrune < this.#pruneIntervalMs) return;
    this.#pruning = true;
    this.#lastPrune = now;
    this.prune()
      .catch((error: unknown) => this.#onPruneError(error))
      .finally(() => {
        this.#pruning = false;
      });
  }
}
