// Helpers shared by the event suites: creating events through the HTTP surface and comparing event objects with the
// recorded examples.
import assert from 'node:assert/strict';
import type { Credentials, Harness } from '../helpers/harness.ts';
import { createLinked, readExample } from './support.ts';

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

/**
 * The venue, organizer and category of examples 04 to 06, created by the administrator, and the body of example 07
 * linked to them by id. `category` is the answer to the category's POST.
 */
export async function exampleEventWithLinks(h: Harness) {
  const as = h.users.administrator;
  const venue = await createLinked(h, 'venues', readExample('04-create-venue.json').request.body!, as);
  const organizer = await createLinked(h, 'organizers', readExample('05-create-organizer.json').request.body!, as);
  const category = await h.request('POST', '/categories', {
    as,
    body: readExample('06-create-category.json').request.body,
  });
  const body = {
    ...readExample('07-create-event.json').request.body,
    venue: { id: venue.id },
    organizer: [{ id: organizer.id }],
    categories: [category.json().id],
  };
  return { venue, organizer, category, body };
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

/**
 * Every event GET /events lists to `as` in a far window (2000 to 2099), of every status, page after page, in order;
 * `query` adds to the list's parameters.
 */
export async function listEveryEvent(
  h: Harness,
  as: Credentials,
  query: Record<string, string | number | boolean> = {},
): Promise<any[]> {
  const found: any[] = [];
  for (let page = 1; ; page++) {
    const response = await h.request('GET', '/events', {
      as,
      query: {
        start_date: '2000-01-01',
        end_date: '2099-12-31',
        per_page: 100,
        page,
        status: 'publish,draft,private,pending,future',
        ...query,
      },
    });
    if (response.statusCode === 404 && page > 1) return found;
    assert.equal(response.statusCode, 200, response.body);
    found.push(...(response.json().events as any[]));
    if (page >= Number(response.headers['x-wp-totalpages'])) return found;
  }
}

/** The `events` of a list answer as ids, in order. */
export const eventIds = (response: { json(): any }) =>
  (response.json().events as Array<{ id: number }>).map((event) => event.id);

// The site the feed and FullCalendar suites read: published events in several zones, and a weekly Berlin series
// across the spring change of 2027 (28 March) with one date moved and one cancelled.

/** Published events in three zones, and a whole-days one in Tokyo; each a body for `createEvent`. */
export const ZONED_EVENTS = {
  berlin: {
    title: 'Berlin concert',
    status: 'publish',
    timezone: 'Europe/Berlin',
    start_date: '2027-03-28 01:30:00',
    end_date: '2027-03-28 04:30:00',
  },
  newYork: {
    title: 'New York meetup',
    status: 'publish',
    timezone: 'America/New_York',
    start_date: '2027-03-14 09:00:00',
    end_date: '2027-03-14 10:00:00',
  },
  tokyo: {
    title: 'Tokyo talk',
    status: 'publish',
    timezone: 'Asia/Tokyo',
    start_date: '2027-03-20 08:00:00',
    end_date: '2027-03-20 09:30:00',
  },
  festival: {
    title: 'Festival',
    status: 'publish',
    timezone: 'Asia/Tokyo',
    all_day: true,
    start_date: '2027-04-01',
    end_date: '2027-04-03',
  },
};

/** Weekly at 09:00 in Berlin from 15 March 2027, five dates: 08:00 UTC, then 07:00 UTC after the spring change. */
export const WEEKLY_ACROSS_DST = {
  title: 'Weekly across DST',
  status: 'publish',
  timezone: 'Europe/Berlin',
  start_date: '2027-03-15 09:00:00',
  end_date: '2027-03-15 10:00:00',
  recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
};

/** Creates each body in turn; answers the events in the same order. */
export async function createEvents(
  h: Harness,
  bodies: Array<Record<string, unknown>>,
  as: Credentials = h.users.editor,
): Promise<Array<Record<string, any>>> {
  const created: Array<Record<string, any>> = [];
  for (const body of bodies) created.push(await createEvent(h, body, as));
  return created;
}

/** The occurrences of a series GET /events lists to anyone between March and June 2027, in order. */
export const listedOccurrences = async (h: Harness, seriesId: number): Promise<any[]> =>
  (await h.request('GET', '/events', { query: { start_date: '2027-03-01', end_date: '2027-06-30', per_page: 50 } }))
    .json()
    .events.filter((event: any) => event.series_id === seriesId);

/** Moves a series' third date to 29 March 11:00 as "Moved once", and cancels (trashes) its fourth. */
export async function moveThirdCancelFourth(h: Harness, as: Credentials, occurrences: Array<{ id: number }>) {
  assert.equal(
    (
      await h.request('PATCH', `/events/${occurrences[2].id}`, {
        as,
        body: { title: 'Moved once', start_date: '2027-03-29 11:00:00', end_date: '2027-03-29 12:00:00' },
      })
    ).statusCode,
    200,
  );
  assert.equal((await h.request('DELETE', `/events/${occurrences[3].id}`, { as })).statusCode, 200);
}

/** A published event on 18 March 2027 in Berlin, "Called off": created, then trashed. */
export async function calledOffEvent(h: Harness, as: Credentials): Promise<Record<string, any>> {
  const event = await createEvent(
    h,
    {
      title: 'Called off',
      status: 'publish',
      timezone: 'Europe/Berlin',
      start_date: '2027-03-18 19:00:00',
      end_date: '2027-03-18 21:00:00',
    },
    as,
  );
  assert.equal((await h.request('DELETE', `/events/${event.id}`, { as })).statusCode, 200);
  return event;
}
