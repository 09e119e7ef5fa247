// What one benchmark scenario is, and what a scenario module receives: run.ts measures its own core scenarios, then
// those of every module in bench/scenarios/ (feeds, pages, …), each exporting `scenarios(context)`.
import type { SeedResult } from './seed.ts';

export interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST' | 'PATCH';
  body?: string;
  /** A new body for every request. */
  makeBody?: () => string;
  /** A new path (with query) for every request, for varied traffic; `url` then only gives the origin. */
  makePath?: () => string;
  authorized?: boolean;
  connections?: number;
  /** Extra request headers (a conditional GET's If-None-Match). */
  headers?: Record<string, string>;
  /** Runs before the scenario is measured. */
  setup?: () => Promise<void>;
}

export interface BenchContext {
  /** `http://127.0.0.1:<port>/calendar/events/v1` */
  api: string;
  /** `http://127.0.0.1:<port>`: the site root (public pages). */
  site: string;
  /** A Basic header of an administrator. */
  authorization: string;
  seeded: SeedResult;
}

export interface ScenarioModule {
  scenarios(context: BenchContext): Scenario[] | Promise<Scenario[]>;
}
