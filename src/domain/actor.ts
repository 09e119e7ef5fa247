// Who is acting and when: everything a core service needs to know about the caller, whatever surface called it (the
// JSON API, a page, a feed, the command line or a background worker).
import type { DateTime } from 'luxon';
import type { Config } from '../config.ts';
import type { Viewer } from './access.ts';

export interface Actor {
  /** `null` for an anonymous reader. */
  viewer: Viewer;
  /** Fixed for the whole operation, so that every rule sees the same "now" (UTC). */
  now: DateTime;
  config: Config;
}
