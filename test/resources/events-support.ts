// Helpers shared by the event suites: creating events through the HTTP surface and comparing event objects with the
// recorded examples.
import assert from 'node:assert/strict';
import type { Credentials, Harness } from '../helpers/harness.ts';

/** The clock of the recorded examples. */
export const EXAMPLE_NOW = '2026-11-22T04:20:22Z';

export const eventBody = (overrides: Record<string, unknown> = {}) => ({
  title: 'An Event',
  start_date: '2027-03-10 09:00:00',
  end_date: '2027-03-10 17:00:00',
  ...overrides,
});

/** Creates an event and returns its body, failing the test unless the answer is 201. */
export async function createEvent(
  h: Harness,
  overrides: Record<string, unknown> = {},
  as: Credentials = h.users.editor,
): Promise<Record<string, any>> {
  const response = await h.request('POST', '/events', { as, body: eventBody(overrides) });
  assert.equal(response.statusCode, 201, `create event: ${response.body}`);
  return response.json();
}

const ID_KEYS = new Set(['id', 'term_taxonomy_id']);

/**
 * A single event as the reference answers it: the D25 fields this service adds (additive, docs/decisions.md) checked to
 * hold their single-event values, then left out, so the rest compares with the reference's examples key for key.
 */
export function referenceShape(event: Record<string, any>): Record<string, any> {
  const { recurrence, series_id: seriesId, occurrence_start_utc: occurrenceStart, ...rest } = event;
  assert.deepEqual(
    [recurrence, seriesId, occurrenceStart],
    [[], null, null],
    'a single event: no recurrence, no series',
  );
  return rest;
}

/**
 * An object with what legitimately differs between two installs replaced by placeholders, at any depth: ids (and
 * the URLs and global ids built from them), the author id and the publication/modification stamps.
 */
export function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string'
      ? value.replace(/\?id=\d+$/, '?id=<id>').replace(/\/(events|venues|organizers|categories|tags)\/\d+$/, '/$1/<id>')
      : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (ID_KEYS.has(key) && typeof field === 'number') out[key] = '<id>';
    else if (key === 'author' && typeof field === 'string') out[key] = '<author>';
    else if (['date', 'date_utc', 'modified', 'modified_utc'].includes(key) && typeof field === 'string')
      out[key] = '<stamp>';
    else out[key] = withoutIds(field);
  }
  return out;
}

/** The `events` of a list answer as ids, in order. */
export const eventIds = (response: { json(): any }) =>
  (response.json().events as Array<{ id: number }>).map((event) => event.id);
