// A list's statements are prepared once per shape of list (core/events/list-statements.ts) from placeholders for its
// values: every statement a prepared list runs must be, text and values, the one its builder makes for the request.
// Random lists of many shapes, many of them the same shape with other values, on both databases; then the lists
// themselves through the API, which must answer what they answered before any was prepared.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DateTime } from 'luxon';
import type { Role } from '../../src/domain/access.ts';
import { compiledListStatement, listShapeKey, type ListStatement } from '../../src/core/events/list-statements.ts';
import { planEventList, type EventListParams } from '../../src/core/events/list-query.ts';
import { eventListQueries, listBuilder } from '../../src/core/events/store.ts';
import { formatWp } from '../../src/domain/dates/stored-format.ts';
import type { PageStart } from '../../src/core/events/page-seeks.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

/** A deterministic generator (Park–Miller), so that a failure names its seed. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
  return {
    chance: (p: number) => next() < p,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}

const day = (r: ReturnType<typeof random>) =>
  `20${r.int(26, 29)}-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}`;

function randomParams(r: ReturnType<typeof random>): EventListParams {
  const ids = (max: number) => Array.from({ length: r.int(1, 3) }, () => r.int(1, max));
  const params: EventListParams = { page: r.int(1, 40) };
  if (r.chance(0.3)) params.per_page = r.pick([5, 10, 50]);
  if (r.chance(0.4)) params.start_date = day(r);
  if (r.chance(0.3)) params.end_date = `${day(r)} 23:59:59`;
  if (r.chance(0.1)) params.starts_after = day(r);
  if (r.chance(0.1)) params.ends_before = day(r);
  if (r.chance(0.1)) params.strict_dates = true;
  if (r.chance(0.2)) params.venue = ids(500);
  if (r.chance(0.2)) params.organizer = ids(500);
  if (r.chance(0.1)) params.featured = r.chance(0.5);
  if (r.chance(0.1)) params.geoloc = r.chance(0.5);
  if (r.chance(0.1)) params.post_parent = r.int(0, 9);
  if (r.chance(0.1)) params.modified_after = `${day(r)} 10:00:00`;
  if (r.chance(0.1)) params.modified_before = `${day(r)} 12:00:00`;
  // Lists built per request: their statements must simply not be prepared.
  if (r.chance(0.05)) params.search = r.pick(['jazz', 'é', 'a b']);
  if (r.chance(0.05)) params.include = ids(9_999);
  if (r.chance(0.05)) params.collapse_series = true;
  return params;
}

describeEachDatabase('list statements prepared once per shape', (h) => {
  it('are the builder’s own statements, text and values, for random lists of readers of every scope', async () => {
    const r = random(20261127);
    const store = h().store;
    const viewers: Array<{ id: number; role: Role } | null> = [
      null,
      { id: 7, role: 'subscriber' },
      { id: 8, role: 'author' },
      { id: 9, role: 'administrator' },
    ];
    let prepared = 0;
    for (let round = 0; round < 600; round++) {
      const viewer = r.pick(viewers);
      const now = DateTime.fromISO('2027-03-01T10:00:00Z', { zone: 'utc' }).plus({ minutes: r.int(0, 100_000) });
      const actor = { viewer, now, config: h().config };
      const params = randomParams(r);
      if (viewer !== null && viewer.role === 'administrator' && r.chance(0.5))
        params.status = r.pick([['draft'], ['publish', 'future'], ['pending', 'private', 'publish']]);
      const plan = planEventList(params, {
        viewer,
        siteZone: 'Europe/Lisbon',
        now,
        perPageDefault: 10,
        perPageMax: 100,
        categoryIds: r.chance(0.3) ? [r.int(1, 40), r.int(41, 80)].slice(0, r.int(1, 2)) : undefined,
        tagIds: r.chance(0.2) ? [r.int(1, 40)] : undefined,
      });
      const start: PageStart | undefined =
        plan.order === 'start' && r.chance(0.2)
          ? {
              after: { start: `${day(r)} 20:00:00`, published: `${day(r)} 09:00:00`, id: r.int(1, 9_999) },
              skip: r.int(500, 5_000),
              readAt: formatWp(now),
            }
          : undefined;
      const walkInOrder = r.chance(0.2);
      const statement = r.pick<ListStatement>(['page', 'pageWithTotal', 'count']);
      const request = { store, viewer, nowUtc: formatWp(now), plan, start, walkInOrder };
      const compiled = compiledListStatement(request, statement, listBuilder(store, actor));
      const key = listShapeKey(plan, viewer, statement, { seeking: start !== undefined, walkInOrder });
      assert.equal(compiled === undefined, key === undefined, `round ${round}: prepared exactly when it has a shape`);
      if (compiled === undefined) continue;
      prepared++;
      const own = eventListQueries(store, actor, plan, start, walkInOrder)[statement].compile();
      assert.equal(compiled.sql, own.sql, `round ${round}: ${JSON.stringify(params)}`);
      assert.deepEqual(compiled.parameters, own.parameters, `round ${round}: ${JSON.stringify(params)}`);
    }
    assert.ok(prepared > 300, `${prepared} of 600 lists prepared`);
  });

  it('answer what the data holds, list after list of the same shapes', async () => {
    const as = h().users.administrator;
    const venue = (await h().request('POST', '/venues', { as, body: { venue: 'Shape Hall' } })).json().id;
    const category = (await h().request('POST', '/categories', { as, body: { name: 'Shapes' } })).json().id;
    const events: Array<{ title: string; month: number; venue: boolean; category: boolean }> = [];
    for (let index = 0; index < 24; index++) {
      const event = {
        title: `Shape ${index}`,
        month: 1 + (index % 6),
        venue: index % 2 === 0,
        category: index % 3 === 0,
      };
      const date = `2032-0${event.month}-${String(1 + index).padStart(2, '0')}`;
      const created = await h().request('POST', '/events', {
        as,
        body: {
          title: event.title,
          status: 'publish',
          start_date: `${date} 20:00:00`,
          end_date: `${date} 21:00:00`,
          ...(event.venue ? { venue: { id: venue } } : {}),
          ...(event.category ? { categories: [category] } : {}),
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      events.push(event);
    }
    // Each shape asked for six times with other values (the month, the page): all but the first run its prepared
    // statement, and each must find exactly its events.
    for (const filter of ['none', 'venue', 'category and venue'] as const)
      for (const page of [1, 2])
        for (let month = 1; month <= 6; month++) {
          const query: Record<string, string> = {
            start_date: `2032-0${month}-01`,
            end_date: `2032-0${month}-28`,
            per_page: '2',
            page: String(page),
          };
          if (filter !== 'none') query.venue = String(venue);
          if (filter === 'category and venue') query.categories = String(category);
          const expected = events.filter(
            (event) =>
              event.month === month &&
              (filter === 'none' || event.venue) &&
              (filter !== 'category and venue' || event.category),
          );
          const answer = await h().request('GET', '/events', { query });
          const titles = expected.slice((page - 1) * 2, page * 2).map((event) => event.title);
          if (titles.length === 0 && page > 1) {
            assert.equal(answer.statusCode, 404, `${JSON.stringify(query)}: past the last page`);
            continue;
          }
          assert.equal(answer.statusCode, 200, answer.body);
          assert.equal(answer.headers['x-wp-total'], String(expected.length), JSON.stringify(query));
          assert.deepEqual(
            answer.json().events.map((event: { title: string }) => event.title),
            titles,
            JSON.stringify(query),
          );
        }
  });
});
