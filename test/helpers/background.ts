// The background jobs a serving process runs on its own (src/serve.ts), run here on demand: the harness serves through
// app.inject and starts none of them.
import { DateTime } from 'luxon';
import { runSeriesHorizons, type HorizonRun } from '../../src/core/background/series-horizons.ts';
import type { Harness } from './harness.ts';

/** The series-horizon job as of `iso` (the harness's fixed "now"), as serve.ts runs it every hour. */
export const runHorizonJob = (h: Harness, iso: string): Promise<HorizonRun> =>
  runSeriesHorizons(h.store, { viewer: null, now: DateTime.fromISO(iso, { zone: 'utc' }), config: h.config });
