// §11 event passwords are secrets a client proves it knows, like application passwords: D29's failure counting
// covers them too, so that they cannot be guessed without limit through GET /events/{id}, GET /events (one guess
// against every protected event listed), the iCalendar file of an event, or an event page's password form. Guesses are
// counted by the same FailureLimiter, in the same table, windows and limits as failed logins:
// AUTH_FAILURES_PER_LOGIN per (client address, event) and per (client address, event list), and
// AUTH_FAILURES_PER_ADDRESS per client address, failed logins included. Past a limit every guess is refused (429)
// without being checked, the right password included, until the window ends. The limiter is made once per process
// (src/caches.ts) and reached through `ctx.caches.passwordGuesses`.
import type { RequestContext } from './context.ts';
import { ApiError } from './errors.ts';

/** The counter of one event's password (never a login key: those are base64url digests, `''` or `-`). */
export const eventPasswordTarget = (id: number) => `event:${id}`;
/** The counter of passwords sent to event lists, each a guess against every protected event they list. */
export const EVENT_LIST_PASSWORD_TARGET = 'event:list';

/** A `password` parameter worth checking, hence a guess: a non-empty string (an empty one opens nothing). */
export const sentPassword = (password: unknown): password is string => typeof password === 'string' && password !== '';

/** Whether a request's query names a `password` at all (even empty): its answer is the caller's, and may count a guess. */
export const queryNamesPassword = (query: unknown): boolean =>
  typeof query === 'object' && query !== null && Object.hasOwn(query, 'password');

/** The 429 of a client past a limit; the event pages answer it with a page of their own. */
export class TooManyPasswordGuesses extends ApiError {
  readonly retryAfter: number;
  constructor(seconds: number) {
    super(
      429,
      'rest_too_many_password_attempts',
      'Too many wrong event passwords. Try again later.',
      {},
      {
        headers: { 'Retry-After': String(seconds) },
      },
    );
    this.retryAfter = seconds;
  }
}

/** A guess counted as wrong until {@link PasswordGuess.settle} says it opened something. */
export interface PasswordGuess {
  settle(opened: boolean): Promise<void>;
}

/**
 * Counts a guess of the request's client address at `target` before anything is checked (so that simultaneous
 * guesses cannot overtake the limit, D33), or throws {@link TooManyPasswordGuesses} when a limit is reached.
 */
export async function startPasswordGuess(ctx: RequestContext, target: string): Promise<PasswordGuess> {
  const limiter = ctx.caches.passwordGuesses;
  const reservation = await limiter.reserve(ctx.clientAddress, target);
  if ('retryAfter' in reservation) throw new TooManyPasswordGuesses(reservation.retryAfter);
  return {
    async settle(opened) {
      if (opened) await limiter.release(reservation).catch(() => {});
    },
  };
}

/** `opens` (a constant-time comparison) as one counted guess at `target`; throws 429 past the limit without calling it. */
export async function guessPassword(ctx: RequestContext, target: string, opens: () => boolean): Promise<boolean> {
  const guess = await startPasswordGuess(ctx, target);
  const opened = opens();
  await guess.settle(opened);
  return opened;
}
