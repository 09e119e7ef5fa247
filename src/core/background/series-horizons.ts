// D25: open-ended series are materialised up to RECURRENCE_HORIZON_DAYS ahead, and as days pass their horizon moves.
// Moving it is background work, never a reader's: a GET must not write (nor wait for a write under its deadline). This
// job runs when a process starts and then every hour; a lease in the `settings` table (taken and given back under a
// database lock) lets one process at a time do a day's run, and the day counts as done only once the run has finished,
// so a process that dies half-way leaves the rest to the next one. Each series is claimed and checked again inside its
// own transaction, so even two runs at once would extend it once.
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { extendSeriesHorizons } from '../events/series.ts';
import { readSetting, writeSetting } from '../settings/store.ts';
import type { Store } from '../../store/store.ts';

/** The `settings` row: `<UTC day done>|<lease held until, UTC>`. */
export const SERIES_HORIZONS_SETTING = 'series_horizons';
const LOCK = 'series-horizons';
/** A run that has not finished by then (its process died) is taken over by the next process to try. */
const LEASE_MS = 10 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

interface RunState {
  doneDay: string;
  leaseUntil: string;
}

const parse = (value: string | undefined): RunState => {
  const [doneDay = '', leaseUntil = ''] = (value ?? '').split('|');
  return { doneDay, leaseUntil };
};

async function writeState(store: Store, change: (state: RunState) => RunState | null): Promise<boolean> {
  return store.transaction(async (trx) => {
    await store.lock(trx, LOCK);
    const next = change(parse(await readSetting(trx, SERIES_HORIZONS_SETTING)));
    if (next === null) return false;
    await writeSetting(trx, SERIES_HORIZONS_SETTING, `${next.doneDay}|${next.leaseUntil}`);
    return true;
  });
}

export type HorizonRun =
  | { ran: true; created: number }
  | { ran: false; reason: 'done today' | 'another process is running it' };

/**
 * Today's run, if nobody did it yet and nobody is doing it: takes the lease, extends every series whose horizon fell
 * behind, then marks the day done. `actor` gives the clock and the settings; the job reads every series, whatever its
 * status, so its viewer does not matter (the background runs it as nobody: `null`).
 */
export async function runSeriesHorizons(store: Store, actor: Actor): Promise<HorizonRun> {
  const now = actor.now.toUTC();
  const today = now.toISODate()!;
  const nowUtc = formatWp(now);
  let busy = false;
  const taken = await writeState(store, (state) => {
    if (state.doneDay === today) return null;
    if (state.leaseUntil > nowUtc) {
      busy = true;
      return null;
    }
    return { doneDay: state.doneDay, leaseUntil: formatWp(now.plus({ milliseconds: LEASE_MS })) };
  });
  if (!taken) return { ran: false, reason: busy ? 'another process is running it' : 'done today' };
  try {
    const created = await extendSeriesHorizons(store, actor);
    await writeState(store, () => ({ doneDay: today, leaseUntil: '' }));
    return { ran: true, created };
  } catch (error) {
    // Given back at once, so that the next try (this process's next hour, or another process) need not wait out the lease.
    await writeState(store, (state) => ({ doneDay: state.doneDay, leaseUntil: '' })).catch(() => {});
    throw error;
  }
}

export interface SeriesHorizonsOptions {
  /** The actor of a run (its clock read afresh each time). */
  actor: () => Actor;
  onError: (error: unknown) => void;
  intervalMs?: number;
}

/**
 * Runs now and then every hour (the timer does not keep the process alive); returns a function that stops it and
 * waits for a run in flight, so that the store can then be closed.
 */
export function keepSeriesHorizons(store: Store, options: SeriesHorizonsOptions): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const tick = () => {
    if (running) return;
    running = runSeriesHorizons(store, options.actor())
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, options.intervalMs ?? HOUR_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
