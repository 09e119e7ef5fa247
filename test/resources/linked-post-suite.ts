// What venues and organizers share (reference §6, §7, §10, D2, D10, D11, D12, D16, D18, D19), run for each of them
// on both databases. The type-specific behaviours live in venues.test.ts and organizers.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { assertInvalidParams, createLinked, idsOf, queryPairs } from './support.ts';

export interface LinkedPostSpec {
  title: string;
  collection: 'venues' | 'organizers';
  nameKey: 'venue' | 'organizer';
  other: 'venues' | 'organizers';
  /** A meta field the list search looks into, with a value to store there. */
  searchableField: string;
  messages: {
    notAccessible: [code: string, message: string];
    inTrash: [code: string, message: string];
    pageNotFound: [code: string, message: string];
  };
}

const FORBIDDEN_401 = {
  code: 'rest_forbidden',
  message: 'Sorry, you are not allowed to do that.',
  data: { status: 401 },
};
const FORBIDDEN_403 = {
  code: 'rest_forbidden',
  message: 'Sorry, you are not allowed to do that.',
  data: { status: 403 },
};
const NO_ROUTE = {
  code: 'rest_no_route',
  message: 'No route was found matching the URL and request method.',
  data: { status: 404 },
};

export function linkedPostSuite(spec: LinkedPostSpec): void {
  const { collection, nameKey, other } = spec;
  const [notAccessibleCode, notAccessibleMessage] = spec.messages.notAccessible;
  const [inTrashCode, inTrashMessage] = spec.messages.inTrash;
  const [pageCode, pageMessage] = spec.messages.pageNotFound;
  const otherNameKey = other === 'venues' ? 'venue' : 'organizer';

  describeEachDatabase(`${spec.title}: single items, writes and permissions`, (h) => {
    const create = (body: Record<string, unknown>, as = h().users.editor) =>
      createLinked(h(), collection, { ...body }, as);
    const named = (name: string, extra: Record<string, unknown> = {}) => ({ [nameKey]: name, ...extra });

    it('reads an item by id and by slug, with json_ld, the same object both ways', async () => {
      const item = await create(named('Read Me', { description: 'Some words' }));
      const byId = await h().request('GET', `/${collection}/${item.id}`);
      const bySlug = await h().request('GET', `/${collection}/by-slug/${item.slug}`);
      assert.equal(byId.statusCode, 200);
      assert.equal(bySlug.statusCode, 200);
      assert.deepEqual(bySlug.json(), byId.json());
      assert.equal(byId.json()[nameKey], 'Read Me');
      assert.equal(typeof byId.json().json_ld, 'object');
      assert.equal(byId.json().json_ld.name, 'Read Me');
    });

    it("answers non-digit ids with rest_no_route, unknown ids and other types' ids with 400 on id, unknown slugs with 400 on slug", async () => {
      const mine = await create(named('Id Owner'));
      const foreign = await createLinked(h(), other, { [otherNameKey]: 'Other Type' });
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const noRoute = await h().request(method, `/${collection}/abc`, { as: h().users.editor });
        assert.equal(noRoute.statusCode, 404, method);
        assert.deepEqual(noRoute.json(), NO_ROUTE);
        for (const id of [999999, 0, foreign.id]) {
          const response = await h().request(method, `/${collection}/${id}`, {
            as: h().users.editor,
            body: method === 'GET' || method === 'DELETE' ? undefined : { phone: '1' },
          });
          assert.deepEqual(
            response.json(),
            {
              code: 'rest_invalid_param',
              message: 'Invalid parameter(s): id',
              data: { status: 400, params: { id: 'Invalid parameter.' }, details: [] },
            },
            `${method} ${id}`,
          );
        }
        const unknownSlug = await h().request(method, `/${collection}/by-slug/no-such-${collection}`, {
          as: h().users.editor,
          body: method === 'GET' || method === 'DELETE' ? undefined : { phone: '1' },
        });
        assertInvalidParams(unknownSlug, ['slug']);
        const foreignSlug = await h().request(method, `/${collection}/by-slug/${foreign.slug}`, {
          as: h().users.editor,
          body: method === 'GET' || method === 'DELETE' ? undefined : { phone: '1' },
        });
        assertInvalidParams(foreignSlug, ['slug']);
      }
      assert.equal((await h().request('GET', `/${collection}/${mine.id}`)).statusCode, 200);
    });

    it('checks validation (400) before credentials (401) and rights (403)', async () => {
      const foreign = await createLinked(h(), other, { [otherNameKey]: 'Validation First' });
      const mine = await create(named('Validation Target'));
      for (const as of [null, h().users.subscriber]) {
        assertInvalidParams(await h().request('DELETE', `/${collection}/${foreign.id}`, { as }), ['id']);
        assertInvalidParams(await h().request('POST', `/${collection}/${foreign.id}`, { as, body: { phone: '1' } }), [
          'id',
        ]);
        const missing = await h().request('POST', `/${collection}`, { as, body: { phone: '1' } });
        assert.deepEqual(missing.json(), {
          code: 'rest_missing_callback_param',
          message: `Missing parameter(s): ${nameKey}`,
          data: { status: 400, params: [nameKey] },
        });
        assertInvalidParams(await h().request('POST', `/${collection}`, { as, body: { [nameKey]: '' } }), [nameKey]);
        assertInvalidParams(
          await h().request('PATCH', `/${collection}/${mine.id}`, { as, body: { website: 'not a url' } }),
          ['website'],
        );
        assertInvalidParams(
          await h().request('DELETE', `/${collection}/${mine.id}`, { as, query: { force: 'maybe' } }),
          ['force'],
        );
      }
    });

    it('lets contributors and up create; anonymous callers get 401 and subscribers 403', async () => {
      const anonymous = await h().request('POST', `/${collection}`, { body: named('Nobody Made This') });
      assert.equal(anonymous.statusCode, 401);
      assert.deepEqual(anonymous.json(), FORBIDDEN_401);
      const subscriber = await h().request('POST', `/${collection}`, {
        as: h().users.subscriber,
        body: named('Subscriber Made This'),
      });
      assert.equal(subscriber.statusCode, 403);
      assert.deepEqual(subscriber.json(), FORBIDDEN_403);
      const listed = await h().request('GET', `/${collection}`, {
        as: h().users.editor,
        query: { search: 'Made This' },
      });
      assert.equal(listed.json().total, 0, 'refused creates leave nothing behind');

      const contributor = await create(named('Contributor Made This'), h().users.contributor);
      assert.equal(contributor.status, 'draft');
      assert.equal(contributor.author, String(h().users.contributor.id));
      const author = await create(named('Author Made This'), h().users.author);
      assert.equal(author.status, 'publish');
    });

    it("sends Location with the created item's URL and answers 201", async () => {
      const response = await h().request('POST', `/${collection}`, { as: h().users.editor, body: named('Located') });
      assert.equal(response.statusCode, 201);
      assert.equal(response.headers.location, `${h().config.apiRoot}/${collection}/${response.json().id}`);
    });

    it('applies edit and delete rights per item (§1.5)', async () => {
      const editors = await create(named('Editors Item'));
      const contributorDraft = await create(named('Contributors Draft'), h().users.contributor);
      const asUser = (user: keyof Harness['users']) => h().users[user];
      const editDraft = (user: keyof Harness['users'], body: Record<string, unknown>) =>
        h().request('PATCH', `/${collection}/${contributorDraft.id}`, { as: asUser(user), body });

      assert.deepEqual(
        (await h().request('PATCH', `/${collection}/${editors.id}`, { body: { phone: '1' } })).json(),
        FORBIDDEN_401,
      );
      assert.deepEqual((await h().request('DELETE', `/${collection}/${editors.id}`)).json(), FORBIDDEN_401);
      for (const user of ['subscriber', 'contributor', 'author'] as const) {
        for (const [method, body] of [
          ['POST', { phone: '1' }],
          ['PUT', { phone: '1' }],
          ['PATCH', { phone: '1' }],
          ['DELETE', undefined],
        ] as const) {
          const response = await h().request(method, `/${collection}/${editors.id}`, { as: asUser(user), body });
          assert.equal(response.statusCode, 403, `${user} ${method}`);
          assert.deepEqual(response.json(), FORBIDDEN_403);
        }
      }
      const unchanged = (await h().request('GET', `/${collection}/${editors.id}`)).json();
      assert.equal(unchanged.status, 'publish');
      assert.equal(unchanged.phone, undefined);

      const ownEdit = await editDraft('contributor', { phone: '22' });
      assert.equal(ownEdit.statusCode, 200);
      assert.equal(ownEdit.json().phone, '22');
      assert.equal((await editDraft('author', { phone: '3' })).statusCode, 403);
      const editorEdit = await editDraft('editor', { phone: '33' });
      assert.equal(editorEdit.statusCode, 200);
      assert.equal(editorEdit.json().status, 'draft', 'an update that does not send status keeps it (D2)');

      const published = await editDraft('editor', { status: 'publish' });
      assert.equal(published.json().status, 'publish');
      assert.equal(
        (await editDraft('contributor', { phone: '4' })).statusCode,
        403,
        'a contributor may not edit their own item once it is published',
      );
      assert.equal(
        (await h().request('DELETE', `/${collection}/${contributorDraft.id}`, { as: asUser('contributor') }))
          .statusCode,
        403,
      );
    });

    it('merges updates on POST, PUT and PATCH alike: omitted fields are kept, modified advances, the publication date stays (D2)', async () => {
      h().setNow('2026-03-01T10:00:00Z');
      const item = await create(named('Merge Target', { description: 'First', [spec.searchableField]: 'kept value' }));
      assert.equal(item.date_utc, '2026-03-01 10:00:00');
      let minute = 1;
      for (const method of ['POST', 'PUT', 'PATCH']) {
        h().setNow(`2026-03-01T10:0${minute++}:00Z`);
        const response = await h().request(method, `/${collection}/${item.id}`, {
          as: h().users.editor,
          body: { description: `By ${method}` },
        });
        assert.equal(response.statusCode, 200, method);
        const body = response.json();
        assert.equal(body.description, `<p>By ${method}</p>`);
        assert.equal(body[nameKey], 'Merge Target');
        assert.equal(body[spec.searchableField], 'kept value');
        assert.equal(body.date_utc, '2026-03-01 10:00:00');
        assert.equal(body.modified_utc, `2026-03-01 10:0${minute - 1}:00`);
        assert.equal(body.json_ld, undefined, 'no json_ld on update responses');
      }
      const renamed = await h().request('PATCH', `/${collection}/${item.id}`, {
        as: h().users.editor,
        body: { [nameKey]: 'Merge Renamed' },
      });
      assert.equal(renamed.json()[nameKey], 'Merge Renamed');
      assert.equal(renamed.json().slug, item.slug, 'renaming keeps the slug');
      h().setNow(null);
    });

    it('clears a text field sent as "" and drops the key from the object', async () => {
      const item = await create(named('Clear Me', { [spec.searchableField]: 'something', description: 'Words' }));
      const response = await h().request('PATCH', `/${collection}/${item.id}`, {
        as: h().users.editor,
        body: { [spec.searchableField]: '', description: '' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(spec.searchableField in response.json(), false);
      assert.equal('description' in response.json(), false);
    });

    it('refuses an empty name on update and leaves the item unchanged', async () => {
      const item = await create(named('Keep My Name'));
      for (const value of ['', '   ', 42, ['x']]) {
        assertInvalidParams(
          await h().request('PATCH', `/${collection}/${item.id}`, { as: h().users.editor, body: { [nameKey]: value } }),
          [nameKey],
        );
      }
      assert.equal((await h().request('GET', `/${collection}/${item.id}`)).json()[nameKey], 'Keep My Name');
    });

    it('updates by slug: the path slug names the item and a slug in the body does not rename it', async () => {
      const item = await create(named('Slug Updated'));
      const response = await h().request('PATCH', `/${collection}/by-slug/${item.slug}`, {
        as: h().users.editor,
        body: { [spec.searchableField]: 'via slug', slug: 'another-slug' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().id, item.id);
      assert.equal(response.json()[spec.searchableField], 'via slug');
      assert.equal(response.json().slug, item.slug);
      const forbidden = await h().request('PATCH', `/${collection}/by-slug/${item.slug}`, {
        as: h().users.contributor,
        body: { phone: '1' },
      });
      assert.equal(forbidden.statusCode, 403);
    });

    it('trashes on DELETE: status trash, __trashed slug, ?p= URL; a second DELETE is 410', async () => {
      const item = await create(named('Trash Me'));
      const response = await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor });
      assert.equal(response.statusCode, 200);
      const trashed = response.json();
      assert.equal(trashed.id, item.id);
      assert.equal(trashed.status, 'trash');
      assert.equal(trashed.slug, `${item.slug}__trashed`);
      assert.equal(trashed.url, `${h().config.siteUrl}/?p=${item.id}`);
      assert.equal(trashed.json_ld, undefined);

      const again = await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor });
      assert.equal(again.statusCode, 410);
      assert.deepEqual(again.json(), { code: inTrashCode, message: inTrashMessage, data: { status: 410 } });

      const anonymous = await h().request('GET', `/${collection}/${item.id}`);
      assert.equal(anonymous.statusCode, 403);
      assert.deepEqual(anonymous.json(), {
        code: notAccessibleCode,
        message: notAccessibleMessage,
        data: { status: 403 },
      });
      const editor = await h().request('GET', `/${collection}/${item.id}`, { as: h().users.editor });
      assert.equal(editor.statusCode, 200);
      assert.equal(editor.json().status, 'trash');

      const defaultList = await h().request('GET', `/${collection}`, {
        as: h().users.editor,
        query: { search: 'Trash Me' },
      });
      assert.deepEqual(idsOf(defaultList.json()[collection]), []);
      const trashList = await h().request('GET', `/${collection}`, {
        as: h().users.editor,
        query: { search: 'Trash Me', status: 'trash' },
      });
      assert.deepEqual(idsOf(trashList.json()[collection]), [item.id]);
    });

    it('deletes by slug; the old slug is then unknown and the __trashed one finds the item', async () => {
      const item = await create(named('Slug Trash'));
      const response = await h().request('DELETE', `/${collection}/by-slug/${item.slug}`, { as: h().users.editor });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().status, 'trash');
      assertInvalidParams(
        await h().request('DELETE', `/${collection}/by-slug/${item.slug}`, { as: h().users.editor }),
        ['slug'],
      );
      const again = await h().request('DELETE', `/${collection}/by-slug/${item.slug}__trashed`, {
        as: h().users.editor,
      });
      assert.equal(again.statusCode, 410);
      assert.equal(again.json().code, inTrashCode);
      const read = await h().request('GET', `/${collection}/by-slug/${item.slug}__trashed`, { as: h().users.editor });
      assert.equal(read.json().id, item.id);
    });

    it('deletes permanently with force=true: {deleted, previous}, and the id is then unknown (D18)', async () => {
      const item = await create(named('Gone For Good', { [spec.searchableField]: 'last words' }));
      const response = await h().request('DELETE', `/${collection}/${item.id}`, {
        as: h().users.editor,
        query: { force: 'true' },
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body), ['deleted', 'previous']);
      assert.equal(body.deleted, true);
      assert.deepEqual(body.previous, item, 'previous is the item as it was');
      assertInvalidParams(await h().request('GET', `/${collection}/${item.id}`, { as: h().users.editor }), ['id']);
      assertInvalidParams(
        await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor, query: { force: 'true' } }),
        ['id'],
      );
      assertInvalidParams(await h().request('GET', `/${collection}/by-slug/${item.slug}`), ['slug']);

      const trashedFirst = await create(named('Trashed Then Gone'));
      await h().request('DELETE', `/${collection}/${trashedFirst.id}`, { as: h().users.editor });
      const forced = await h().request('DELETE', `/${collection}/by-slug/${trashedFirst.slug}__trashed`, {
        as: h().users.editor,
        body: { force: true },
      });
      assert.equal(forced.statusCode, 200);
      assert.equal(forced.json().previous.status, 'trash');
      assertInvalidParams(await h().request('GET', `/${collection}/${trashedFirst.id}`, { as: h().users.editor }), [
        'id',
      ]);

      const notMine = await create(named('Not Yours To Destroy'));
      const refused = await h().request('DELETE', `/${collection}/${notMine.id}`, {
        as: h().users.contributor,
        query: { force: 'true' },
      });
      assert.equal(refused.statusCode, 403);
      assert.equal((await h().request('GET', `/${collection}/${notMine.id}`)).statusCode, 200);
      const forceFalse = await h().request('DELETE', `/${collection}/${notMine.id}`, {
        as: h().users.editor,
        query: { force: 'false' },
      });
      assert.equal(forceFalse.json().status, 'trash', 'force=false trashes');
    });

    it('leaves every event that referenced it when trashed or deleted (§7.4)', async () => {
      const linkedEvent = async (itemId: number) => {
        const response = await h().request('POST', '/events', {
          as: h().users.editor,
          body: {
            title: 'Linked Event',
            start_date: '2030-01-01 10:00:00',
            end_date: '2030-01-01 11:00:00',
            [nameKey]: nameKey === 'venue' ? itemId : [itemId],
          },
        });
        assert.equal(response.statusCode, 201, response.body);
        const linked = response.json()[nameKey];
        assert.deepEqual(
          nameKey === 'venue' ? linked.id : linked.map((entry: { id: number }) => entry.id),
          nameKey === 'venue' ? itemId : [itemId],
        );
        return response.json().id as number;
      };
      for (const force of ['false', 'true']) {
        const item = await create(named(`Linked Then Removed ${force}`));
        const events = [await linkedEvent(item.id), await linkedEvent(item.id)];
        assert.equal(
          (await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor, query: { force } }))
            .statusCode,
          200,
        );
        for (const eventId of events) {
          assert.deepEqual((await h().request('GET', `/events/${eventId}`)).json()[nameKey], [], `force=${force}`);
        }
      }
    });

    it('keeps a trashed item in the trash on update unless a non-trash status is sent, which restores it (D2)', async () => {
      const item = await create(named('Restore Me'));
      await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor });
      const stillTrashed = await h().request('PATCH', `/${collection}/${item.id}`, {
        as: h().users.editor,
        body: { [spec.searchableField]: 'edited in trash' },
      });
      assert.equal(stillTrashed.json().status, 'trash');
      assert.equal(stillTrashed.json().slug, `${item.slug}__trashed`);
      assert.equal(stillTrashed.json()[spec.searchableField], 'edited in trash');

      const restored = await h().request('PATCH', `/${collection}/${item.id}`, {
        as: h().users.editor,
        body: { status: 'draft' },
      });
      assert.equal(restored.json().status, 'draft');
      assert.equal(restored.json().slug, item.slug);

      const trashedByStatus = await h().request('PATCH', `/${collection}/${item.id}`, {
        as: h().users.editor,
        body: { status: 'trash' },
      });
      assert.equal(trashedByStatus.json().status, 'trash');
      assert.equal(trashedByStatus.json().slug, `${item.slug}__trashed`);
    });

    it('only shows json_ld on single reads: not on create, update, delete or list responses', async () => {
      const item = await create(named('No Json Ld Here'));
      assert.equal('json_ld' in item, false);
      const list = await h().request('GET', `/${collection}`, { query: { search: 'No Json Ld Here' } });
      assert.equal(list.json()[collection].length, 1);
      assert.equal('json_ld' in list.json()[collection][0], false);
      const single = await h().request('GET', `/${collection}/${item.id}`);
      assert.ok('json_ld' in single.json());
      const deleted = await h().request('DELETE', `/${collection}/${item.id}`, { as: h().users.editor });
      assert.equal('json_ld' in deleted.json(), false);
    });

    it('sanitises HTML: a description keeps safe markup only, a name is plain text', async () => {
      const item = await create(
        named('<b>Bold</b> <script>alert(1)</script>Name', {
          description:
            '<p onclick="x()">Hi <a href="javascript:alert(1)">link</a> <strong>there</strong></p><script>alert(2)</script><iframe src="https://evil.example"></iframe>',
        }),
      );
      assert.equal(item[nameKey], 'Bold Name');
      assert.equal(item.description, '<p>Hi <a>link</a> <strong>there</strong></p>');
    });

    it('lists the methods the caller may use in Allow', async () => {
      const item = await create(named('Allowed Methods'));
      assert.equal((await h().request('GET', `/${collection}/${item.id}`)).headers.allow, 'GET');
      assert.equal(
        (await h().request('GET', `/${collection}/${item.id}`, { as: h().users.subscriber })).headers.allow,
        'GET',
      );
      assert.equal(
        (await h().request('GET', `/${collection}/by-slug/${item.slug}`, { as: h().users.editor })).headers.allow,
        'GET, DELETE, POST, PUT, PATCH',
      );
    });

    it('answers a NUL character anywhere with 400 on that parameter, never 500', async () => {
      const item = await create(named('Nul Target'));
      assertInvalidParams(
        await h().request('POST', `/${collection}`, { as: h().users.editor, body: named('Nul\u0000Name') }),
        [nameKey],
      );
      assertInvalidParams(
        await h().request('POST', `/${collection}`, {
          as: h().users.editor,
          body: named('Nul Field', { [spec.searchableField]: 'a\u0000b' }),
        }),
        [spec.searchableField],
      );
      assertInvalidParams(
        await h().request('PATCH', `/${collection}/${item.id}`, {
          as: h().users.editor,
          body: { description: '\u0000' },
        }),
        ['description'],
      );
      assertInvalidParams(await h().request('GET', `/${collection}/by-slug/nul%00slug`), ['slug']);
      assertInvalidParams(await h().request('GET', `/${collection}`, { query: { search: 'nul\u0000' } }), ['search']);
      assertInvalidParams(
        await h().request('GET', `/${collection}`, { as: h().users.editor, query: { status: ['draft', '\u0000'] } }),
        ['status'],
      );
    });

    it('accepts a form-encoded body as well as JSON', async () => {
      const response = await h().request('POST', `/${collection}`, {
        as: h().users.editor,
        form: { [nameKey]: 'Form Made', [spec.searchableField]: 'from a form' },
      });
      assert.equal(response.statusCode, 201);
      assert.equal(response.json()[nameKey], 'Form Made');
      assert.equal(response.json()[spec.searchableField], 'from a form');
    });
  });

  describeEachDatabase(`${spec.title}: duplicate avoidance on create (§7.2, D16)`, (h) => {
    const named = (name: string, extra: Record<string, unknown> = {}) => ({ [nameKey]: name, ...extra });

    it('reuses a non-trashed item with the same name, case-insensitively: 201, its id and Location, the sent meta written onto it', async () => {
      const original = await createLinked(h(), collection, named('Déjà Vu Place', { description: 'The first' }));
      const response = await h().request('POST', `/${collection}`, {
        as: h().users.editor,
        body: named('DÉJÀ VU PLACE', { [spec.searchableField]: 'added later' }),
      });
      assert.equal(response.statusCode, 201);
      const body = response.json();
      assert.equal(body.id, original.id);
      assert.equal(response.headers.location, `${h().config.apiRoot}/${collection}/${original.id}`);
      assert.equal(body[nameKey], 'Déjà Vu Place', 'the stored name is not changed');
      assert.equal(body.description, '<p>The first</p>');
      assert.equal(body[spec.searchableField], 'added later');
      assert.equal(body.slug, original.slug);
      const all = await h().request('GET', `/${collection}`, { as: h().users.editor, query: { search: 'Vu Place' } });
      assert.equal(all.json().total, 1);
    });

    it('matches the description too when one is sent', async () => {
      const original = await createLinked(h(), collection, named('Twin Hall', { description: 'Same words' }));
      const same = await createLinked(h(), collection, named('twin hall', { description: 'Same words' }));
      assert.equal(same.id, original.id);
      // As the reference compares (its database's collation ignores case): the description in other letter case is the same.
      const otherCase = await createLinked(h(), collection, named('TWIN HALL', { description: 'SAME Words' }));
      assert.equal(otherCase.id, original.id);
      const different = await createLinked(h(), collection, named('Twin Hall', { description: 'Other words' }));
      assert.notEqual(different.id, original.id);
      assert.equal(different.slug, `${original.slug}-2`);
    });

    it('does not reuse a trashed item', async () => {
      const original = await createLinked(h(), collection, named('Binned'));
      await h().request('DELETE', `/${collection}/${original.id}`, { as: h().users.editor });
      const fresh = await createLinked(h(), collection, named('Binned'));
      assert.notEqual(fresh.id, original.id);
      assert.equal(fresh.status, 'publish');
      assert.equal(fresh.slug, original.slug, 'the trashed item gave its slug up');
    });

    it("does not change the reused item's status, author or publication date", async () => {
      h().setNow('2026-02-01T08:00:00Z');
      const original = await createLinked(h(), collection, named('Stable Status'), h().users.editor);
      h().setNow('2026-02-02T08:00:00Z');
      const reused = await createLinked(
        h(),
        collection,
        named('Stable Status', { status: 'draft', author: h().users.author.id, date: '2025-01-01 00:00:00' }),
        h().users.administrator,
      );
      assert.equal(reused.id, original.id);
      assert.equal(reused.status, 'publish');
      assert.equal(reused.author, String(h().users.editor.id));
      assert.equal(reused.date, original.date);
      assert.equal(reused.modified_utc, '2026-02-02 08:00:00');
      h().setNow(null);
    });

    it("only reuses items the caller may edit: a contributor gets a new draft instead of writing onto an editor's item (D16)", async () => {
      const editors = await createLinked(
        h(),
        collection,
        named('Guarded Hall', { [spec.searchableField]: 'original' }),
      );
      const contributors = await createLinked(
        h(),
        collection,
        named('Guarded Hall', { [spec.searchableField]: 'hijack' }),
        h().users.contributor,
      );
      assert.notEqual(contributors.id, editors.id);
      assert.equal(contributors.status, 'draft');
      assert.equal((await h().request('GET', `/${collection}/${editors.id}`)).json()[spec.searchableField], 'original');

      const authors = await createLinked(h(), collection, named('Guarded Hall'), h().users.author);
      assert.notEqual(authors.id, editors.id, "an author may not edit an editor's item either");
      assert.notEqual(authors.id, contributors.id);

      const contributorsAgain = await createLinked(
        h(),
        collection,
        named('guarded hall', { [spec.searchableField]: 'mine' }),
        h().users.contributor,
      );
      assert.equal(contributorsAgain.id, contributors.id, 'a contributor reuses their own draft');
      assert.equal(contributorsAgain[spec.searchableField], 'mine');

      const editorsAgain = await createLinked(h(), collection, named('Guarded Hall'));
      assert.equal(editorsAgain.id, editors.id, 'the oldest editable match wins');
    });
  });

  describeEachDatabase(`${spec.title}: lists`, (h) => {
    const named = (name: string, extra: Record<string, unknown> = {}) => ({ [nameKey]: name, ...extra });
    const base = () => `${h().config.apiRoot}/${collection}/`;

    it('answers an empty first page with 200, zero totals and no links', async () => {
      const response = await h().request('GET', `/${collection}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        [collection]: [],
        rest_url: `${base()}?page=1&per_page=10&status=publish`,
        total: 0,
        total_pages: 0,
      });
      assert.equal(response.headers['x-tec-total'], '0');
      assert.equal(response.headers['x-tec-totalpages'], '0');
      assert.equal(response.headers['x-wp-total'], '0');
      assert.equal(response.headers['x-wp-totalpages'], '0');
      assert.equal(response.headers.link, undefined);
      const page2 = await h().request('GET', `/${collection}`, { query: { page: 2 } });
      assert.equal(page2.statusCode, 404);
      assert.deepEqual(page2.json(), { code: pageCode, message: pageMessage, data: { status: 404 } });
    });

    it('orders by publication date, newest first, then by id ascending', async () => {
      h().setNow('2026-06-01T12:00:00Z');
      const older = await createLinked(h(), collection, named('Order Older', { date: '2026-01-01 10:00:00' }));
      const tieA = await createLinked(h(), collection, named('Order Tie A', { date: '2026-03-01 10:00:00' }));
      const newest = await createLinked(h(), collection, named('Order Newest', { date: '2026-05-01 10:00:00' }));
      const tieB = await createLinked(h(), collection, named('Order Tie B', { date: '2026-03-01 10:00:00' }));
      const response = await h().request('GET', `/${collection}`, { query: { search: 'Order' } });
      assert.deepEqual(idsOf(response.json()[collection]), [newest.id, tieA.id, tieB.id, older.id]);
      h().setNow(null);
    });

    it('pages with rest_url, next_rest_url, previous_rest_url, the totals headers and Link (D10, D11, D12)', async () => {
      h().setNow('2026-06-01T12:00:00Z');
      const created = [];
      for (let index = 1; index <= 5; index++) {
        created.push(
          await createLinked(h(), collection, named(`Pager ${index}`, { date: `2026-01-0${index} 10:00:00` })),
        );
      }
      const newestFirst = created.map((item) => item.id).reverse();
      const query = { search: 'pager', per_page: 2 };

      const first = await h().request('GET', `/${collection}`, { query: { ...query } });
      assert.equal(first.statusCode, 200);
      const firstBody = first.json();
      assert.deepEqual(Object.keys(firstBody), [collection, 'rest_url', 'next_rest_url', 'total', 'total_pages']);
      assert.deepEqual(idsOf(firstBody[collection]), newestFirst.slice(0, 2));
      assert.equal(firstBody.rest_url, `${base()}?page=1&per_page=2&status=publish&search=pager`);
      assert.equal(firstBody.next_rest_url, `${base()}?per_page=2&status=publish&search=pager&page=2`);
      assert.equal(firstBody.total, 5);
      assert.equal(firstBody.total_pages, 3);
      assert.equal(first.headers['x-tec-total'], '5');
      assert.equal(first.headers['x-tec-totalpages'], '3');
      assert.equal(first.headers['x-wp-total'], '5');
      assert.equal(first.headers['x-wp-totalpages'], '3');
      assert.equal(first.headers.link, `<${firstBody.next_rest_url}>; rel="next"`);

      const second = await h().request('GET', firstBody.next_rest_url.replace(h().config.siteUrl, ''));
      const secondBody = second.json();
      assert.deepEqual(Object.keys(secondBody), [
        collection,
        'rest_url',
        'next_rest_url',
        'previous_rest_url',
        'total',
        'total_pages',
      ]);
      assert.deepEqual(idsOf(secondBody[collection]), newestFirst.slice(2, 4));
      assert.equal(secondBody.previous_rest_url, `${base()}?per_page=2&status=publish&search=pager`);
      assert.equal(
        second.headers.link,
        `<${secondBody.next_rest_url}>; rel="next", <${secondBody.previous_rest_url}>; rel="prev"`,
      );

      const third = await h().request('GET', secondBody.next_rest_url.replace(h().config.siteUrl, ''));
      const thirdBody = third.json();
      assert.deepEqual(idsOf(thirdBody[collection]), newestFirst.slice(4));
      assert.equal(thirdBody.next_rest_url, undefined);
      assert.equal(thirdBody.previous_rest_url, `${base()}?per_page=2&status=publish&search=pager&page=2`);
      assert.equal(third.headers.link, `<${thirdBody.previous_rest_url}>; rel="prev"`);

      const beyond = await h().request('GET', `/${collection}`, { query: { ...query, page: 4 } });
      assert.equal(beyond.statusCode, 404);
      assert.deepEqual(beyond.json(), { code: pageCode, message: pageMessage, data: { status: 404 } });
      h().setNow(null);
    });

    it('encodes the echoed filters (RFC 3986) so that following a link keeps them exactly', async () => {
      await createLinked(h(), collection, named('Ampersand & Co: 100% Genève'));
      await createLinked(h(), collection, named('Ampersand & Co: 100% Genève second', { description: 'two' }));
      const response = await h().request('GET', `/${collection}`, {
        query: { search: 'co: 100% genève & ampersand', per_page: 1 },
      });
      const body = response.json();
      assert.equal(body.total, 2);
      assert.deepEqual(queryPairs(body.rest_url), [
        ['page', '1'],
        ['per_page', '1'],
        ['status', 'publish'],
        ['search', 'co: 100% genève & ampersand'],
      ]);
      assert.match(body.rest_url, /search=co%3A%20100%25%20gen%C3%A8ve%20%26%20ampersand$/);
      const next = await h().request('GET', body.next_rest_url.replace(h().config.siteUrl, ''));
      assert.equal(next.json().total, 2);
      assert.equal(next.json()[collection].length, 1);
      assert.notEqual(next.json()[collection][0].id, body[collection][0].id);
    });

    it('echoes the filters in the reference order, followed by the ones the reference leaves out (D11)', async () => {
      const response = await h().request('GET', `/${collection}`, {
        query: {
          only_with_upcoming: 'true',
          search: 'anything',
          status: 'publish',
          has_events: 'false',
          per_page: 5,
          page: 1,
        },
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(
        queryPairs(response.json().rest_url).map(([name]) => name),
        ['page', 'per_page', 'has_events', 'status', 'search', 'only_with_upcoming'],
      );
    });

    it('refuses bad paging values with 400', async () => {
      for (const [name, value] of [
        ['page', '0'],
        ['page', '-1'],
        ['page', 'foo'],
        ['per_page', '0'],
        ['per_page', 'ten'],
        ['page', '1.5'],
      ]) {
        assertInvalidParams(await h().request('GET', `/${collection}`, { query: { [name]: value } }), [name]);
      }
      assertInvalidParams(await h().request('GET', `/${collection}`, { query: { search: '' } }), ['search']);
    });

    it('filters on status: anonymous callers and subscribers only publish, editors any list of statuses (§10)', async () => {
      const published = await createLinked(h(), collection, named('Status Published'));
      const draft = await createLinked(h(), collection, named('Status Draft', { status: 'draft' }));
      const pending = await createLinked(h(), collection, named('Status Pending', { status: 'pending' }));
      const privateItem = await createLinked(h(), collection, named('Status Private', { status: 'private' }));
      const trashed = await createLinked(h(), collection, named('Status Trashed'));
      await h().request('DELETE', `/${collection}/${trashed.id}`, { as: h().users.editor });
      const list = (as: Credentials | null, status?: string | string[]) =>
        h().request('GET', `/${collection}`, {
          as,
          query: { search: 'Status', ...(status === undefined ? {} : { status }) },
        });

      for (const as of [null, h().users.subscriber]) {
        const plain = await list(as);
        assert.deepEqual(idsOf(plain.json()[collection]), [published.id]);
        assert.equal(queryPairs(plain.json().rest_url).find(([name]) => name === 'status')?.[1], 'publish');
        assert.equal((await list(as, 'publish')).statusCode, 200);
        for (const status of ['draft', 'publish,draft', 'any', 'trash', 'bogus'])
          assertInvalidParams(await list(as, status), ['status']);
      }

      const editorDefault = await list(h().users.editor);
      assert.deepEqual(
        new Set(idsOf(editorDefault.json()[collection])),
        new Set([published.id, draft.id, pending.id, privateItem.id]),
      );
      assert.equal(queryPairs(editorDefault.json().rest_url).find(([name]) => name === 'status')?.[1], 'any');
      assert.deepEqual(
        idsOf((await list(h().users.editor, 'any')).json()[collection]),
        idsOf(editorDefault.json()[collection]),
      );
      assertInvalidParams(await list(h().users.editor, 'any,draft'), ['status']);
      assert.deepEqual(idsOf((await list(h().users.editor, 'draft')).json()[collection]), [draft.id]);
      assert.deepEqual(
        new Set(idsOf((await list(h().users.editor, 'draft, pending')).json()[collection])),
        new Set([draft.id, pending.id]),
      );
      const asArray = await list(h().users.editor, ['private', 'trash']);
      assert.deepEqual(new Set(idsOf(asArray.json()[collection])), new Set([privateItem.id, trashed.id]));
      assert.equal(queryPairs(asArray.json().rest_url).find(([name]) => name === 'status')?.[1], 'private,trash');
      assertInvalidParams(await list(h().users.editor, 'draft,bogus'), ['status']);
    });

    it('searches case-insensitively, non-ASCII letters included, and counts only the matches (D11)', async () => {
      const zurich = await createLinked(h(), collection, named('Kongresshaus Zürich'));
      const other = await createLinked(h(), collection, named('Kongresshaus Basel'));
      for (const search of ['ZÜRICH', 'zürich', 'Zürich', 'kongresshaus zÜrich', 'ZÜRICH KONGRESSHAUS']) {
        const response = await h().request('GET', `/${collection}`, { query: { search } });
        assert.deepEqual(idsOf(response.json()[collection]), [zurich.id], search);
        assert.equal(response.json().total, 1, search);
        assert.equal(response.headers['x-tec-total'], '1');
      }
      const both = await h().request('GET', `/${collection}`, { query: { search: 'KONGRESSHAUS' } });
      assert.deepEqual(new Set(idsOf(both.json()[collection])), new Set([zurich.id, other.id]));
      const none = await h().request('GET', `/${collection}`, { query: { search: 'zzz-nothing' } });
      assert.equal(none.statusCode, 200);
      assert.deepEqual(none.json()[collection], []);
      assert.equal(none.json().total, 0, 'total counts the searched set (the reference ignores the search here)');
      assert.equal(none.json().total_pages, 0);
    });

    it('searches title, description and its own fields; every word must be in one field (§6)', async () => {
      const inTitle = await createLinked(h(), collection, named('Aurora Theatre'));
      const inDescription = await createLinked(
        h(),
        collection,
        named('Plain Room', { description: 'Home of the aurora festival' }),
      );
      const inField = await createLinked(
        h(),
        collection,
        named('Quiet Room', { [spec.searchableField]: 'aurora-borealis 12' }),
      );
      const split = await createLinked(h(), collection, named('Theatre Split', { description: 'northern lights' }));
      const ids = async (search: string) =>
        idsOf((await h().request('GET', `/${collection}`, { query: { search } })).json()[collection]).sort(
          (a, b) => a - b,
        );

      assert.deepEqual(await ids('aurora'), [inTitle.id, inDescription.id, inField.id]);
      assert.deepEqual(await ids('theatre aurora'), [inTitle.id], 'the word order does not matter');
      assert.deepEqual(await ids('aurora-borealis'), [inField.id], 'a dash joins a word');
      assert.deepEqual(await ids('12, aurora-borealis'), [inField.id], 'punctuation separates words');
      assert.deepEqual(await ids('theatre lights'), [], 'one word in the title and one in the description is no match');
      assert.deepEqual(await ids('split northern'), []);
      assert.deepEqual(await ids('northern lights'), [split.id]);
      assert.deepEqual(await ids('%'), [], 'a search without words matches nothing');
      assert.deepEqual(await ids('_'), []);
    });
  });

  describeEachDatabase(
    `${spec.title}: page size limits (D10)`,
    (h) => {
      it('uses PER_PAGE_DEFAULT and clamps per_page to PER_PAGE_MAX, echoing the effective value', async () => {
        for (let index = 1; index <= 4; index++) await createLinked(h(), collection, { [nameKey]: `Clamp ${index}` });
        const byDefault = await h().request('GET', `/${collection}`);
        assert.equal(byDefault.json()[collection].length, 2);
        assert.equal(byDefault.json().total_pages, 2);
        assert.deepEqual(queryPairs(byDefault.json().rest_url).slice(0, 2), [
          ['page', '1'],
          ['per_page', '2'],
        ]);

        const clamped = await h().request('GET', `/${collection}`, { query: { per_page: 1000 } });
        assert.equal(clamped.statusCode, 200);
        assert.equal(clamped.json()[collection].length, 3);
        assert.equal(clamped.json().total, 4);
        assert.equal(clamped.json().total_pages, 2);
        assert.deepEqual(queryPairs(clamped.json().rest_url).slice(0, 2), [
          ['page', '1'],
          ['per_page', '3'],
        ]);
        assert.deepEqual(
          queryPairs(clamped.json().next_rest_url).find(([name]) => name === 'per_page'),
          ['per_page', '3'],
        );
      });
    },
    { PER_PAGE_DEFAULT: '2', PER_PAGE_MAX: '3' },
  );

  describeEachDatabase(`${spec.title}: the default PER_PAGE_MAX`, (h) => {
    it('clamps per_page to 100 by default', async () => {
      await createLinked(h(), collection, { [nameKey]: 'Only One' });
      const response = await h().request('GET', `/${collection}`, { query: { per_page: 101 } });
      assert.deepEqual(queryPairs(response.json().rest_url).slice(0, 2), [
        ['page', '1'],
        ['per_page', '100'],
      ]);
    });
  });
}
