// The shared post layer, seen through venues and organizers: unique slugs (also under concurrent writes), trash and
// restore, statuses and their scale-back, authors, publication dates and scheduled items (D17), who sees what (§10,
// D19) and the one id sequence (D1b).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { assertInvalidParams, createLinked, idsOf } from './support.ts';

describeEachDatabase('Post layer: slugs', (h) => {
  it('makes slugs unique per type with -2, -3, …', async () => {
    const first = await createLinked(h(), 'venues', { venue: 'Slug Base', description: 'one' });
    const second = await createLinked(h(), 'venues', { venue: 'Slug Base', description: 'two' });
    const third = await createLinked(h(), 'venues', { venue: 'slug base!', description: 'three' });
    assert.deepEqual([first.slug, second.slug, third.slug], ['slug-base', 'slug-base-2', 'slug-base-3']);
    assert.equal(third.url, `${h().config.siteUrl}/venue/slug-base-3/`);
    const organizer = await createLinked(h(), 'organizers', { organizer: 'Slug Base' });
    assert.equal(organizer.slug, 'slug-base', 'another type has its own slugs');
    const bySlug = await h().request('GET', '/organizers/by-slug/slug-base');
    assert.equal(bySlug.json().id, organizer.id);
  });

  it('transliterates names and falls back to the type when nothing usable is left', async () => {
    const accented = await createLinked(h(), 'venues', { venue: 'Café Ünter den Linden' });
    assert.equal(accented.slug, 'cafe-unter-den-linden');
    const symbols = await createLinked(h(), 'venues', { venue: '日本' });
    assert.equal(symbols.slug, 'venue');
    const again = await createLinked(h(), 'venues', { venue: '東京' });
    assert.equal(again.slug, 'venue-2');
  });

  it('gives every one of 30 concurrent creates with the same name its own slug', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        h().request('POST', '/venues', {
          as: h().users.editor,
          body: { venue: 'Rush Hour Hall', description: `Copy ${index}` },
        }),
      ),
    );
    for (const response of responses) assert.equal(response.statusCode, 201, response.body);
    const slugs = responses.map((response) => response.json().slug);
    assert.deepEqual(
      new Set(slugs),
      new Set(['rush-hour-hall', ...Array.from({ length: 29 }, (_, index) => `rush-hour-hall-${index + 2}`)]),
    );
    assert.equal(new Set(responses.map((response) => response.json().id)).size, 30);
    const listed = await h().request('GET', '/venues', { query: { search: 'rush hour', per_page: 50 } });
    assert.equal(listed.json().total, 30);
  });

  it('frees the slug of a trashed item and picks a free one again when it is restored', async () => {
    const original = await createLinked(h(), 'venues', { venue: 'Phoenix Hall' });
    await h().request('DELETE', `/venues/${original.id}`, { as: h().users.editor });
    const successor = await createLinked(h(), 'venues', { venue: 'Phoenix Hall' });
    assert.equal(successor.slug, 'phoenix-hall', 'the trashed item no longer holds the slug');
    assert.notEqual(successor.id, original.id);

    const restored = await h().request('PATCH', `/venues/${original.id}`, {
      as: h().users.editor,
      body: { status: 'publish' },
    });
    assert.equal(restored.statusCode, 200);
    assert.equal(restored.json().status, 'publish');
    assert.equal(restored.json().slug, 'phoenix-hall-2');
    assert.equal(restored.json().url, `${h().config.siteUrl}/venue/phoenix-hall-2/`);
  });

  it('keeps trashed slugs unique and restores each of them to a free slug without the suffix', async () => {
    const trashed: number[] = [];
    for (const description of ['a', 'b', 'c']) {
      const item = await createLinked(h(), 'organizers', { organizer: 'Lazarus', description });
      const response = await h().request('DELETE', `/organizers/${item.id}`, { as: h().users.editor });
      assert.match(response.json().slug, /^lazarus/);
      assert.match(response.json().slug, /__trashed/);
      trashed.push(item.id);
    }
    const holder = await createLinked(h(), 'organizers', { organizer: 'Lazarus' });
    assert.equal(holder.slug, 'lazarus');

    const restores = await Promise.all(
      trashed.map((id) =>
        h().request('PATCH', `/organizers/${id}`, { as: h().users.editor, body: { status: 'draft' } }),
      ),
    );
    const slugs = restores.map((response) => response.json().slug);
    assert.deepEqual(new Set(slugs), new Set(['lazarus-2', 'lazarus-3', 'lazarus-4']));
  });
});

describeEachDatabase('Post layer: statuses', (h) => {
  const create = async (as: Credentials, status?: string) => {
    const body: Record<string, unknown> = { venue: `Status ${as.role} ${status ?? 'none'}` };
    if (status !== undefined) body.status = status;
    return h().request('POST', '/venues', { as, body });
  };

  it('uses the requested status for publishers and scales it back for contributors (§5.2)', async () => {
    const cases: Array<[keyof ReturnType<typeof h>['users'], string | undefined, string]> = [
      ['editor', undefined, 'publish'],
      ['editor', 'publish', 'publish'],
      ['editor', 'draft', 'draft'],
      ['editor', 'pending', 'pending'],
      ['editor', 'private', 'private'],
      ['editor', 'future', 'publish'],
      ['administrator', undefined, 'publish'],
      ['author', undefined, 'publish'],
      ['author', 'draft', 'draft'],
      ['author', 'private', 'private'],
      ['contributor', undefined, 'draft'],
      ['contributor', 'publish', 'pending'],
      ['contributor', 'future', 'pending'],
      ['contributor', 'draft', 'draft'],
      ['contributor', 'pending', 'pending'],
      ['contributor', 'private', 'private'],
    ];
    for (const [role, requested, expected] of cases) {
      const response = await create(h().users[role], requested);
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().status, expected, `${role} asking for ${requested}`);
    }
  });

  it('refuses unregistered statuses on create and update', async () => {
    for (const status of ['bogus', 'any', 'inherit', 'auto-draft', '', 'PUBLISH']) {
      assertInvalidParams(await create(h().users.editor, status), ['status']);
    }
    const venue = await createLinked(h(), 'venues', { venue: 'Status Update Target' });
    assertInvalidParams(
      await h().request('PATCH', `/venues/${venue.id}`, { as: h().users.editor, body: { status: 'nope' } }),
      ['status'],
    );
  });

  it("scales back a contributor's status on update too, and keeps the status when none is sent (D2)", async () => {
    const draft = await createLinked(h(), 'venues', { venue: 'Contributor Update' }, h().users.contributor);
    const asked = await h().request('PATCH', `/venues/${draft.id}`, {
      as: h().users.contributor,
      body: { status: 'publish' },
    });
    assert.equal(asked.json().status, 'pending');
    const edited = await h().request('PATCH', `/venues/${draft.id}`, {
      as: h().users.contributor,
      body: { city: 'Turin' },
    });
    assert.equal(edited.json().status, 'pending');
    const editorDraft = await createLinked(h(), 'venues', { venue: 'Editor Keeps Draft', status: 'draft' });
    const touched = await h().request('PATCH', `/venues/${editorDraft.id}`, {
      as: h().users.editor,
      body: { city: 'Turin' },
    });
    assert.equal(touched.json().status, 'draft', "a publisher's update does not publish a draft by itself");
  });

  it('creates an item straight into the trash under a __trashed slug, so it holds no clean slug', async () => {
    const binned = await createLinked(h(), 'venues', { venue: 'Born Binned', status: 'trash' });
    assert.equal(binned.status, 'trash');
    assert.equal(binned.slug, 'born-binned__trashed');
    const live = await createLinked(h(), 'venues', { venue: 'Born Binned' });
    assert.equal(live.slug, 'born-binned');
    assert.notEqual(live.id, binned.id);
    const again = await h().request('DELETE', `/venues/${binned.id}`, { as: h().users.editor });
    assert.equal(again.statusCode, 410);
    const restored = await h().request('PATCH', `/venues/${binned.id}`, {
      as: h().users.editor,
      body: { status: 'publish' },
    });
    assert.equal(restored.json().slug, 'born-binned-2');
  });

  it('links published and private items by slug, everything else by ?p=<id> (D1)', async () => {
    const site = h().config.siteUrl;
    for (const [status, pretty] of [
      ['publish', true],
      ['private', true],
      ['draft', false],
      ['pending', false],
    ] as const) {
      const venue = await createLinked(h(), 'venues', { venue: `Url ${status}`, status });
      assert.equal(venue.url, pretty ? `${site}/venue/${venue.slug}/` : `${site}/?p=${venue.id}`, status);
    }
  });
});

describeEachDatabase('Post layer: authors', (h) => {
  it('makes the caller the author unless another existing user is named', async () => {
    const own = await createLinked(h(), 'venues', { venue: 'Own Venue' }, h().users.author);
    assert.equal(own.author, String(h().users.author.id));
    const assigned = await createLinked(h(), 'venues', {
      venue: 'Assigned Venue',
      author: h().users.contributor.id,
      status: 'draft',
    });
    assert.equal(assigned.author, String(h().users.contributor.id));
    const asString = await createLinked(h(), 'organizers', {
      organizer: 'Assigned Org',
      author: String(h().users.author.id),
    });
    assert.equal(asString.author, String(h().users.author.id));

    const editable = await h().request('PATCH', `/venues/${assigned.id}`, {
      as: h().users.contributor,
      body: { city: 'Mine Now' },
    });
    assert.equal(editable.statusCode, 200, 'the named author owns the item');

    const reassigned = await h().request('PATCH', `/venues/${own.id}`, {
      as: h().users.editor,
      body: { author: h().users.editor.id },
    });
    assert.equal(reassigned.json().author, String(h().users.editor.id));
    const lost = await h().request('PATCH', `/venues/${own.id}`, { as: h().users.author, body: { city: 'x' } });
    assert.equal(lost.statusCode, 403, 'the former author no longer owns it');
  });

  it("lets only those who may edit another user's items name that user as the author", async () => {
    for (const role of ['contributor', 'author'] as const) {
      const as = h().users[role];
      const create = await h().request('POST', '/organizers', {
        as,
        body: { organizer: `Impersonated by ${role}`, author: h().users.editor.id },
      });
      assert.equal(create.statusCode, 403, role);
      assert.equal(create.json().code, 'rest_forbidden');
      const self = await h().request('POST', '/organizers', {
        as,
        body: { organizer: `Signed by ${role}`, author: as.id },
      });
      assert.equal(self.statusCode, 201, role);
      const handOver = await h().request('PATCH', `/organizers/${self.json().id}`, {
        as,
        body: { author: h().users.administrator.id },
      });
      assert.equal(handOver.statusCode, 403, role);
      assert.equal((await h().request('GET', `/organizers/${self.json().id}`, { as })).json().author, String(as.id));
    }
    const anonymous = await h().request('POST', '/organizers', {
      body: { organizer: 'Anonymous Author', author: h().users.editor.id },
    });
    assert.equal(anonymous.statusCode, 401);
  });

  it('refuses authors that are not existing users', async () => {
    for (const author of [999999, 0, -1, '', 'abc', 1.5, [1]]) {
      const response = await h().request('POST', '/venues', {
        as: h().users.editor,
        body: { venue: 'Ghost Author', author },
      });
      assertInvalidParams(response, ['author']);
    }
  });
});

describeEachDatabase(
  'Post layer: publication dates in the site zone',
  (h) => {
    it('reads date in SITE_TIMEZONE and date_utc in UTC, each giving the other; modified is now in both', async () => {
      h().setNow('2026-08-01T10:00:00Z');
      const local = await createLinked(h(), 'venues', { venue: 'Dated Local', date: '2026-01-15 10:00:00' });
      assert.equal(local.date, '2026-01-15 10:00:00');
      assert.equal(local.date_utc, '2026-01-15 09:00:00');
      assert.equal(local.modified, '2026-08-01 12:00:00');
      assert.equal(local.modified_utc, '2026-08-01 10:00:00');

      const utc = await createLinked(h(), 'venues', { venue: 'Dated Utc', date_utc: '2026-07-15 10:00:00' });
      assert.equal(utc.date, '2026-07-15 12:00:00');
      assert.equal(utc.date_utc, '2026-07-15 10:00:00');

      const both = await createLinked(h(), 'venues', {
        venue: 'Dated Both',
        date: '2026-01-01 00:00:00',
        date_utc: '2026-02-01 00:00:00',
      });
      // As WordPress stores them (post_date and post_date_gmt): both as sent, even when they disagree.
      assert.equal(both.date_utc, '2026-02-01 00:00:00');
      assert.equal(both.date, '2026-01-01 00:00:00');
      const updated = (
        await h().request('POST', `/venues/${both.id}`, {
          as: h().users.editor,
          body: { date: '2025-05-05 05:05:05', date_utc: '2025-06-06 06:06:06' },
        })
      ).json();
      assert.deepEqual([updated.date, updated.date_utc], ['2025-05-05 05:05:05', '2025-06-06 06:06:06']);
      const organizer = await createLinked(h(), 'organizers', {
        organizer: 'Dated Both Organizer',
        date: '2026-01-01 00:00:00',
        date_utc: '2026-02-01 00:00:00',
      });
      assert.deepEqual([organizer.date, organizer.date_utc], ['2026-01-01 00:00:00', '2026-02-01 00:00:00']);

      const instant = await createLinked(h(), 'venues', { venue: 'Dated Instant', date: '2026-01-15T10:00:00Z' });
      assert.equal(instant.date, '2026-01-15 11:00:00', 'a value with an offset is an instant (D8)');
      const timestamp = await createLinked(h(), 'venues', { venue: 'Dated Timestamp', date: 1767225600 });
      assert.equal(timestamp.date_utc, '2026-01-01 00:00:00');
      assert.equal(timestamp.date, '2026-01-01 01:00:00');

      const now = await createLinked(h(), 'organizers', { organizer: 'Dated Now' });
      assert.equal(now.date, '2026-08-01 12:00:00');
      assert.equal(now.date_utc, '2026-08-01 10:00:00');
      h().setNow(null);
    });

    it('refuses dates it cannot read', async () => {
      for (const [name, value] of [
        ['date', 'not-a-date'],
        ['date', '2024-02-30'],
        ['date', ''],
        ['date_utc', 'before my birthday'],
        ['date_utc', { at: 1 }],
      ] as const) {
        assertInvalidParams(
          await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Bad Date', [name]: value } }),
          [name],
        );
      }
    });

    it('changes the publication date on update only when one is sent (D2)', async () => {
      h().setNow('2026-08-01T10:00:00Z');
      const venue = await createLinked(h(), 'venues', { venue: 'Redated' });
      h().setNow('2026-08-02T10:00:00Z');
      const kept = (
        await h().request('PATCH', `/venues/${venue.id}`, { as: h().users.editor, body: { city: 'x' } })
      ).json();
      assert.equal(kept.date_utc, '2026-08-01 10:00:00');
      const moved = (
        await h().request('PATCH', `/venues/${venue.id}`, {
          as: h().users.editor,
          body: { date: '2025-12-24 18:00:00' },
        })
      ).json();
      assert.equal(moved.date, '2025-12-24 18:00:00');
      assert.equal(moved.date_utc, '2025-12-24 17:00:00');
      assert.equal(moved.modified_utc, '2026-08-02 10:00:00');
      h().setNow(null);
    });
  },
  { SITE_TIMEZONE: 'Europe/Rome' },
);

describeEachDatabase('Post layer: scheduled items (D17)', (h) => {
  it("schedules a publisher's item dated in the future and publishes it once the date has come", async () => {
    h().setNow('2026-05-01T12:00:00Z');
    const scheduled = await createLinked(h(), 'venues', { venue: 'Opening Soon', date: '2026-06-01 09:00:00' });
    assert.equal(scheduled.status, 'future');
    assert.equal(scheduled.url, `${h().config.siteUrl}/?p=${scheduled.id}`);
    const explicit = await createLinked(h(), 'venues', {
      venue: 'Opening Soon Too',
      status: 'future',
      date_utc: '2026-06-01 09:00:00',
    });
    assert.equal(explicit.status, 'future');
    const contributor = await createLinked(
      h(),
      'venues',
      { venue: 'Contributor Schedules', status: 'future', date: '2026-06-01 09:00:00' },
      h().users.contributor,
    );
    assert.equal(contributor.status, 'pending');

    for (const as of [null, h().users.subscriber, h().users.author]) {
      const response = await h().request('GET', `/venues/${scheduled.id}`, { as });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().code, 'venue-not-accessible');
    }
    assert.equal(
      (await h().request('GET', `/venues/${scheduled.id}`, { as: h().users.editor })).json().status,
      'future',
    );
    const search = { search: 'opening soon' };
    assert.deepEqual(idsOf((await h().request('GET', '/venues', { query: search })).json().venues), []);
    assert.deepEqual(
      idsOf(
        (await h().request('GET', '/venues', { as: h().users.editor, query: { ...search, status: 'future' } })).json()
          .venues,
      ).sort(),
      [scheduled.id, explicit.id].sort(),
    );
    assert.deepEqual(
      idsOf(
        (await h().request('GET', '/venues', { as: h().users.editor, query: { ...search, status: 'publish' } })).json()
          .venues,
      ),
      [],
    );

    h().setNow('2026-06-01T09:00:00Z');
    const due = await h().request('GET', `/venues/${scheduled.id}`);
    assert.equal(due.statusCode, 200);
    assert.equal(due.json().status, 'publish');
    assert.equal(due.json().url, `${h().config.siteUrl}/venue/opening-soon/`);
    const listed = await h().request('GET', '/venues', { query: search });
    assert.deepEqual(idsOf(listed.json().venues).sort(), [scheduled.id, explicit.id].sort());
    assert.equal(listed.json().venues[0].status, 'publish');
    assert.deepEqual(
      idsOf(
        (await h().request('GET', '/venues', { as: h().users.editor, query: { ...search, status: 'future' } })).json()
          .venues,
      ),
      [],
    );
    h().setNow(null);
  });
});

describeEachDatabase('Post layer: who sees what (§10, D19)', (h) => {
  let items: Record<string, Record<string, any>> = {};

  it('sets up items of every status and owner', async () => {
    items = {
      published: await createLinked(h(), 'venues', { venue: 'Seen Published' }),
      contributorDraft: await createLinked(h(), 'venues', { venue: 'Seen Contributor Draft' }, h().users.contributor),
      contributorPending: await createLinked(
        h(),
        'venues',
        { venue: 'Seen Contributor Pending', status: 'publish' },
        h().users.contributor,
      ),
      editorDraft: await createLinked(h(), 'venues', { venue: 'Seen Editor Draft', status: 'draft' }),
      editorPending: await createLinked(h(), 'venues', { venue: 'Seen Editor Pending', status: 'pending' }),
      editorPrivate: await createLinked(h(), 'venues', { venue: 'Seen Editor Private', status: 'private' }),
      authorPrivate: await createLinked(
        h(),
        'venues',
        { venue: 'Seen Author Private', status: 'private' },
        h().users.author,
      ),
      editorTrashed: await createLinked(h(), 'venues', { venue: 'Seen Editor Trashed' }),
      contributorTrashed: await createLinked(
        h(),
        'venues',
        { venue: 'Seen Contributor Trashed' },
        h().users.contributor,
      ),
    };
    for (const key of ['editorTrashed', 'contributorTrashed']) {
      const as = key === 'editorTrashed' ? h().users.editor : h().users.contributor;
      const response = await h().request('DELETE', `/venues/${items[key].id}`, { as });
      assert.equal(response.statusCode, 200);
      items[key] = response.json();
    }
  });

  const visibleTo: Record<string, string[]> = {
    anonymous: ['published'],
    subscriber: ['published'],
    contributor: ['published', 'contributorDraft', 'contributorPending', 'contributorTrashed'],
    author: ['published', 'authorPrivate'],
    editor: [
      'published',
      'contributorDraft',
      'contributorPending',
      'editorDraft',
      'editorPending',
      'editorPrivate',
      'authorPrivate',
      'editorTrashed',
      'contributorTrashed',
    ],
  };
  visibleTo.administrator = visibleTo.editor;

  it('opens an item by id and by slug only for those who may read it', async () => {
    for (const [who, visible] of Object.entries(visibleTo)) {
      const as = who === 'anonymous' ? null : h().users[who as keyof ReturnType<typeof h>['users']];
      for (const [key, item] of Object.entries(items)) {
        for (const path of [`/venues/${item.id}`, `/venues/by-slug/${item.slug}`]) {
          const response = await h().request('GET', path, { as });
          if (visible.includes(key)) {
            assert.equal(response.statusCode, 200, `${who} ${key} ${path}`);
          } else {
            assert.equal(response.statusCode, 403, `${who} ${key} ${path}`);
            assert.deepEqual(response.json(), {
              code: 'venue-not-accessible',
              message: 'The requested venue is not accessible',
              data: { status: 403 },
            });
          }
        }
      }
    }
  });

  it('lists only what the caller could open by id, whatever the status filter (D19)', async () => {
    const idsFor = (keys: string[]) => keys.map((key) => items[key].id).sort((a, b) => a - b);
    const list = async (as: Credentials | null, status?: string) => {
      const response = await h().request('GET', '/venues', {
        as,
        query: { search: 'seen', per_page: 50, ...(status ? { status } : {}) },
      });
      assert.equal(response.statusCode, 200, response.body);
      return { ids: idsOf(response.json().venues).sort((a, b) => a - b), total: response.json().total };
    };
    const notTrashed = (keys: string[]) => keys.filter((key) => !key.endsWith('Trashed'));
    for (const who of ['contributor', 'author', 'editor', 'administrator'] as const) {
      const byDefault = await list(h().users[who]);
      assert.deepEqual(byDefault.ids, idsFor(notTrashed(visibleTo[who])), `${who}, status any`);
      assert.equal(byDefault.total, byDefault.ids.length, `${who}: total counts what is shown`);
      const everything = await list(h().users[who], 'publish,future,draft,pending,private,trash');
      assert.deepEqual(everything.ids, idsFor(visibleTo[who]), `${who}, every status`);
    }
    assert.deepEqual((await list(h().users.contributor, 'draft')).ids, idsFor(['contributorDraft']));
    assert.deepEqual((await list(h().users.author, 'private')).ids, idsFor(['authorPrivate']));
    assert.deepEqual((await list(h().users.contributor, 'trash')).ids, idsFor(['contributorTrashed']));
    assert.deepEqual((await list(h().users.editor, 'private')).ids, idsFor(['editorPrivate', 'authorPrivate']));
    assert.deepEqual((await list(null)).ids, idsFor(['published']));
  });
});

describeEachDatabase('Post layer: one id sequence (D1b)', (h) => {
  it('numbers venues, organizers and images from one sequence, so an id names one record', async () => {
    const venue = await createLinked(h(), 'venues', {
      venue: 'Sequence Venue',
      image: 'https://cdn.example.com/seq.png',
    });
    const organizer = await createLinked(h(), 'organizers', { organizer: 'Sequence Org' });
    const another = await createLinked(h(), 'venues', { venue: 'Sequence Venue Two' });
    const ids = [venue.id, venue.image.id, organizer.id, another.id];
    assert.equal(new Set(ids).size, 4);
    assert.ok(venue.id < organizer.id && organizer.id < another.id);
    assert.equal(new Set([venue.global_id, organizer.global_id, another.global_id]).size, 3);

    assertInvalidParams(await h().request('GET', `/organizers/${venue.id}`), ['id']);
    assertInvalidParams(await h().request('GET', `/venues/${organizer.id}`), ['id']);
    assertInvalidParams(
      await h().request('PATCH', `/organizers/${venue.id}`, { as: h().users.editor, body: { phone: '1' } }),
      ['id'],
    );
    assertInvalidParams(await h().request('DELETE', `/venues/${organizer.id}`, { as: h().users.editor }), ['id']);

    await h().request('DELETE', `/venues/${another.id}`, { as: h().users.editor, query: { force: 'true' } });
    const next = await createLinked(h(), 'organizers', { organizer: 'After A Deletion' });
    assert.ok(next.id > another.id, 'a deleted id is not given out again');
  });
});

describeEachDatabase(
  'Post layer: URLs under a SITE_URL with a path and a port',
  (h) => {
    it('builds url, global_id and Location from SITE_URL', async () => {
      const response = await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Pathed Hall' } });
      const venue = response.json();
      assert.equal(venue.url, 'https://events.example.org:8443/community/venue/pathed-hall/');
      assert.equal(venue.global_id, `events.example.org/community?id=${venue.id}`);
      assert.deepEqual(venue.global_id_lineage, [venue.global_id]);
      assert.equal(
        response.headers.location,
        `https://events.example.org:8443/community/calendar/events/v1/venues/${venue.id}`,
      );
      const list = await h().request('GET', '/venues');
      assert.equal(
        list.json().rest_url,
        'https://events.example.org:8443/community/calendar/events/v1/venues/?page=1&per_page=10&status=publish',
      );
    });
  },
  { SITE_URL: 'https://events.example.org:8443/community/' },
);
