// D22: two clients that read the same ETag and both write with it: exactly one succeeds, the other gets 412. Through
// one service in-process (inject; on PostgreSQL the requests interleave on the connection pool) on both databases,
// and through two real service processes on one PostgreSQL database, the two writes going to different processes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { describeOnTwoProcesses } from '../helpers/service-process.ts';

interface Answer {
  status: number;
  body: any;
  etag: string | null;
}
type Send = (
  index: number,
  method: string,
  path: string,
  options?: { body?: unknown; ifMatch?: string },
) => Promise<Answer>;

const KINDS = [
  {
    collection: 'events',
    create: (name: string) => ({
      title: name,
      start_date: '2030-05-10 10:00:00',
      end_date: '2030-05-10 12:00:00',
      status: 'publish',
    }),
    rename: (name: string) => ({ title: name }),
    nameOf: (item: any) => item.title,
  },
  {
    collection: 'venues',
    create: (name: string) => ({ venue: name, status: 'publish' }),
    rename: (name: string) => ({ venue: name }),
    nameOf: (item: any) => item.venue,
  },
  {
    collection: 'organizers',
    create: (name: string) => ({ organizer: name, status: 'publish' }),
    rename: (name: string) => ({ organizer: name }),
    nameOf: (item: any) => item.organizer,
  },
  {
    collection: 'categories',
    create: (name: string) => ({ name }),
    rename: (name: string) => ({ name }),
    nameOf: (item: any) => item.name,
  },
  {
    collection: 'tags',
    create: (name: string) => ({ name }),
    rename: (name: string) => ({ name }),
    nameOf: (item: any) => item.name,
  },
] as const;

const ROUNDS = 5;

function scenarios(send: Send, label: string) {
  for (const kind of KINDS) {
    it(`answers one 200 and one 412 to two PATCHes of one of the ${kind.collection} with the same If-Match (${label})`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const created = await send(0, 'POST', `/${kind.collection}`, {
          body: kind.create(`If-Match race ${label} ${round} ${Math.random().toString(36).slice(2, 8)}`),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const path = `/${kind.collection}/${created.body.id}`;
        const read = await send(1, 'GET', path);
        assert.ok(read.etag);
        assert.equal((await send(0, 'GET', path)).etag, read.etag, 'every process answers the same representation');
        const names = [0, 1].map(
          (index) => `Writer ${index} ${label} ${round} ${Math.random().toString(36).slice(2, 8)}`,
        );
        const answers = await Promise.all(
          [0, 1].map((index) => send(index, 'PATCH', path, { body: kind.rename(names[index]), ifMatch: read.etag! })),
        );
        assert.deepEqual(
          answers.map((answer) => answer.status).sort(),
          [200, 412],
          JSON.stringify(answers.map((answer) => answer.body)),
        );
        const winner = answers.findIndex((answer) => answer.status === 200);
        assert.equal(answers[1 - winner].body.code, 'rest_precondition_failed');
        const final = await send(winner, 'GET', path);
        assert.equal(kind.nameOf(final.body), names[winner], "the winner's write holds, the loser changed nothing");
        assert.equal(answers[winner].etag, final.etag, 'the winner was answered the ETag the item now has');
      }
    });
  }

  it(`answers one 200 and one 412 to a trash and a PATCH of one event with the same If-Match (${label})`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await send(0, 'POST', '/events', { body: KINDS[0].create(`Trash race ${label} ${round}`) });
      const path = `/events/${created.body.id}`;
      const { etag } = await send(1, 'GET', path);
      const answers = await Promise.all([
        send(0, 'DELETE', path, { ifMatch: etag! }),
        send(1, 'PATCH', path, { body: { title: `Patched ${round}` }, ifMatch: etag! }),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [200, 412],
        JSON.stringify(answers.map((answer) => answer.body)),
      );
    }
  });
}

describeEachDatabase('If-Match races, one service', (h) => {
  const send: Send = async (_index, method, path, options = {}) => {
    const headers: Record<string, string> = options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch };
    const response = await h().request(method, path, {
      as: h().users.administrator,
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return {
      status: response.statusCode,
      body: response.json(),
      etag: (response.headers.etag as string | undefined) ?? null,
    };
  };
  scenarios(send, 'one process');
});

// One public address for both processes, as behind a load balancer: the URLs in the bodies (so the tags) are the same.
describeOnTwoProcesses(
  'If-Match races, two service processes on one PostgreSQL database',
  (h, services) => {
    const send: Send = async (index, method, path, options = {}) => {
      const service = services()[index % services().length];
      const headers: Record<string, string> = { authorization: h().users.administrator.authorization };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
      const response = await fetch(`http://127.0.0.1:${service.port}${h().api}${path}`, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      return { status: response.status, body: await response.json(), etag: response.headers.get('etag') };
    };
    scenarios(send, 'two processes');
  },
  { SITE_URL: 'http://calendar.test' },
);
