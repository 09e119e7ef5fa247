// D22 conditional requests through the whole service, on both databases: ETag and Last-Modified on reads, 304 for
// If-None-Match, If-Match on every item write (412 when stale), malformed headers. The races are in
// conditional-races.test.ts, the parsing rules in conditional-unit.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { httpDate } from '../../src/http/etag.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';

const TAG = /^"[A-Za-z0-9_-]{22}"$/;

interface Kind {
  collection: string;
  /** Posts (events, venues, organizers) have slugs routes and `modified_utc`. */
  post: boolean;
  create: (name: string) => Record<string, unknown>;
  rename: (name: string) => Record<string, unknown>;
  nameOf: (item: any) => string;
}

const KINDS: Kind[] = [
  {
    collection: 'events',
    post: true,
    create: (name) => ({
      title: name,
      start_date: '2030-05-10 10:00:00',
      end_date: '2030-05-10 12:00:00',
      status: 'publish',
    }),
    rename: (name) => ({ title: name }),
    nameOf: (item) => item.title,
  },
  {
    collection: 'venues',
    post: true,
    create: (name) => ({ venue: name, city: 'Springfield', status: 'publish' }),
    rename: (name) => ({ venue: name }),
    nameOf: (item) => item.venue,
  },
  {
    collection: 'organizers',
    post: true,
    create: (name) => ({ organizer: name, status: 'publish' }),
    rename: (name) => ({ organizer: name }),
    nameOf: (item) => item.organizer,
  },
  {
    collection: 'categories',
    post: false,
    create: (name) => ({ name }),
    rename: (name) => ({ name }),
    nameOf: (item) => item.name,
  },
  {
    collection: 'tags',
    post: false,
    create: (name) => ({ name }),
    rename: (name) => ({ name }),
    nameOf: (item) => item.name,
  },
];

describeEachDatabase('Conditional requests (D22)', (h) => {
  const admin = () => h().users.administrator;
  let counter = 0;
  const unique = (label: string) => `${label} ${++counter} ${Math.random().toString(36).slice(2, 8)}`;

  async function create(kind: Kind, name = unique(`Conditional ${kind.collection}`), as: Credentials = admin()) {
    const response = await h().request('POST', `/${kind.collection}`, { as, body: kind.create(name) });
    assert.equal(response.statusCode, 201, response.body);
    return response;
  }

  const get = (path: string, headers: Record<string, string> = {}, as: Credentials | null = admin()) =>
    h().request('GET', path, { as, headers });

  async function tagOf(path: string, as: Credentials | null = admin()): Promise<string> {
    const response = await get(path, {}, as);
    assert.equal(response.statusCode, 200, response.body);
    const tag = response.headers.etag as string;
    assert.match(tag, TAG, `${path} sends a strong ETag`);
    return tag;
  }

  function assertNotModified(response: Awaited<ReturnType<Harness['request']>>, tag: string, label: string): void {
    assert.equal(response.statusCode, 304, `${label}: ${response.body}`);
    assert.equal(response.body, '', `${label}: no body`);
    assert.equal(response.headers.etag, tag, `${label}: the same ETag`);
    assert.equal(response.headers['content-type'], undefined, `${label}: no Content-Type`);
  }

  function assertPreconditionFailed(response: Awaited<ReturnType<Harness['request']>>, label: string): void {
    assert.equal(response.statusCode, 412, `${label}: ${response.body}`);
    const body = response.json();
    assert.equal(body.code, 'rest_precondition_failed', label);
    assert.equal(typeof body.message, 'string');
    assert.equal(body.data.status, 412);
  }

  for (const kind of KINDS) {
    it(`sends ETag (and Last-Modified for posts) on item and list GETs of ${kind.collection}, and 304 to a matching If-None-Match`, async () => {
      const created = (await create(kind)).json();
      const item = `/${kind.collection}/${created.id}`;
      const response = await get(item);
      const tag = response.headers.etag as string;
      assert.match(tag, TAG);
      if (kind.post) {
        assert.equal(response.headers['last-modified'], httpDate(response.json().modified_utc));
        assert.match(response.headers['last-modified'] as string, /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
        assert.equal(
          await tagOf(`/${kind.collection}/by-slug/${created.slug}`),
          tag,
          'by slug: the same representation, the same tag',
        );
      } else {
        assert.equal(response.headers['last-modified'], undefined, 'terms have no modified date');
      }
      assert.equal(await tagOf(item), tag, 'stable while nothing changes');

      assertNotModified(await get(item, { 'if-none-match': tag }), tag, 'the tag');
      assertNotModified(await get(item, { 'if-none-match': `"other", W/${tag}` }), tag, 'a list, weak comparison');
      assertNotModified(await get(item, { 'if-none-match': '*' }), tag, '*');
      const other = await get(item, { 'if-none-match': '"not-the-tag"' });
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers.etag, tag);
      assert.equal(other.body, response.body);

      const notModified = await get(item, { 'if-none-match': tag });
      assert.equal(
        notModified.headers['cache-control'],
        response.headers['cache-control'],
        'Cache-Control as on the 200 (D12)',
      );
      assert.match(String(notModified.headers['cache-control']), /no-store/);

      const list = await get(`/${kind.collection}`, {}, null);
      assert.equal(list.statusCode, 200);
      const listTag = list.headers.etag as string;
      assert.match(listTag, TAG);
      assertNotModified(await get(`/${kind.collection}`, { 'if-none-match': listTag }, null), listTag, 'list');
      const authenticatedList = await get(`/${kind.collection}?per_page=3`);
      assertNotModified(
        await get(`/${kind.collection}?per_page=3`, { 'if-none-match': authenticatedList.headers.etag as string }),
        authenticatedList.headers.etag as string,
        'authenticated list',
      );
    });
  }

  it('tags the discovery index and the OpenAPI document too', async () => {
    for (const path of [h().api, '/doc']) {
      const response = await get(path, {}, null);
      assert.equal(response.statusCode, 200, path);
      assert.match(response.headers.etag as string, TAG, path);
      assertNotModified(
        await get(path, { 'if-none-match': response.headers.etag as string }, null),
        response.headers.etag as string,
        path,
      );
    }
  });

  it('answers HEAD with the ETag, and 304 to a matching If-None-Match', async () => {
    const venue = (await create(KINDS[1])).json();
    const full = await get(`/venues/${venue.id}`, {}, null);
    const head = await h().request('HEAD', `/venues/${venue.id}`);
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, full.headers.etag);
    const conditional = await h().request('HEAD', `/venues/${venue.id}`, {
      headers: { 'if-none-match': full.headers.etag as string },
    });
    assertNotModified(conditional, full.headers.etag as string, 'HEAD');
  });

  it('gives the same tag and 304s on the anonymous cached path, and never a cached 304 to whoever sent no If-None-Match', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const event = (await create(KINDS[0])).json();
    const path = `/events/${event.id}`;
    const first = await get(path, {}, null);
    const second = await get(path, {}, null);
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(second.body, first.body);
    const tag = first.headers.etag as string;
    assertNotModified(await get(path, { 'if-none-match': tag }, null), tag, 'anonymous, first');
    assertNotModified(await get(path, { 'if-none-match': tag }, null), tag, 'anonymous, cached');
    const plain = await get(path, {}, null);
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, first.body);
    assert.equal(plain.headers.etag, tag);
    // A stale tag after a write: the full answer.
    await h().request('PATCH', path, { as: admin(), body: { title: 'Changed under the cache' } });
    const changed = await get(path, { 'if-none-match': tag }, null);
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, tag);
    assert.equal(changed.json().title, 'Changed under the cache');
  });

  it("changes an event's ETag when its embedded venue, organizer or category changes, though the event did not", async () => {
    const venue = (await create(KINDS[1])).json();
    const organizer = (await create(KINDS[2])).json();
    const category = (await create(KINDS[3])).json();
    const created = await h().request('POST', '/events', {
      as: admin(),
      body: {
        ...KINDS[0].create(unique('Embedding')),
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const path = `/events/${created.json().id}`;
    const before = await get(path, {}, null);
    const seen = new Set([before.headers.etag]);
    const modified = before.json().modified_utc;

    for (const [collection, id, body] of [
      ['venues', venue.id, { city: 'Shelbyville' }],
      ['organizers', organizer.id, { organizer: unique('Renamed host') }],
      ['categories', category.id, { name: unique('Renamed category') }],
    ] as const) {
      const answer = await h().request('PATCH', `/${collection}/${id}`, { as: admin(), body });
      assert.equal(answer.statusCode, 200, answer.body);
      const after = await get(path, { 'if-none-match': [...seen].join(', ') }, null);
      assert.equal(after.statusCode, 200, `after a change of its ${collection}: the event is not the same any more`);
      assert.equal(after.json().modified_utc, modified, 'the event itself was not written');
      assert.ok(!seen.has(after.headers.etag), `a new tag after a change of its ${collection}`);
      seen.add(after.headers.etag);
    }
  });

  it("tags each caller's own representation: a protected event differs between anonymous and its editor", async () => {
    const editor = h().users.editor;
    const created = await h().request('POST', '/events', {
      as: editor,
      body: { ...KINDS[0].create(unique('Secret')), password: 'open sesame', description: 'Hidden words' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const list = `/events?include=${id}&context=edit`;
    const anonymous = await get(list, {}, null);
    const asEditor = await get(list, {}, editor);
    assert.equal(anonymous.json().events[0].description, '', 'blanked for anonymous');
    assert.match(asEditor.json().events[0].description, /Hidden words/);
    assert.notEqual(anonymous.headers.etag, asEditor.headers.etag);
    const stale = await get(list, { 'if-none-match': anonymous.headers.etag as string }, editor);
    assert.equal(stale.statusCode, 200, "the anonymous tag does not validate the editor's representation");
    // Two callers shown the same bytes (without context=edit an editor and an administrator see the blanked list) share a tag.
    const blankedForEditor = await get(`/events?include=${id}`, {}, editor);
    const blankedForAdmin = await get(`/events?include=${id}`, {}, admin());
    assert.equal(blankedForEditor.body, blankedForAdmin.body);
    assert.equal(blankedForEditor.headers.etag, blankedForAdmin.headers.etag);

    const refused = await get(`/events/${id}`, {}, null);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.headers.etag, undefined, 'errors have no ETag');
    const editorTag = await tagOf(`/events/${id}?context=edit`, editor);
    const withPassword = await get(`/events/${id}?password=open%20sesame`, {}, null);
    assert.equal(withPassword.statusCode, 200);
    assert.equal(withPassword.headers.etag, editorTag, 'the password shows the same bytes as context=edit');

    // Its writer's If-Match is the tag of the representation they can read (context=edit or the password).
    assert.equal(created.headers.etag, editorTag, 'the create answered that tag');
    const updated = await h().request('PATCH', `/events/${id}`, {
      as: editor,
      body: { title: unique('Secret renamed') },
      headers: { 'if-match': editorTag },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.headers.etag, await tagOf(`/events/${id}?context=edit`, editor));
    assertPreconditionFailed(
      await h().request('PATCH', `/events/${id}`, {
        as: editor,
        body: { title: 'Lost' },
        headers: { 'if-match': editorTag },
      }),
      'protected, stale',
    );
  });

  for (const kind of KINDS) {
    it(`honours If-Match on updates and deletes of ${kind.collection}`, async () => {
      const created = (await create(kind)).json();
      const path = `/${kind.collection}/${created.id}`;
      const tag = await tagOf(path);

      const updated = await h().request('PATCH', path, {
        as: admin(),
        body: kind.rename(unique('First')),
        headers: { 'if-match': tag },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      const newTag = updated.headers.etag as string;
      assert.match(newTag, TAG, 'a write answer sends the new ETag');
      assert.notEqual(newTag, tag);
      assert.equal(await tagOf(path), newTag, 'the ETag the GET now gives');

      const before = await get(path);
      const stale = await h().request('PATCH', path, {
        as: admin(),
        body: kind.rename(unique('Lost')),
        headers: { 'if-match': tag },
      });
      assertPreconditionFailed(stale, 'stale tag');
      const after = await get(path);
      assert.equal(after.body, before.body, 'a 412 changes nothing');
      assert.equal(after.headers.etag, newTag);

      assertPreconditionFailed(
        await h().request('PUT', path, {
          as: admin(),
          body: kind.rename(unique('Weak')),
          headers: { 'if-match': `W/${newTag}` },
        }),
        'a weak tag never matches If-Match',
      );
      const listed = await h().request('POST', path, {
        as: admin(),
        body: kind.rename(unique('Listed')),
        headers: { 'if-match': `"nope", ${newTag}` },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const star = await h().request('PATCH', path, {
        as: admin(),
        body: kind.rename(unique('Star')),
        headers: { 'if-match': '*' },
      });
      assert.equal(star.statusCode, 200, star.body);
      assert.equal(star.headers.etag, await tagOf(path));
      const plain = await h().request('PATCH', path, { as: admin(), body: kind.rename(unique('Unconditional')) });
      assert.equal(plain.statusCode, 200, 'without If-Match writes behave as before');
      assert.equal(plain.headers.etag, await tagOf(path));

      if (kind.post) {
        const bySlug = `/${kind.collection}/by-slug/${(await get(path)).json().slug}`;
        assertPreconditionFailed(
          await h().request('PATCH', bySlug, {
            as: admin(),
            body: kind.rename(unique('Slug')),
            headers: { 'if-match': tag },
          }),
          'by slug, stale',
        );
        const slugWrite = await h().request('PATCH', bySlug, {
          as: admin(),
          body: kind.rename(unique('Slug')),
          headers: { 'if-match': await tagOf(bySlug) },
        });
        assert.equal(slugWrite.statusCode, 200, slugWrite.body);
        assert.equal(slugWrite.headers.etag, await tagOf(path));

        // Trash: refused when stale; once trashed, GET answers 403, so there is no tag to match, only `*`.
        const current = await tagOf(path);
        assertPreconditionFailed(
          await h().request('DELETE', path, { as: admin(), headers: { 'if-match': tag } }),
          'trash, stale',
        );
        const trashed = await h().request('DELETE', path, { as: admin(), headers: { 'if-match': current } });
        assert.equal(trashed.statusCode, 200, trashed.body);
        assertPreconditionFailed(
          await h().request('DELETE', `${path}?force=true`, { as: admin(), headers: { 'if-match': current } }),
          'force, stale',
        );
        const forced = await h().request('DELETE', `${path}?force=true`, { as: admin(), headers: { 'if-match': '*' } });
        assert.equal(forced.statusCode, 200, forced.body);
        assert.equal(forced.json().deleted, true);
        assert.equal(forced.headers.etag, undefined, 'nothing left to tag');
      } else {
        const current = await tagOf(path);
        assertPreconditionFailed(
          await h().request('DELETE', path, { as: admin(), headers: { 'if-match': tag } }),
          'delete, stale',
        );
        assert.equal((await get(path)).statusCode, 200, 'still there');
        const deleted = await h().request('DELETE', path, { as: admin(), headers: { 'if-match': current } });
        assert.equal(deleted.statusCode, 200, deleted.body);
        assert.equal(deleted.headers.etag, undefined);
      }
    });
  }

  it('force-deletes a post directly with its current tag', async () => {
    const venue = (await create(KINDS[1])).json();
    const path = `/venues/${venue.id}`;
    const deleted = await h().request('DELETE', `${path}?force=true`, {
      as: admin(),
      headers: { 'if-match': await tagOf(path) },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal((await get(path)).statusCode, 400);
  });

  it('sends the new ETag on creates', async () => {
    for (const kind of KINDS) {
      const created = await create(kind);
      assert.equal(created.headers.etag, await tagOf(`/${kind.collection}/${created.json().id}`), kind.collection);
    }
  });

  it('checks If-Match after authentication, validation and the permission check; a missing item stays 404/400', async () => {
    const event = (await create(KINDS[0])).json();
    const path = `/events/${event.id}`;
    const stale = { 'if-match': '"stale"' };
    assert.equal(
      (await h().request('PATCH', path, { as: null, body: { title: 'x' }, headers: stale })).statusCode,
      401,
    );
    assert.equal(
      (await h().request('PATCH', path, { as: h().users.subscriber, body: { title: 'x' }, headers: stale })).statusCode,
      403,
    );
    const invalid = await h().request('PATCH', path, {
      as: admin(),
      body: { start_date: 'not a date' },
      headers: stale,
    });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().code, 'rest_invalid_param');
    assert.equal(
      (await h().request('PATCH', '/events/99999999', { as: admin(), body: { title: 'x' }, headers: stale }))
        .statusCode,
      404,
    );
    assert.equal(
      (
        await h().request('PATCH', '/venues/99999999', {
          as: admin(),
          body: { venue: 'x' },
          headers: { 'if-match': '*' },
        })
      ).statusCode,
      400,
    );
    assert.equal((await h().request('DELETE', '/tags/99999999', { as: admin(), headers: stale })).statusCode, 400);
    // An author may not edit the administrator's event: 403, not 412.
    assert.equal(
      (await h().request('PATCH', path, { as: h().users.author, body: { title: 'x' }, headers: stale })).statusCode,
      403,
    );
  });

  it('answers 412 to a GET whose If-Match does not hold, and ignores If-Match on creates', async () => {
    const venue = (await create(KINDS[1])).json();
    const path = `/venues/${venue.id}`;
    const tag = await tagOf(path);
    assertPreconditionFailed(await get(path, { 'if-match': '"stale"' }), 'GET with a stale If-Match');
    assert.equal((await get(path, { 'if-match': tag })).statusCode, 200);
    assert.equal((await get(path, { 'if-match': '*' })).statusCode, 200);
    const created = await h().request('POST', '/venues', {
      as: admin(),
      body: KINDS[1].create(unique('Create')),
      headers: { 'if-match': '"whatever"' },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  it('answers 400 rest_invalid_header to a malformed If-Match or If-None-Match, never a 5xx, and changes nothing', async () => {
    const event = (await create(KINDS[0])).json();
    const path = `/events/${event.id}`;
    const before = await get(path);
    const malformed = ['abc', '"unterminated', 'W/abc', '*, "a"', '"a" "b"', '"a";', ',', 'w/"a"', '"a""b"'];
    for (const value of malformed) {
      for (const [method, header, as] of [
        ['GET', 'if-none-match', null],
        ['GET', 'if-none-match', admin()],
        ['HEAD', 'if-none-match', null],
        ['PATCH', 'if-match', admin()],
        ['DELETE', 'if-match', admin()],
        ['GET', 'if-match', null],
      ] as const) {
        const response = await h().request(method, path, {
          as,
          headers: { [header]: value },
          ...(method === 'PATCH' ? { body: { title: 'Never' } } : {}),
        });
        assert.equal(response.statusCode, 400, `${method} ${header}: ${value} → ${response.body}`);
        if (method === 'HEAD') continue;
        const body = response.json();
        assert.equal(body.code, 'rest_invalid_header');
        assert.equal(body.data.status, 400);
        assert.equal(body.data.header, header === 'if-match' ? 'If-Match' : 'If-None-Match');
      }
    }
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      assert.equal((await get(`/${collection}`, { 'if-none-match': 'nope' }, null)).statusCode, 400, collection);
    }
    const after = await get(path);
    assert.equal(after.body, before.body);
    assert.equal((await get(path, {}, null)).statusCode, 200, 'the anonymous cache kept no 400 for the plain URL');
    // Empty list elements are allowed (RFC 9110 §5.6.1).
    assert.equal((await get(path, { 'if-none-match': ` , ${before.headers.etag} ,, ` })).statusCode, 304);
  });
});
