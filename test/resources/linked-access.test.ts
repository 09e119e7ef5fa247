// D32: inline venues and organizers in event writes follow the permission rules of POST /venues and /organizers; an
// event write links only items the caller could read by id; a reader sees an embedded venue or organizer only if that
// reader could read it by id (single reads, lists and /changes sync). Issue 17 items 4 and 5.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { createEvent, eventBody } from './events-support.ts';
import { assertInvalidParams, createLinked } from './support.ts';
import { drain, emptyCopy } from './sync-support.ts';

const WIDE = { start_date: '1970-01-01', end_date: '2100-12-31' };

describeEachDatabase('links and embeds never show more than single reads (D32)', (h) => {
  const post = (as: Credentials, body: Record<string, unknown>) =>
    h().request('POST', '/events', { as, body: eventBody(body) });
  const venueIds = async () =>
    (await h().store.db.selectFrom('posts').select('id').where('type', '=', 'venue').execute()).map((row) => row.id);

  it('refuses an inline venue or organizer authored by someone the caller may not write for (403), on create and update', async () => {
    const { contributor, author, administrator, editor } = h().users;
    const before = await venueIds();
    const venueAsAdmin = await post(contributor, {
      title: 'Contributed',
      venue: { venue: 'Admin Hall (forged)', author: administrator.id },
    });
    assert.deepEqual([venueAsAdmin.statusCode, venueAsAdmin.json().code], [403, 'rest_forbidden'], venueAsAdmin.body);
    assert.deepEqual(await venueIds(), before, 'nothing was created');

    const organizerAsEditor = await post(author, {
      title: 'Authored',
      organizer: [{ organizer: 'Forged Org', status: 'publish', author: editor.id }],
    });
    assert.deepEqual(
      [organizerAsEditor.statusCode, organizerAsEditor.json().code],
      [403, 'rest_forbidden'],
      organizerAsEditor.body,
    );

    // The same on update, in array form and mixed with an allowed item.
    const own = await createEvent(h(), { title: 'Own draft' }, contributor);
    const update = await h().request('PATCH', `/events/${own.id}`, {
      as: contributor,
      body: { organizer: [{ organizer: 'Mine' }, { organizer: 'Theirs', author: administrator.id }] },
    });
    assert.deepEqual([update.statusCode, update.json().code], [403, 'rest_forbidden'], update.body);

    // Naming oneself is fine, and an editor may name anyone, as POST /venues allows.
    const self = await post(contributor, { title: 'Self', venue: { venue: 'Self Hall', author: contributor.id } });
    assert.equal(self.statusCode, 201, self.body);
    const byEditor = await post(editor, {
      title: 'Editor',
      organizer: { organizer: 'For the author', author: author.id },
    });
    assert.equal(byEditor.statusCode, 201, byEditor.body);
    assert.equal(byEditor.json().organizer[0].author, String(author.id));
  });

  it("scales back an inline item's status for contributors, as POST /venues does", async () => {
    const created = await post(h().users.contributor, {
      title: 'Scaled',
      venue: { venue: 'Wants Publish Hall', status: 'publish' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().venue.status, 'pending');
  });

  it('refuses to link a venue or organizer the caller cannot read, exactly as an unknown id', async () => {
    const { contributor, editor } = h().users;
    const privateVenue = await createLinked(
      h(),
      'venues',
      { venue: 'Private Hall', status: 'private', email: 'secret@example.test' },
      editor,
    );
    const draftOrganizer = await createLinked(h(), 'organizers', { organizer: 'Draft Org', status: 'draft' }, editor);
    assert.equal((await h().request('GET', `/venues/${privateVenue.id}`, { as: contributor })).statusCode, 403);

    const unknown = await post(contributor, { title: 'Unknown', venue: 99_999_999 });
    assertInvalidParams(unknown, ['venue']);
    for (const venue of [privateVenue.id, { id: privateVenue.id }, [privateVenue.id]]) {
      const response = await post(contributor, { title: 'Linked', venue });
      assertInvalidParams(response, ['venue']);
      assert.deepEqual(response.json(), unknown.json());
    }
    assertInvalidParams(await post(contributor, { title: 'Linked', organizer: [draftOrganizer.id] }), ['organizer']);
    const own = await createEvent(h(), { title: 'Own' }, contributor);
    assertInvalidParams(
      await h().request('PATCH', `/events/${own.id}`, { as: contributor, body: { venue: privateVenue.id } }),
      ['venue'],
    );

    // Items the caller may read are linked: published ones, and the caller's own drafts.
    const ownDraft = await createLinked(h(), 'venues', { venue: 'My Draft Hall', status: 'draft' }, contributor);
    const linked = await post(contributor, { title: 'Readable', venue: ownDraft.id });
    assert.equal(linked.statusCode, 201, linked.body);
    // Editors read everything, so they link it.
    assert.equal(
      (await post(editor, { title: 'Editor links', venue: privateVenue.id, organizer: [draftOrganizer.id] }))
        .statusCode,
      201,
    );
  });

  it('embeds a venue or organizer only for readers who could read it by id: single reads, lists and /changes', async () => {
    const { editor, contributor, administrator } = h().users;
    const since = (await h().request('GET', '/venues', { as: administrator })).headers['x-sync-cursor'] as string;
    const draftVenue = await createLinked(h(), 'venues', { venue: 'Unannounced Hall', status: 'draft' }, editor);
    const privateOrganizer = await createLinked(
      h(),
      'organizers',
      { organizer: 'Private Org', status: 'private' },
      editor,
    );
    const publicOrganizer = await createLinked(
      h(),
      'organizers',
      { organizer: 'Public Org', status: 'publish' },
      editor,
    );
    const event = await createEvent(
      h(),
      {
        title: 'Published with hidden links',
        status: 'publish',
        venue: draftVenue.id,
        organizer: [privateOrganizer.id, publicOrganizer.id],
      },
      editor,
    );

    const views = async (as: Credentials | null) => {
      const single = (await h().request('GET', `/events/${event.id}`, { as })).json();
      const list = (await h().request('GET', '/events', { as, query: { ...WIDE, include: String(event.id) } })).json()
        .events[0];
      const { entries } = await drain(h(), as, emptyCopy(), since);
      const synced = entries.find((entry) => entry.type === 'event' && entry.id === event.id)!.item!;
      return [single, list, synced] as Array<Record<string, any>>;
    };
    for (const as of [null, contributor]) {
      for (const [index, view] of (await views(as)).entries()) {
        const where = `${as?.login ?? 'anonymous'}, view ${index}`;
        assert.deepEqual(view.venue, [], where);
        assert.deepEqual(
          view.organizer.map((organizer: { id: number }) => organizer.id),
          [publicOrganizer.id],
          where,
        );
        assert.ok(!JSON.stringify(view).includes('Unannounced Hall'), where);
        assert.ok(!JSON.stringify(view).includes('Private Org'), where);
      }
      const single = (await views(as))[0];
      assert.equal(single.json_ld.location, undefined, 'json_ld leaves the hidden venue out too');
    }
    for (const view of await views(editor)) {
      assert.equal(view.venue.id, draftVenue.id);
      assert.deepEqual(
        view.organizer.map((organizer: { id: number }) => organizer.id),
        [privateOrganizer.id, publicOrganizer.id],
      );
    }

    // Filters see only the links the caller's embed shows: no finding the hidden venue, its place or the organizer.
    const located = await createLinked(
      h(),
      'venues',
      { venue: 'Hidden Place', status: 'draft', geo_lat: 48.85, geo_lng: 2.35 },
      editor,
    );
    const placed = await createEvent(h(), { title: 'At a hidden place', status: 'publish', venue: located.id }, editor);
    const filtered = async (as: Credentials | null, query: Record<string, string>) =>
      (await h().request('GET', '/events', { as, query: { ...WIDE, ...query } }))
        .json()
        .events.map((item: { id: number }) => item.id);
    const filters: Array<[Record<string, string>, number]> = [
      [{ venue: String(draftVenue.id) }, event.id],
      [{ organizer: String(privateOrganizer.id) }, event.id],
      [{ geoloc_lat: '48.85', geoloc_lng: '2.35', geoloc_radius: '1' }, placed.id],
      [{ geoloc: 'true', include: String(placed.id) }, placed.id],
    ];
    for (const [query, id] of filters) {
      assert.deepEqual(await filtered(null, query), [], `anonymous ${JSON.stringify(query)}`);
      assert.deepEqual(await filtered(contributor, query), [], `contributor ${JSON.stringify(query)}`);
      assert.deepEqual(await filtered(editor, query), [id], `editor ${JSON.stringify(query)}`);
    }
    assert.deepEqual(
      await filtered(null, { geoloc: 'false', include: String(placed.id) }),
      [placed.id],
      'as if it had no venue',
    );

    // Published, the venue is embedded for everyone.
    await h().request('PATCH', `/venues/${draftVenue.id}`, { as: editor, body: { status: 'publish' } });
    for (const view of await views(null)) assert.equal(view.venue.id, draftVenue.id);
  });
});
