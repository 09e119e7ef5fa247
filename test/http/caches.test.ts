// The process's caches (src/caches.ts, docs/caches.md): each app makes its own when it is built, sized by the
// configuration it was given, whatever another app in the same process, on the same store, was given.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DateTime } from 'luxon';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { queriesDuring, statementsDuring } from '../helpers/queries.ts';

describeEachDatabase('caches made by buildApp from its configuration', (h) => {
  const appWith = async (sizes: Partial<Config>) => {
    const app = await buildApp({ config: { ...h().config, ...sizes }, store: h().store, clock: () => DateTime.utc() });
    await app.ready();
    return app;
  };

  it('gives every cache the size its own app was configured with', async () => {
    const small = await appWith({ itemCacheBytes: 1000, readCacheBytes: 2000, icalCacheBytes: 3000 });
    try {
      const sizes = (app: typeof small) => [
        app.caches.eventItems.maxBytes,
        app.caches.responses.maxBytes,
        app.caches.icalEntries.maxBytes,
      ];
      assert.deepEqual(sizes(small), [1000, 2000, 3000]);
      assert.deepEqual(sizes(h().app), [
        h().config.itemCacheBytes,
        h().config.readCacheBytes,
        h().config.icalCacheBytes,
      ]);
      for (const name of [
        'eventItems',
        'embeddedTerms',
        'passwordGuesses',
        'responses',
        'credentials',
        'icalEntries',
      ] as const) {
        assert.notEqual(small.caches[name], h().app.caches[name], `${name}: one per app`);
      }
    } finally {
      await small.close();
    }
  });

  it('keeps no anonymous answer with READ_CACHE_BYTES=0, and answers a repeated read from the cache otherwise', async () => {
    const withoutReadCache = await appWith({ readCacheBytes: 0 });
    try {
      const list = (app: typeof withoutReadCache) => app.inject({ method: 'GET', url: `${h().api}/venues` });
      // Asked for twice: the cache keeps an answer once its URL is asked for again (http/recent-keys.ts).
      for (const app of [h().app, h().app, withoutReadCache]) assert.equal((await list(app)).statusCode, 200);
      assert.ok((await queriesDuring(h().store, () => list(h().app))) <= 1, 'a hit reads at most the data version');
      assert.ok((await queriesDuring(h().store, () => list(withoutReadCache))) > 1, 'no cache: the list is read again');
    } finally {
      await withoutReadCache.close();
    }
  });

  it('reads the embedded terms for every answer with TERM_SNAPSHOT=0, from the snapshot otherwise, the same JSON', async () => {
    const withoutSnapshot = await appWith({ termSnapshot: false, readCacheBytes: 0 });
    const withSnapshot = await appWith({ readCacheBytes: 0 });
    try {
      const category = await h().request('POST', '/categories', { as: h().users.editor, body: { name: 'Snapshot' } });
      const created = await h().request('POST', '/events', {
        as: h().users.administrator,
        body: {
          title: 'Snapshot check',
          status: 'publish',
          start_date: '2027-10-01 20:00:00',
          end_date: '2027-10-01 21:00:00',
          categories: [category.json().id],
          tags: ['snapshot'],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const read = (app: typeof withoutSnapshot) =>
        app.inject({ method: 'GET', url: `${h().api}/events/${created.json().id}` });
      const termReads = async (app: typeof withoutSnapshot) => {
        const texts: string[] = [];
        const statements = await statementsDuring(h().store, () => read(app));
        for (const text of statements) if (/from "terms"/.test(text)) texts.push(text);
        return texts.length;
      };
      assert.equal((await read(withoutSnapshot)).body, (await read(withSnapshot)).body);
      assert.ok((await termReads(withoutSnapshot)) > 0, 'no snapshot: the terms are read for the answer');
      assert.ok((await termReads(withoutSnapshot)) > 0, 'and again for the next one');
      assert.equal(await termReads(withSnapshot), 0, 'the snapshot holds them');
    } finally {
      await withoutSnapshot.close();
      await withSnapshot.close();
    }
  });

  it("keeps the feeds' VEVENTs in the memo of the app that wrote them, none with ICAL_CACHE_BYTES=0", async () => {
    const withoutMemo = await appWith({ icalCacheBytes: 0 });
    try {
      for (const day of ['01', '02', '03']) {
        const created = await h().request('POST', '/events', {
          as: h().users.administrator,
          body: {
            title: `Feed entry ${day}`,
            status: 'publish',
            start_date: `2027-09-${day} 20:00:00`,
            end_date: `2027-09-${day} 21:00:00`,
          },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
      const feed = (app: typeof withoutMemo) =>
        app.inject({ method: 'GET', url: `${h().api}/events.ics?start_date=2027-09-01&end_date=2027-09-30` });
      const written = await feed(h().app);
      assert.equal(written.statusCode, 200);
      assert.equal((written.body.match(/BEGIN:VEVENT/g) ?? []).length, 3);
      assert.equal((await feed(withoutMemo)).body, written.body, 'the same feed, whatever the memo keeps');
      assert.ok(h().app.caches.icalEntries.bytes > 0, 'the configured memo keeps the VEVENTs it wrote');
      assert.equal(withoutMemo.caches.icalEntries.bytes, 0, 'a memo of 0 bytes keeps nothing');
    } finally {
      await withoutMemo.close();
    }
  });
});
