import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import {
  firstLoad,
  insertEventsBulk,
  insertOrganizersBulk,
  insertTermsBulk,
  insertVenuesBulk,
} from '../../src/core/bulk-load/bulk.ts';
import { insertPost } from '../../src/core/posts/store.ts';
import { bulkLoadUpkeep as postgresBulkLoadUpkeep } from '../../src/store/postgres/bulk-load.ts';
import { bulkLoadUpkeep as sqliteBulkLoadUpkeep } from '../../src/store/sqlite/bulk-load.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

describeEachDatabase('batch import', (h) => {
  it('writes events the API then serves exactly like created ones, counts and list copies included', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const author = h().users.editor.id;
    const [category] = await insertTermsBulk(h().store, 'event_category', ['Imported Jazz']);
    const [venue] = await insertVenuesBulk(
      h().store,
      [{ title: 'Import Hall', authorId: author, published: stamp, city: 'Oslo' }],
      stamp,
    );
    const organizers = await insertOrganizersBulk(
      h().store,
      [{ title: 'Import Org', authorId: author, published: stamp }],
      stamp,
    );
    const ids = await insertEventsBulk(
      h().store,
      Array.from({ length: 3 }, (_, index) => ({
        title: 'Imported Concert',
        authorId: author,
        published: stamp,
        timezone: 'America/New_York',
        start: `2027-03-1${index} 09:00:00`,
        end: `2027-03-1${index} 11:00:00`,
        cost: ['20$'],
        venueId: venue,
        organizerIds: organizers,
        categoryIds: [category],
      })),
      stamp,
    );
    assert.equal(new Set(ids).size, 3);

    const event = (await h().request('GET', `/events/${ids[0]}`)).json();
    assert.equal(event.slug, 'imported-concert');
    assert.equal(event.utc_start_date, '2027-03-10 14:00:00');
    assert.equal(event.timezone_abbr, 'EST');
    assert.equal(event.cost, '20$');
    assert.equal(event.venue.venue, 'Import Hall');
    assert.equal(event.organizer[0].organizer, 'Import Org');
    assert.equal(event.categories[0].count, 3);
    const listed = (
      await h().request('GET', '/events', { query: { start_date: '2027-03-01', end_date: '2027-03-31' } })
    ).json();
    assert.deepEqual(
      listed.events.map((item: { id: number }) => item.id),
      ids,
    );
    assert.deepEqual(
      listed.events.map((item: { slug: string }) => item.slug),
      ['imported-concert', 'imported-concert-2', 'imported-concert-3'],
    );
    h().setNow(null);
  });

  it('maps every id back to its input across the statements of a batch', async () => {
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const ids = await insertEventsBulk(
      h().store,
      Array.from({ length: 40 }, (_, index) => ({
        title: `Mapped ${index}`,
        authorId: h().users.editor.id,
        published: stamp,
        timezone: 'UTC',
        start: '2027-05-01 09:00:00',
        end: '2027-05-01 10:00:00',
      })),
      stamp,
    );
    for (const index of [0, 15, 16, 17, 31, 32, 39]) {
      assert.equal((await h().request('GET', `/events/${ids[index]}`)).json().title, `Mapped ${index}`);
    }
  });

  it("gives a slug a concurrent writer took during the batch's insert the next free one, in the same batch", async (t) => {
    if (h().database !== 'postgres')
      return t.skip('SQLite has one writer at a time: a batch reads slugs only after the other commits');
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const author = h().users.editor.id;
    // Another writer holds `contested-hall`, not yet committed: the batch cannot see it, picks it, and its insert waits.
    let commit!: () => void;
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let taken!: () => void;
    const isTaken = new Promise<void>((resolve) => {
      taken = resolve;
    });
    const other = h().store.transaction(async (trx) => {
      await insertPost(
        trx,
        {
          type: 'venue',
          author_id: author,
          status: 'publish',
          title: 'Contested Hall',
          date_local: stamp.local,
          date_utc: stamp.utc,
          modified_local: stamp.local,
          modified_utc: stamp.utc,
        },
        'contested-hall',
      );
      taken();
      await held;
    });
    await isTaken;
    const batch = insertVenuesBulk(
      h().store,
      [
        { title: 'Contested Hall', authorId: author, published: stamp },
        { title: 'Quiet Hall', authorId: author, published: stamp },
      ],
      stamp,
    );
    // The batch's insert is waiting on the other writer's row lock: commit it, which fails the insert on the unique index.
    let polls = 0;
    for (; polls < 1000; polls++) {
      const waiting = await sql<{ count: number | string }>`select count(*) as count from pg_stat_activity
        where wait_event_type = 'Lock' and state = 'active' and query like '%json_populate_recordset%' and datname = current_database()`.execute(
        h().store.db,
      );
      if (Number(waiting.rows[0].count) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.ok(polls < 1000, 'the batch never waited for the other writer');
    commit();
    await other;
    const ids = await batch;
    const slugs = await h()
      .store.db.selectFrom('posts')
      .select(['id', 'slug'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      slugs.map((row) => row.slug),
      ['contested-hall-2', 'quiet-hall'],
    );
    const logged = await h()
      .store.db.selectFrom('changes')
      .select(['id', 'action'])
      .where('type', '=', 'venue')
      .where('id', 'in', ids)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      logged,
      ids.map((id) => ({ id, action: 'created' })),
    );
  });

  const tables = ['posts', 'events', 'occurrences', 'event_terms', 'event_organizers', 'venues', 'organizers'];
  const deferrable = () =>
    (h().database === 'sqlite' ? sqliteBulkLoadUpkeep : postgresBulkLoadUpkeep).deferrable(h().store.db, tables);

  it('builds what a first load deferred again afterwards, also when the load fails', async () => {
    const before = await deferrable();
    assert.ok(before.some((definition) => definition.create.includes('occurrences_list')));
    if (h().database === 'postgres') assert.ok(before.some((definition) => /foreign key/i.test(definition.create)));

    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const [id] = await firstLoad(h().store, async () => {
      assert.deepEqual(await deferrable(), [], 'dropped during the load');
      return insertEventsBulk(
        h().store,
        [
          {
            title: 'First load',
            authorId: h().users.editor.id,
            published: stamp,
            timezone: 'UTC',
            start: '2027-06-01 09:00:00',
            end: '2027-06-01 10:00:00',
          },
        ],
        stamp,
      );
    });
    assert.deepEqual(await deferrable(), before);
    assert.equal((await h().request('GET', `/events/${id}`)).json().title, 'First load');

    await assert.rejects(
      firstLoad(h().store, async () => {
        throw new Error('source file unreadable');
      }),
      /source file unreadable/,
    );
    assert.deepEqual(await deferrable(), before);
    // Foreign keys hold again: a link to no event is refused.
    await assert.rejects(sql`insert into event_terms (event_id, term_id) values (2000000000, 1)`.execute(h().store.db));
  });

  it('gives events with one title unique slugs across batches written at once', async () => {
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const count = 4500;
    const ids = await insertEventsBulk(
      h().store,
      Array.from({ length: count }, () => ({
        title: 'Weekly Jam',
        authorId: h().users.editor.id,
        published: stamp,
        timezone: 'UTC',
        start: '2027-07-01 20:00:00',
        end: '2027-07-01 22:00:00',
      })),
      stamp,
    );
    assert.equal(new Set(ids).size, count);
    const slugs = await h().store.db.selectFrom('posts').select('slug').where('id', 'in', ids).execute();
    assert.equal(new Set(slugs.map((row) => row.slug)).size, count);
    assert.ok(
      slugs.some((row) => row.slug === 'weekly-jam') && slugs.some((row) => row.slug === `weekly-jam-${count}`),
    );
  });

  it('refuses a batch that links to an unknown venue, organizer or term, in a first load too, and writes none of it', async () => {
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const event = {
      title: 'Dangling',
      authorId: h().users.editor.id,
      published: stamp,
      timezone: 'UTC',
      start: '2027-08-01 20:00:00',
      end: '2027-08-01 22:00:00',
    };
    const [venue] = await insertVenuesBulk(
      h().store,
      [{ title: 'Real Hall', authorId: h().users.editor.id, published: stamp }],
      stamp,
    );
    await assert.rejects(
      insertEventsBulk(
        h().store,
        [
          { ...event, venueId: venue },
          { ...event, venueId: 1_999_999_999 },
        ],
        stamp,
      ),
      /No venue with id 1999999999/,
    );
    await assert.rejects(
      insertEventsBulk(h().store, [{ ...event, organizerIds: [venue] }], stamp),
      new RegExp(`No organizer with id ${venue}`),
    );
    await assert.rejects(
      firstLoad(h().store, () => insertEventsBulk(h().store, [{ ...event, tagIds: [1_999_999_998] }], stamp)),
      /No term with id 1999999998/,
    );
    const written = await h().store.db.selectFrom('posts').select('id').where('title', '=', 'Dangling').execute();
    assert.deepEqual(written, []);
  });

  it('builds every other index and key when the loaded rows break a foreign key', async (t) => {
    if (h().database !== 'postgres') return t.skip('SQLite keeps its foreign keys during a load');
    const before = await deferrable();
    const [term] = await insertTermsBulk(h().store, 'event_tag', ['Dangling tag']);
    await assert.rejects(
      firstLoad(h().store, async () => {
        await sql`insert into event_terms (event_id, term_id) values (1999999997, ${term})`.execute(h().store.db);
      }),
      /foreign key/i,
    );
    const broken = before.filter((definition) => definition.create.includes('event_terms_event_id_fkey'));
    assert.equal(broken.length, 1);
    assert.deepEqual(
      await deferrable(),
      before.filter((definition) => definition !== broken[0]),
    );
    await sql`delete from event_terms where event_id = 1999999997`.execute(h().store.db);
    await sql.raw(broken[0].create).execute(h().store.db);
  });
});
