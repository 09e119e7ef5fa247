// The venue's own fields as the core reads them: which are plain text, and the one rule across fields (D13).
import type { FieldIssue } from '../../domain/errors.ts';

export const VENUE_TEXT_FIELDS = [
  'address',
  'city',
  'country',
  'province',
  'state',
  'zip',
  'phone',
  'stateprovince',
] as const;

/** D13: coordinates come as a pair, both numbers or both `""` (which clears them). */
export function checkCoordinates(sent: Record<string, unknown>): Record<string, FieldIssue | null> | null {
  const hasLat = sent.geo_lat !== undefined;
  const hasLng = sent.geo_lng !== undefined;
  if (!hasLat && !hasLng) return null;
  if (hasLat !== hasLng) {
    const missing = hasLat ? 'geo_lng' : 'geo_lat';
    return {
      [missing]: {
        code: 'rest_missing_coordinate',
        message: 'geo_lat and geo_lng must be sent together.',
        data: { param: missing },
      },
    };
  }
  if ((sent.geo_lat === '') === (sent.geo_lng === '')) return null;
  const empty = sent.geo_lat === '' ? 'geo_lat' : 'geo_lng';
  return {
    [empty]: {
      code: 'rest_missing_coordinate',
      message: 'geo_lat and geo_lng are cleared together: send "" for both.',
      data: { param: empty },
    },
  };
}
