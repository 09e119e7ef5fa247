// D27 retry schedule: after a failed attempt, wait about 5 s, 1 min, 10 min, 1 h, 6 h, then every 12 h, each with
// ±10 % jitter, until 3 days after the first attempt; a delivery whose next attempt would come later is failed.
export const RETRY_DELAYS_MS = [5_000, 60_000, 600_000, 3_600_000, 21_600_000] as const;
const LATER_RETRY_MS = 12 * 3_600_000;
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;
const JITTER = 0.1;

/**
 * When to try again after `failures` failed attempts (1 after the first), the first made at `firstAttemptMs`; null:
 * give up. `random` in [0, 1) gives the jitter.
 */
export function nextAttemptAt(
  failures: number,
  firstAttemptMs: number,
  nowMs: number,
  random: () => number = Math.random,
): number | null {
  const base = failures <= RETRY_DELAYS_MS.length ? RETRY_DELAYS_MS[failures - 1] : LATER_RETRY_MS;
  const delay = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  const at = nowMs + delay;
  return at - firstAttemptMs > GIVE_UP_AFTER_MS ? null : at;
}
