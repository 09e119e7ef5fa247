// Waiting for what another process or a background task does. The bound only keeps a broken run from hanging: it is
// far beyond what any machine needs, so that no test judges how fast anything is.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a wait may last before the test gives up on it as hung. */
export const HANG_GUARD_MS = 120_000;
const POLL_MS = 50;

/**
 * Polls `condition` until it holds. After {@link HANG_GUARD_MS} without it, throws naming `what` and what `account`
 * tells (a process's output, the rows seen).
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  account: () => string = () => '',
): Promise<void> {
  const giveUpAt = Date.now() + HANG_GUARD_MS;
  while (!(await condition())) {
    if (Date.now() > giveUpAt)
      throw new Error(`still waiting, after ${HANG_GUARD_MS / 1000} s, until ${what}\n${account()}`);
    await sleep(POLL_MS);
  }
}
