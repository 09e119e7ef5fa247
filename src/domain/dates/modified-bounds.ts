// D24 `modified_after` / `modified_before` on the event, venue and organizer lists: bounds on `modified_utc`.
// Values use the D8 date grammar read in the site time zone (like every list date); `modified_after` is exclusive,
// `modified_before` inclusive, so `after=X` and `before=X` split a set in two without overlap or gap. Lists echo the
// bounds as UTC instants (`2024-05-01T10:00:00Z`), which read back to the same instant whatever the zone, DST
// included, and keep a relative value such as `3 days ago` from moving while a client follows next_rest_url.
import type { DateTime } from 'luxon';
import type { EchoedQuery } from '../lists.ts';
import { parseDateInput } from './input-grammar.ts';
import { formatWp } from './stored-format.ts';

/** Bounds on `modified_utc`, UTC `YYYY-MM-DD HH:MM:SS`: `modified_utc > after` and `modified_utc <= before`. */
export interface ModifiedBounds {
  after?: string;
  before?: string;
}

/** A validated value as a UTC bound (undefined when not sent). */
function utcBound(input: unknown, siteZone: string, now: DateTime): string | undefined {
  if (input === undefined) return undefined;
  const parsed = parseDateInput(input, siteZone, now);
  return parsed === null ? undefined : formatWp(parsed.toUTC());
}

export function modifiedBounds(
  params: { modified_after?: unknown; modified_before?: unknown },
  siteZone: string,
  now: DateTime,
): ModifiedBounds {
  return {
    after: utcBound(params.modified_after, siteZone, now),
    before: utcBound(params.modified_before, siteZone, now),
  };
}

const asInstant = (bound: string | undefined) => (bound === undefined ? undefined : `${bound.replace(' ', 'T')}Z`);

/** What rest_url and the page links carry for the bounds. */
export const modifiedEcho = (bounds: ModifiedBounds): EchoedQuery => [
  ['modified_after', asInstant(bounds.after)],
  ['modified_before', asInstant(bounds.before)],
];
