// D31: every integer id is checked against the 32-bit range before it reaches a query. An id of 2³¹ or more (or a
// huge one) answers exactly as an unknown id would (400 or 404), never 500 — PostgreSQL rejects such numbers outright.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';

const HUGE = ['2147483648', '4294967296', '9007199254740991'];

describeEachDatabase('D31: ids beyond 32 bits are unknown ids, never 500', (h) => {
  let eventId = 0;
  let categoryId = 0;
  before(async () => {
    eventId = (await createEvent(h(), { title: 'Range event' })).id;
    const category = await h().request('POST', '/categories', {
      as: h().users.editor,
      body: { name: 'Range category' },
    });
    assert.equal(category.statusCode, 201, category.body);
    categoryId = category.json().id;
  });

  /** Answers like the same request with an unknown (but 32-bit) id. */
  async function sameAsUnknown(
    method: string,
    build: (id: string) => { path: string; query?: Record<string, string>; body?: unknown },
  ) {
    const unknown = build('2147483000');
    const asUnknown = await h().request(method, unknown.path, {
      as: h().users.administrator,
      query: unknown.query,
      body: unknown.body,
    });
    assert.notEqual(asUnknown.statusCode, 500, asUnknown.body);
    for (const huge of HUGE) {
      const request = build(huge);
      const response = await h().request(method, request.path, {
        as: h().users.administrator,
        query: request.query,
        body: request.body,
      });
      assert.equal(
        response.statusCode,
        asUnknown.statusCode,
        `${method} ${request.path} ${JSON.stringify(request.query ?? request.body)}: ${response.body}`,
      );
      assert.equal(response.json().code, asUnknown.json().code, `${method} ${request.path}: ${response.body}`);
    }
  }

  it('path ids of every resource', async () => {
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      await sameAsUnknown('GET', (id) => ({ path: `/${collection}/${id}` }));
      await sameAsUnknown('POST', (id) => ({ path: `/${collection}/${id}`, body: {} }));
      await sameAsUnknown('DELETE', (id) => ({ path: `/${collection}/${id}` }));
    }
  });

  it('list filters', async () => {
    for (const name of ['include', 'venue', 'organizer', 'post_parent', 'categories', 'tags']) {
      await sameAsUnknown('GET', (id) => ({ path: '/events', query: { [name]: id } }));
      await sameAsUnknown('GET', (id) => ({ path: '/events', query: { [name]: `${eventId},${id}` } }));
    }
    for (const collection of ['venues', 'organizers']) {
      await sameAsUnknown('GET', (id) => ({ path: `/${collection}`, query: { event: id } }));
    }
    for (const collection of ['categories', 'tags']) {
      for (const name of ['include', 'exclude', 'post', 'event', ...(collection === 'categories' ? ['parent'] : [])]) {
        await sameAsUnknown('GET', (id) => ({ path: `/${collection}`, query: { [name]: id } }));
      }
    }
  });

  it('ids in write bodies', async () => {
    for (const field of ['author', 'image', 'venue', 'organizer']) {
      await sameAsUnknown('POST', (id) => ({
        path: '/events',
        body: { title: 'X', start_date: '2027-01-01 10:00', end_date: '2027-01-01 11:00', [field]: Number(id) },
      }));
      await sameAsUnknown('POST', (id) => ({ path: `/events/${eventId}`, body: { [field]: id } }));
    }
    for (const field of ['venue', 'organizer']) {
      await sameAsUnknown('POST', (id) => ({ path: `/events/${eventId}`, body: { [field]: { id: Number(id) } } }));
      await sameAsUnknown('POST', (id) => ({ path: `/events/${eventId}`, body: { [field]: [Number(id)] } }));
      await sameAsUnknown('POST', (id) => ({
        path: `/events/${eventId}`,
        body: { [field]: [{ [field]: 'Inline', author: Number(id) }] },
      }));
      await sameAsUnknown('POST', (id) => ({
        path: `/events/${eventId}`,
        body: { [field]: [{ [field]: 'Inline', image: Number(id) }] },
      }));
    }
    for (const field of ['categories', 'tags']) {
      await sameAsUnknown('POST', (id) => ({ path: `/events/${eventId}`, body: { [field]: [Number(id)] } }));
      await sameAsUnknown('POST', (id) => ({ path: `/events/${eventId}`, body: { [field]: [categoryId, id] } }));
    }
    for (const collection of ['venues', 'organizers']) {
      const name = collection === 'venues' ? 'venue' : 'organizer';
      for (const field of ['author', 'image']) {
        await sameAsUnknown('POST', (id) => ({
          path: `/${collection}`,
          body: { [name]: 'Range item', [field]: Number(id) },
        }));
      }
    }
    await sameAsUnknown('POST', (id) => ({ path: '/categories', body: { name: 'Child', parent: Number(id) } }));
    await sameAsUnknown('POST', (id) => ({ path: `/categories/${categoryId}`, body: { parent: id } }));
  });
});
