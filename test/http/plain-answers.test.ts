// A read's plain answer (http/routes.ts `plainAnswer`): a GET with no query string, from anyone, is answered without
// the endpoint's arguments, checks and handler when the endpoint can (GET /events/{id} of a public event, from its
// stored document). The mechanism is checked on a route of its own, where it can be counted; the events'
// answers are checked against the same request with a query string, which always runs the endpoint.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { arg } from '../../src/core/input/args.ts';
import { endpoint, type RouteGroup } from '../../src/http/routes.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { statementsDuring } from '../helpers/queries.ts';
import { createEvent, exampleEventWithLinks } from '../resources/events-support.ts';

const ran = { plain: 0, handler: 0 };

const testGroups: RouteGroup[] = [
  {
    path: '/test-plain/:id(^\\d+$)',
    pattern: '/test-plain/(?P<id>\\d+)',
    endpoints: [
      endpoint({
        methods: ['GET'],
        summary: 'An answer with a plain form (test only).',
        args: {
          id: arg.integer({ description: 'An id.', required: true, in: 'path' }),
          extra: arg.string({ description: 'Anything.' }),
        },
        responses: { 200: { description: 'The id.' } },
        // Even ids have a plain answer; odd ones do not, and run the endpoint.
        plainAnswer: async (_ctx, path) => {
          ran.plain++;
          return Number(path.id) % 2 === 0
            ? { type: 'application/json; charset=UTF-8', payload: JSON.stringify({ id: Number(path.id) }) }
            : undefined;
        },
        handler: async (_ctx, params) => {
          ran.handler++;
          return { body: { id: params.id } };
        },
      }),
    ],
  },
];

/** Every header but the date, which moves between two answers. */
const headersOf = (response: { headers: Record<string, unknown> }) => {
  const { date: _date, ...rest } = response.headers;
  return rest;
};

/** The plain GET of `path` and the same with a query string (`context=view`): the same status, headers and bytes. */
async function assertSameAnswer(h: Harness, path: string, method: 'GET' | 'HEAD' = 'GET', as?: Credentials) {
  const plain = await h.request(method, path, { as });
  const endpointRun = await h.request(method, path, { query: { context: 'view' }, as });
  assert.equal(plain.statusCode, endpointRun.statusCode, `${method} ${path}: ${plain.body}`);
  assert.equal(plain.body, endpointRun.body, `${method} ${path}`);
  assert.deepEqual(headersOf(plain), headersOf(endpointRun), `${method} ${path}`);
  return plain;
}

describeEachDatabase(
  'Plain answers of reads',
  (h) => {
    beforeEach(() => {
      ran.plain = 0;
      ran.handler = 0;
    });

    it('answers a plain read without the endpoint, and runs it when the plain form has no answer', async () => {
      const even = await h().request('GET', '/test-plain/4');
      assert.equal(even.statusCode, 200);
      assert.deepEqual(even.json(), { id: 4 });
      assert.deepEqual(ran, { plain: 1, handler: 0 });
      const odd = await h().request('GET', '/test-plain/5');
      assert.deepEqual(odd.json(), { id: 5 });
      assert.deepEqual(ran, { plain: 2, handler: 1 });
    });

    it('runs the endpoint for a query string, and answers plainly with credentials too', async () => {
      assert.equal((await h().request('GET', '/test-plain/4', { query: { extra: 'x' } })).statusCode, 200);
      assert.deepEqual(ran, { plain: 0, handler: 1 });
      assert.equal((await h().request('GET', '/test-plain/4', { as: h().users.subscriber })).statusCode, 200);
      assert.deepEqual(ran, { plain: 1, handler: 1 });
    });

    it('answers an event by id as the endpoint does: stored, draft, protected, trashed, missing, odd ids', async () => {
      const { body } = await exampleEventWithLinks(h());
      const published = await h().request('POST', '/events', { as: h().users.administrator, body });
      assert.equal(published.statusCode, 201, published.body);
      const id = published.json().id;
      const plain = await assertSameAnswer(h(), `/events/${id}`);
      assert.equal(plain.statusCode, 200);
      assert.ok(plain.headers.etag && plain.headers['last-modified'] && plain.headers.allow);
      await assertSameAnswer(h(), `/events/${id}`, 'HEAD');
      await assertSameAnswer(h(), `/events/00${id}`);

      const draft = await createEvent(h(), { status: 'draft' });
      assert.equal((await assertSameAnswer(h(), `/events/${draft.id}`)).statusCode, 403);
      const secret = await createEvent(h(), { status: 'publish', password: 'open sesame' });
      assert.equal((await assertSameAnswer(h(), `/events/${secret.id}`)).statusCode, 403);
      const trashed = await createEvent(h(), { status: 'publish' });
      assert.equal(
        (await h().request('DELETE', `/events/${trashed.id}`, { as: h().users.administrator })).statusCode,
        200,
      );
      assert.equal((await assertSameAnswer(h(), `/events/${trashed.id}`)).statusCode, 403);
      assert.equal((await assertSameAnswer(h(), '/events/999999')).statusCode, 404);
      // With credentials: the same answers as the endpoint gives that caller (a draft its editors may read).
      for (const as of [h().users.subscriber, h().users.editor, h().users.administrator]) {
        assert.equal((await assertSameAnswer(h(), `/events/${id}`, 'GET', as)).statusCode, 200);
        await assertSameAnswer(h(), `/events/${draft.id}`, 'GET', as);
        await assertSameAnswer(h(), `/events/${secret.id}`, 'GET', as);
        await assertSameAnswer(h(), `/events/${trashed.id}`, 'GET', as);
      }
      assert.equal((await assertSameAnswer(h(), `/events/${draft.id}`, 'GET', h().users.editor)).statusCode, 200);
      // A plain read that finds no document runs the endpoint, which does not look for one again.
      const statements = await statementsDuring(h().store, () => h().request('GET', `/events/${draft.id}`));
      assert.equal(statements.filter((text) => text.includes('event_documents')).length, 1, statements.join('\n'));
      assert.equal((await assertSameAnswer(h(), '/events/99999999999999999999')).statusCode, 400);
    });
  },
  {},
  { extraRouteGroups: testGroups },
);
