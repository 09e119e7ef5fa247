// D31 input limits and D33 lone surrogates (issue 17, items 1, 8 and 11): over a limit → 400 `rest_invalid_param`
// naming the field and the limit, answered before any work (no inline item is written, no 500 from a statement's size).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { createEvent, eventBody } from '../resources/events-support.ts';
import { rowCount } from '../helpers/queries.ts';

function assertLimit(
  response: { statusCode: number; body: string; json(): any },
  field: string,
  code: string,
  limitText: string,
) {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json();
  assert.equal(body.code, 'rest_invalid_param', response.body);
  assert.ok(field in body.data.params, `${field} named: ${response.body}`);
  assert.equal(body.data.details[field].code, code, response.body);
  assert.ok(
    body.data.details[field].message.includes(limitText),
    `message states the limit ${limitText}: ${response.body}`,
  );
}

const postCount = (h: Harness, type: string) => rowCount(h.store, 'posts', ['type', type]);

describeEachDatabase('D31: input limits', (h) => {
  let eventId = 0;
  before(async () => {
    eventId = (await createEvent(h(), { title: 'Limits event' })).id;
  });

  it('8,000 inline organizers: 400 naming MAX_ORGANIZERS_PER_EVENT, nothing written', async () => {
    const before = await postCount(h(), 'organizer');
    const organizer = Array.from({ length: 8000 }, (_, index) => ({ organizer: `Org ${index}` }));
    const response = await h().request('POST', '/events', {
      as: h().users.contributor,
      body: eventBody({ organizer }),
    });
    assertLimit(response, 'organizer', 'rest_too_many_items', 'at most 50 ');
    assert.ok(response.json().data.details.organizer.message.includes('MAX_ORGANIZERS_PER_EVENT'));
    assert.equal(await postCount(h(), 'organizer'), before);
    // 50 still work (and de-duplicate among themselves).
    const fifty = Array.from({ length: 50 }, (_, index) => ({ organizer: `Org ${index % 25}` }));
    const ok = await h().request('POST', `/events/${eventId}`, { as: h().users.editor, body: { organizer: fifty } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().organizer.length, 25);
    // Ids count too, and so do venue lists.
    const ids = await h().request('POST', `/events/${eventId}`, {
      as: h().users.editor,
      body: { organizer: Array.from({ length: 51 }, (_, i) => i + 1).join(',') },
    });
    assertLimit(ids, 'organizer', 'rest_too_many_items', '50');
    const venues = await h().request('POST', `/events/${eventId}`, {
      as: h().users.editor,
      body: { venue: Array.from({ length: 51 }, (_, i) => ({ venue: `V${i}` })) },
    });
    assertLimit(venues, 'venue', 'rest_too_many_items', '50');
  });

  it('101 categories or tags: 400 naming MAX_TERMS_PER_EVENT; 32,766 category ids: 400, not 500', async () => {
    for (const field of ['categories', 'tags']) {
      const names = Array.from({ length: 101 }, (_, index) => `term ${index}`);
      assertLimit(
        await h().request('POST', '/events', { as: h().users.editor, body: eventBody({ [field]: names }) }),
        field,
        'rest_too_many_items',
        '100',
      );
      assertLimit(
        await h().request('POST', `/events/${eventId}`, { as: h().users.editor, body: { [field]: names.join(',') } }),
        field,
        'rest_too_many_items',
        'MAX_TERMS_PER_EVENT',
      );
    }
    const ids = Array.from({ length: 32_766 }, (_, index) => index + 1);
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: h().users.editor, body: { categories: ids } }),
      'categories',
      'rest_too_many_items',
      '100',
    );
    const pgMax = Array.from({ length: 65_535 }, (_, index) => index + 1).join(',');
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: h().users.editor, body: { tags: pgMax } }),
      'tags',
      'rest_too_many_items',
      '100',
    );
  });

  it('MAX_FILTER_IDS + 1 ids in any list filter: 400', async () => {
    const many = Array.from({ length: 1001 }, (_, index) => index + 1).join(',');
    for (const name of ['include', 'venue', 'organizer', 'categories', 'tags']) {
      assertLimit(
        await h().request('GET', '/events', { query: { [name]: many } }),
        name,
        'rest_too_many_items',
        'MAX_FILTER_IDS',
      );
    }
    for (const collection of ['categories', 'tags']) {
      for (const name of ['include', 'exclude']) {
        assertLimit(
          await h().request('GET', `/${collection}`, { query: { [name]: many } }),
          name,
          'rest_too_many_items',
          '1000',
        );
      }
    }
    // 1,000 is still a valid size.
    const thousand = Array.from({ length: 1000 }, (_, index) => index + 1).join(',');
    assert.equal((await h().request('GET', '/events', { query: { include: thousand } })).statusCode, 200);
  });

  it('texts over their limits: 400 naming the field', async () => {
    const kib = (n: number, char = 'a') => char.repeat(n * 1024);
    const editor = h().users.editor;
    for (const field of ['description', 'excerpt']) {
      assertLimit(
        await h().request('POST', `/events/${eventId}`, { as: editor, body: { [field]: `${kib(256)}x` } }),
        field,
        'rest_too_long',
        '256 KiB',
      );
      assert.equal(
        (await h().request('POST', `/events/${eventId}`, { as: editor, body: { [field]: kib(256) } })).statusCode,
        200,
      );
    }
    // UTF-8 bytes count: 100,000 three-byte characters are over 256 KiB.
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: editor, body: { description: '€'.repeat(100_000) } }),
      'description',
      'rest_too_long',
      '256 KiB',
    );
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: editor, body: { title: `${kib(10)}x` } }),
      'title',
      'rest_too_long',
      '10 KiB',
    );
    assertLimit(
      await h().request('POST', `/events/${eventId}`, {
        as: editor,
        body: { website: `https://example.com/${kib(10)}` },
      }),
      'website',
      'rest_too_long',
      '10 KiB',
    );
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: editor, body: { cost: ['5', kib(11)] } }),
      'cost',
      'rest_too_long',
      '10 KiB',
    );
    assertLimit(
      await h().request('POST', `/events/${eventId}`, { as: editor, body: { slug: 's'.repeat(201) } }),
      'slug',
      'rest_too_long',
      '200 characters',
    );
    assert.equal(
      (await h().request('POST', `/events/${eventId}`, { as: editor, body: { slug: 's'.repeat(200) } })).statusCode,
      200,
    );
    for (const [collection, name] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      assertLimit(
        await h().request('POST', `/${collection}`, { as: editor, body: { [name]: 'N', description: kib(257) } }),
        'description',
        'rest_too_long',
        '256 KiB',
      );
      // Inline objects are held to the same bounds: the event's field is refused.
      const inline = await h().request('POST', `/events/${eventId}`, {
        as: editor,
        body: { [name]: { [name]: 'Inline', description: kib(257) } },
      });
      assert.equal(inline.statusCode, 400, inline.body);
      assert.ok(name in inline.json().data.params, inline.body);
    }
    const address = await h().request('POST', '/venues', { as: editor, body: { venue: 'N', address: kib(11) } });
    assertLimit(address, 'address', 'rest_too_long', '10 KiB');
    for (const collection of ['categories', 'tags']) {
      assertLimit(
        await h().request('POST', `/${collection}`, { as: editor, body: { name: 'N', description: kib(257) } }),
        'description',
        'rest_too_long',
        '256 KiB',
      );
      assertLimit(
        await h().request('POST', `/${collection}`, { as: editor, body: { name: 'N', slug: 's'.repeat(201) } }),
        'slug',
        'rest_too_long',
        '200',
      );
    }
  });

  it('lone surrogates in a body or a query: 400 naming the field, never U+FFFD', async () => {
    const editor = h().users.editor;
    const lone = await h().request('POST', '/events', {
      as: editor,
      body: '{"title":"Bad \\ud800 title","start_date":"2027-01-01 10:00","end_date":"2027-01-01 11:00"}',
    });
    assert.equal(lone.statusCode, 400, lone.body);
    assert.equal(lone.json().code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(lone.json().data.params), ['title']);
    const low = await h().request('POST', `/events/${eventId}`, {
      as: editor,
      body: '{"organizer":[{"organizer":"x\\udc00"}]}',
    });
    assert.equal(low.statusCode, 400, low.body);
    assert.deepEqual(Object.keys(low.json().data.params), ['organizer']);
    // A pair is a character like any other.
    const pair = await h().request('POST', `/events/${eventId}`, {
      as: editor,
      body: '{"title":"Pair \\ud83d\\ude00"}',
    });
    assert.equal(pair.statusCode, 200, pair.body);
    assert.equal(pair.json().title, 'Pair 😀');
    // In a query (the surrogate's WTF-8 bytes) and in a form body.
    const query = await h().request('GET', `/events?search=a%ED%A0%80b`);
    assert.equal(query.statusCode, 400, query.body);
    assert.deepEqual(Object.keys(query.json().data.params), ['search']);
    const form = await h().request('POST', `/events/${eventId}`, {
      as: editor,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'title=x%ED%B0%80',
    });
    assert.equal(form.statusCode, 400, form.body);
    assert.deepEqual(Object.keys(form.json().data.params), ['title']);
  });
});

describeEachDatabase(
  'D31: configured limits',
  (h) => {
    it('MAX_ORGANIZERS_PER_EVENT, MAX_TERMS_PER_EVENT and MAX_FILTER_IDS are read from the environment', async () => {
      const editor = h().users.editor;
      assertLimit(
        await h().request('POST', '/events', {
          as: editor,
          body: eventBody({ organizer: [{ organizer: 'A' }, { organizer: 'B' }, { organizer: 'C' }] }),
        }),
        'organizer',
        'rest_too_many_items',
        'at most 2 ',
      );
      assertLimit(
        await h().request('POST', '/events', { as: editor, body: eventBody({ tags: 'a,b,c,d' }) }),
        'tags',
        'rest_too_many_items',
        'at most 3 ',
      );
      assertLimit(
        await h().request('GET', '/events', { query: { include: '1,2,3,4,5' } }),
        'include',
        'rest_too_many_items',
        'at most 4 ',
      );
      assert.equal((await h().request('GET', '/events', { query: { include: '1,2,3,4' } })).statusCode, 200);
    });
  },
  { MAX_ORGANIZERS_PER_EVENT: '2', MAX_TERMS_PER_EVENT: '3', MAX_FILTER_IDS: '4' },
);
