// The venues' and organizers' stored documents that events embed, kept per process for one data version on SQLite
// (core/documents/linked-snapshot.ts, LINKED_SNAPSHOT): answers are the same bytes with it and without it, a read at
// a data version it holds reads no linked document again, and any commit, of this process or another, is seen by the
// next answer. PostgreSQL reads them with the events' documents, in the same statement, every time.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DateTime } from 'luxon';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { LinkedDocumentSnapshots } from '../../src/core/documents/linked-snapshot.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { statementsDuring } from '../helpers/queries.ts';
import { createLinked } from '../resources/support.ts';

describeEachDatabase('the snapshot of linked documents', (h) => {
  const appWith = async (settings: Partial<Config>) => {
    const app = await buildApp({
      config: { ...h().config, ...settings },
      store: h().store,
      clock: () => DateTime.utc(),
    });
    await app.ready();
    return app;
  };
  type App = Awaited<ReturnType<typeof appWith>>;

  let venueId: number;
  let organizerIds: number[];
  let eventIds: number[];

  before(async () => {
    const as = h().users.administrator;
    venueId = (await createLinked(h(), 'venues', { venue: 'Snapshot Hall', city: 'Ghent' }, as)).id;
    organizerIds = [
      (await createLinked(h(), 'organizers', { organizer: 'First Organizer' }, as)).id,
      (await createLinked(h(), 'organizers', { organizer: 'Second Organizer' }, as)).id,
    ];
    eventIds = [];
    for (const day of ['10', '11', '12']) {
      const created = await h().request('POST', '/events', {
        as,
        body: {
          title: `Snapshot night ${day}`,
          status: 'publish',
          start_date: `2031-05-${day} 20:00:00`,
          end_date: `2031-05-${day} 22:00:00`,
          venue: { id: venueId },
          organizer: organizerIds.map((id) => ({ id })),
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      eventIds.push(created.json().id);
    }
  });

  const byId = (app: App, id: number) => app.inject({ method: 'GET', url: `${h().api}/events/${id}` });
  const list = (app: App) =>
    app.inject({ method: 'GET', url: `${h().api}/events?start_date=2031-05-01&end_date=2031-05-31` });
  /** How many statements read the linked documents while `run` runs. */
  const linkedReads = async (run: () => Promise<unknown>) =>
    (await statementsDuring(h().store, run)).filter((text) => /from linked_documents/.test(text)).length;

  it('answers the same bytes with it and without it, by id and in a list', async () => {
    const without = await appWith({ linkedSnapshot: false, readCacheBytes: 0 });
    const withSnapshot = await appWith({ readCacheBytes: 0 });
    try {
      for (const id of eventIds) {
        const [plain, kept] = [await byId(without, id), await byId(withSnapshot, id)];
        assert.equal(plain.statusCode, 200, plain.body);
        assert.equal(kept.body, plain.body);
        assert.equal(kept.headers.etag, plain.headers.etag);
        assert.equal(plain.json().venue.venue, 'Snapshot Hall');
        assert.deepEqual(
          plain.json().organizer.map((organizer: { id: number }) => organizer.id),
          organizerIds,
        );
      }
      const [plain, kept] = [await list(without), await list(withSnapshot)];
      assert.equal(plain.json().events.length, 3);
      assert.equal(kept.body, plain.body);
    } finally {
      await without.close();
      await withSnapshot.close();
    }
  });

  it('reads them once per data version on SQLite, with the events every time on PostgreSQL', async () => {
    const without = await appWith({ linkedSnapshot: false, readCacheBytes: 0 });
    const withSnapshot = await appWith({ readCacheBytes: 0 });
    try {
      await byId(withSnapshot, eventIds[0]);
      const [first, again, aList] = [
        await linkedReads(() => byId(withSnapshot, eventIds[1])),
        await linkedReads(() => byId(withSnapshot, eventIds[2])),
        await linkedReads(() => list(withSnapshot)),
      ];
      if (h().database === 'sqlite') assert.deepEqual([first, again, aList], [0, 0, 0], 'the snapshot holds them');
      else assert.deepEqual([first, again, aList], [1, 1, 1], 'one statement reads events and linked documents');
      assert.equal(await linkedReads(() => byId(without, eventIds[1])), 1, 'LINKED_SNAPSHOT=0: read with the events');
    } finally {
      await without.close();
      await withSnapshot.close();
    }
  });

  it("shows a venue's edit at once, this process's or another's", async () => {
    const app = await appWith({ readCacheBytes: 0 });
    const venueName = async () => {
      const [one, all] = [await byId(app, eventIds[0]), await list(app)];
      const names = all.json().events.map((event: { venue: { venue: string } }) => event.venue.venue);
      assert.ok(
        names.every((name: string) => name === one.json().venue.venue),
        names.join(),
      );
      return one.json().venue.venue;
    };
    try {
      assert.equal(await venueName(), 'Snapshot Hall');
      const edited = await h().request('POST', `/venues/${venueId}`, {
        as: h().users.editor,
        body: { venue: 'Renamed Hall' },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(await venueName(), 'Renamed Hall', 'a write of this process');
      // Another process re-rendering the venue's document (here, writing it directly on its own connection).
      const other = await h().openAnotherStore();
      try {
        await other.transaction(async (trx) => {
          await trx
            .updateTable('linked_documents')
            .set((eb) => ({
              entry: eb.fn('replace', ['entry', eb.val('Renamed Hall'), eb.val('Other Hall')]),
              item: eb.fn('replace', ['item', eb.val('Renamed Hall'), eb.val('Other Hall')]),
            }))
            .where('post_id', '=', venueId)
            .execute();
        });
      } finally {
        await other.close();
      }
      assert.equal(await venueName(), 'Other Hall', "another process's commit");
    } finally {
      await app.close();
    }
  });

  it("outlives this process's event writes that write none of them, not a venue's edit", async () => {
    const app = await appWith({ readCacheBytes: 0 });
    const as = h().users.administrator;
    try {
      await byId(app, eventIds[0]);
      const retitled = await h().request('PATCH', `/events/${eventIds[0]}`, { as, body: { title: 'Retitled night' } });
      assert.equal(retitled.statusCode, 200, retitled.body);
      const created = await h().request('POST', '/events', {
        as,
        body: {
          title: 'Another night',
          status: 'publish',
          start_date: '2031-05-20 20:00:00',
          end_date: '2031-05-20 22:00:00',
          venue: { id: venueId },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const afterEventWrites = await linkedReads(() => byId(app, eventIds[1]));
      assert.equal(afterEventWrites, h().database === 'sqlite' ? 0 : 1);
      const edited = await h().request('POST', `/organizers/${organizerIds[0]}`, {
        as,
        body: { organizer: 'First Organizer, renamed' },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(await linkedReads(() => byId(app, eventIds[1])), 1, "an organizer's edit: read again");
      assert.equal((await byId(app, eventIds[2])).json().organizer[0].organizer, 'First Organizer, renamed');
    } finally {
      await app.close();
    }
  });

  it('starts over when full, and still answers every document', async () => {
    const snapshots = new LinkedDocumentSnapshots(h().store, true, 1);
    const version = await h().store.dataVersion();
    const ids = [venueId, ...organizerIds, 999_999];
    const reads = async () => {
      let found = 0;
      const statements = await statementsDuring(h().store, async () => {
        found = (await snapshots.rows(version, ids)).size;
      });
      return { found, statements: statements.length };
    };
    assert.deepEqual(await reads(), { found: 3, statements: 1 }, 'three documents; the unknown id has none');
    assert.deepEqual(await reads(), { found: 3, statements: 1 }, 'a bound of one character keeps none of them');
  });
});
