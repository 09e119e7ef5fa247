// D31: each request has a deadline (REQUEST_TIMEOUT_MS). The HTTP edge runs a request's work under one
// (`runWithDeadline`); the store refuses to commit a transaction once it has passed (`claimCommit`), so a request
// answered 503 `rest_timeout` never leaves a write behind, and long loops stop early (`checkDeadline`).
import { AsyncLocalStorage } from 'node:async_hooks';
import { DomainError } from '../domain/errors.ts';

interface DeadlineState {
  /** Date.now() value at which the request's time is up. */
  readonly at: number;
  /** Set once the deadline has been acted on: no commit may begin after it. */
  expired: boolean;
  /** Commits under way: while one is, the deadline waits for its outcome instead of answering 503. */
  committing: number;
}

const current = new AsyncLocalStorage<DeadlineState>();

/** The request ran out of time (503 `rest_timeout` at the edge); whatever it was writing was rolled back. */
export const deadlineExceeded = () =>
  new DomainError(
    'timeout',
    'rest_timeout',
    'The request took longer than the server allows and was stopped; nothing it was writing was saved. Try again, or ask for less (a smaller per_page).',
  );

/** PostgreSQL's `statement_timeout` (query_canceled, 57014) is the same failure, seen by one statement. */
export const isStatementTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '57014';

function expire(state: DeadlineState): boolean {
  if (!state.expired && Date.now() >= state.at) state.expired = true;
  return state.expired;
}

/**
 * Runs `work` with a deadline `ms` from now: at the deadline the promise rejects with {@link deadlineExceeded}
 * unless a commit has begun (a write whose commit is under way is answered with its outcome: the client must not be
 * told 503 about a write that happened). Work still running after the 503 finds no way to commit.
 */
export function runWithDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const state: DeadlineState = { at: Date.now() + ms, expired: false, committing: 0 };
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      state.expired = true;
      if (settled || state.committing > 0) return;
      settled = true;
      reject(deadlineExceeded());
    }, ms);
    current.run(state, work).then(
      (value) => {
        clearTimeout(timer);
        if (!settled) resolve(value);
        settled = true;
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!settled) reject(isStatementTimeout(error) ? deadlineExceeded() : error);
        settled = true;
      },
    );
  });
}

/** Throws {@link deadlineExceeded} when the current request's deadline has passed (a cheap check for loops). */
export function checkDeadline(): void {
  const state = current.getStore();
  if (state && expire(state)) throw deadlineExceeded();
}

/**
 * Called by the store just before a transaction commits: throws (so the transaction rolls back) when the request's
 * deadline has passed, else marks a commit as under way until the returned release is called.
 */
export function claimCommit(): () => void {
  const state = current.getStore();
  if (!state) return () => {};
  if (expire(state)) throw deadlineExceeded();
  state.committing++;
  let released = false;
  return () => {
    if (!released) state.committing--;
    released = true;
  };
}
