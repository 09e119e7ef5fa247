// D31: no request may hold the event loop for more than 100 ms. Long synchronous work (SQLite queries through
// better-sqlite3 run inside the caller's turn of the loop, so a whole request would otherwise be one turn) asks
// `yieldIfBusy` between steps: once the current turn has lasted SLICE_MS, the loop gets a turn before going on.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work between two turns given to the event loop. */
export const SLICE_MS = 10;

let sliceStart = performance.now();
let resetQueued = false;

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
export async function yieldIfBusy(): Promise<void> {
  queueReset();
  if (performance.now() - sliceStart < SLICE_MS) return;
  await nextTurn();
  sliceStart = performance.now();
}
