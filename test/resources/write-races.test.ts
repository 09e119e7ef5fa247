// Writes that race (issue 10): every write path holds its rows (or a lock) from read to write. Each scenario runs
// through one service in-process (inject, whose requests interleave on PostgreSQL's connection pool) and, on
// PostgreSQL, through two real service processes on one database, requests alternating between them. SQLite in one
// process serialises writes, so there the scenarios mostly guard against regressions.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { describeOnTwoProcesses } from '../helpers/service-process.ts';

interface Answer {
  status: number;
  body: any;
}
type Send = (index: number, method: string, path: string, body?: unknown) => Promise<Answer>;

const KINDS = [
  {
    collection: 'events',
    body: (name: string) => ({
      title: name,
      start_date: '2030-05-10 10:00:00',
      end_date: '2030-05-10 12:00:00',
      status: 'publish',
    }),
  },
  { collection: 'venues', body: (name: string) => ({ venue: name, city: 'Springfield', status: 'publish' }) },
  {
    collection: 'organizers',
    body: (name: string) => ({ organizer: name, email: 'someone@example.com', status: 'publish' }),
  },
] as const;

/** One PATCH per field (and a few repeated): in any order they must all hold at the end. */
function patchesOfDifferentFields(venueId: number, organizerId: number): Array<Record<string, unknown>> {
  const distinct: Array<Record<string, unknown>> = [
    { title: 'Renamed' },
    { description: 'A new description' },
    { excerpt: 'A new excerpt' },
    { website: 'https://example.com/new' },
    { cost: '15' },
    { timezone: 'America/New_York' },
    { start_date: '2030-05-10 09:00:00' },
    { end_date: '2030-05-10 13:00:00' },
    { show_map: true },
    { show_map_link: true },
    { sticky: true },
    { featured: true },
    { venue: venueId },
    { organizer: [organizerId] },
    { categories: ['Race category'] },
    { tags: ['race-tag'] },
    { image: 'https://example.com/race.jpg' },
    { slug: 'race-slug' },
    { date_utc: '2026-01-02 03:04:05' },
    { hide_from_listings: true },
  ];
  return [...distinct, ...distinct.slice(0, 10)];
}

function scenarios(send: Send, h: () => Harness, label: string) {
  for (const kind of KINDS) {
    it(`answers one 200 and one 410 to two simultaneous deletes of one of the ${kind.collection} (${label})`, async () => {
      for (let round = 0; round < 5; round++) {
        const created = await send(0, 'POST', `/${kind.collection}`, kind.body(`Delete race ${label} ${round}`));
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const answers = await Promise.all(
          [0, 1].map((index) => send(index, 'DELETE', `/${kind.collection}/${created.body.id}`)),
        );
        assert.deepEqual(
          answers.map((answer) => answer.status).sort(),
          [200, 410],
          JSON.stringify(answers.map((answer) => answer.body)),
        );
      }
    });
  }

  for (const kind of KINDS.filter((candidate) => candidate.collection !== 'events')) {
    it(`makes one item of 50 simultaneous creates of one ${kind.collection.slice(0, -1)} name (${label})`, async () => {
      const name = `Same name ${label} ${Math.random().toString(36).slice(2)}`;
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, index) => send(index, 'POST', `/${kind.collection}`, kind.body(name))),
      );
      assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [201]);
      assert.equal(new Set(answers.map((answer) => answer.body.id)).size, 1, 'every create answers the same item');
      const rows = await h().store.db.selectFrom('posts').select('id').where('title', '=', name).execute();
      assert.equal(rows.length, 1);
    });
  }

  it(`loses no field of 30 simultaneous PATCHes of different fields of one event (${label})`, async () => {
    const venue = await send(0, 'POST', '/venues', { venue: `Patch race hall ${label}`, status: 'publish' });
    const organizer = await send(0, 'POST', '/organizers', {
      organizer: `Patch race host ${label}`,
      status: 'publish',
    });
    for (let round = 0; round < 3; round++) {
      const created = await send(0, 'POST', '/events', {
        title: 'Before',
        start_date: '2030-05-10 10:00:00',
        end_date: '2030-05-10 12:00:00',
        timezone: 'Europe/Berlin',
        status: 'publish',
      });
      const id = created.body.id;
      const patches = patchesOfDifferentFields(venue.body.id, organizer.body.id);
      const answers = await Promise.all(patches.map((body, index) => send(index, 'PATCH', `/events/${id}`, body)));
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));

      const event = (await send(0, 'GET', `/events/${id}?context=edit`)).body;
      assert.equal(event.title, 'Renamed');
      assert.match(event.description, /A new description/);
      assert.match(event.excerpt, /A new excerpt/);
      assert.equal(event.website, 'https://example.com/new');
      assert.equal(event.cost, '$15');
      assert.equal(event.timezone, 'America/New_York');
      assert.equal(event.start_date, '2030-05-10 09:00:00');
      assert.equal(event.end_date, '2030-05-10 13:00:00');
      assert.equal(
        event.utc_start_date,
        '2030-05-10 13:00:00',
        'the UTC start follows the zone and the wall-clock time',
      );
      assert.equal(event.utc_end_date, '2030-05-10 17:00:00');
      for (const flag of ['show_map', 'show_map_link', 'sticky', 'featured', 'hide_from_listings'])
        assert.equal(event[flag], true, flag);
      assert.equal(event.venue.id, venue.body.id);
      assert.deepEqual(
        event.organizer.map((item: { id: number }) => item.id),
        [organizer.body.id],
      );
      assert.deepEqual(
        event.categories.map((term: { name: string }) => term.name),
        ['Race category'],
      );
      assert.deepEqual(
        event.tags.map((term: { slug: string }) => term.slug),
        ['race-tag'],
      );
      assert.equal(event.image.url, 'https://example.com/race.jpg');
      assert.match(event.slug, /^race-slug/);
      assert.equal(event.date_utc, '2026-01-02 03:04:05');
    }
  });
}

describeEachDatabase('Write races, one service', (h) => {
  const send: Send = async (_index, method, path, body) => {
    const response = await h().request(method, path, {
      as: h().users.administrator,
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.statusCode, body: response.json() };
  };
  scenarios(send, h, 'one process');
});

describeOnTwoProcesses('Write races, two service processes on one PostgreSQL database', (h, services) => {
  const send: Send = async (index, method, path, body) => {
    const service = services()[index % services().length];
    const response = await fetch(`http://127.0.0.1:${service.port}${h().api}${path}`, {
      method,
      headers: {
        authorization: h().users.administrator.authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  scenarios(send, h, 'two processes');
});
