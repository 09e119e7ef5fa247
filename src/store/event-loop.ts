// D31: no request may hold the event loop for more than 100 ms. Long synchronous work (SQLite queries through
// better-sqlite3 run inside the caller's turn of the loop, so a whole request would otherwise be one turn) asks
// `yieldIfBusy` between steps: once the current turn has lasted SLICE_MS, the loop gets a turn before going on.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work between two turns given to the event loop. */
export const SLICE_MS = 10;

let sliceMs = SLICE_MS;
let sliceStart = performance.now();
let resetQueued = false;
/** Why work gave the loop a turn: a SQLite statement ended, a row was rendered, or a part of an answer was written. */
export type TurnReason = 'statement' | 'row' | 'answer';
const turnsGiven: Record<TurnReason, number> = { statement: 0, row: 0, answer: 0 };

/**
 * Starts a new slice at the next turn of the loop. Queued at most once per turn: when it runs, whatever ran before it
 * in this turn has ended, so `sliceStart` never comes later than the start of the work being measured (the estimate
 * errs towards yielding).
 */
function queueReset(): void {
  if (resetQueued) return;
  resetQueued = true;
  setImmediate(() => {
    resetQueued = false;
    sliceStart = performance.now();
  });
}

/** Gives the event loop a turn when the current one has lasted {@link SLICE_MS}; otherwise resolves at once. */
export async function yieldIfBusy(reason: TurnReason): Promise<void> {
  queueReset();
  if (performance.now() - sliceStart < sliceMs) return;
  turnsGiven[reason]++;
  await nextTurn();
  sliceStart = performance.now();
}

/** The turns {@link yieldIfBusy} has given the loop in this process, by reason (tests count them). */
export function countTurnsGiven(): Record<TurnReason, number> {
  return { ...turnsGiven };
}

/**
 * For tests: a slice of 0 gives the loop a turn at every check, so that the turns a request gives can be counted
 * against the pieces its work has, whatever the machine's speed; null restores {@link SLICE_MS}.
 */
export function setSliceForTests(ms: number | null): void {
  sliceMs = ms ?? SLICE_MS;
}
