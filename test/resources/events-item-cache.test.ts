// The per-process cache of public events' GET /events/{id} answers (core/events/item-cache.ts): a hit answers the
// same bytes without reading the event again, and every change that alters the answer, made here or by another
// process, is seen at once (the change log drives it).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { queriesDuring } from '../helpers/queries.ts';
import { describeOnTwoProcesses } from '../helpers/service-process.ts';
import { DateTime } from 'luxon';
import { buildApp } from '../../src/app.ts';

/** The cache is off by default (stored documents answer these reads, D34): these suites turn it on. */
const ON = { ITEM_CACHE_BYTES: String(32 * 1024 * 1024) };

describeEachDatabase(
  'public events by id from the item cache',
  (h) => {
    const admin = () => h().users.administrator;
    const cacheSize = () => h().app.caches.eventItems.size;
    const get = (id: number, query?: Record<string, string>) => h().request('GET', `/events/${id}`, { query });
    const patch = async (path: string, body: Record<string, unknown>) => {
      const response = await h().request('PATCH', path, { as: admin(), body });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };

    it('answers a public event from the cache, and follows every change to it or to what it embeds', async () => {
      const venue = (
        await h().request('POST', '/venues', { as: admin(), body: { venue: 'Cached Hall', status: 'publish' } })
      ).json();
      const created = await h().request('POST', '/events', {
        as: admin(),
        body: {
          title: 'Cached concert',
          status: 'publish',
          start_date: '2027-06-01 20:00:00',
          end_date: '2027-06-01 22:00:00',
          venue: venue.id,
          categories: ['Cached category'],
        },
      });
      const id = created.json().id;
      const first = await get(id);
      assert.equal(first.statusCode, 200);
      const again = await get(id);
      assert.equal(again.body, first.body, 'the same bytes');
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(again.headers['last-modified'], first.headers['last-modified']);
      assert.equal(
        (await queriesDuring(h().store, () => get(id))) <= 2,
        true,
        'a hit reads no event (at most the data version and the log)',
      );
      assert.ok(cacheSize() >= 1);

      await patch(`/events/${id}`, { title: 'Renamed concert' });
      assert.equal((await get(id)).json().title, 'Renamed concert');
      await patch(`/venues/${venue.id}`, { venue: 'Renamed Hall' });
      assert.equal((await get(id)).json().venue.venue, 'Renamed Hall');
      const category = (await get(id)).json().categories[0];
      await patch(`/categories/${category.id}`, { name: 'Renamed category' });
      assert.equal((await get(id)).json().categories[0].name, 'Renamed category');
      await patch(`/venues/${venue.id}`, { status: 'draft' });
      assert.deepEqual((await get(id)).json().venue, [], 'an unpublished venue leaves the anonymous answer (D32)');
      await patch(`/events/${id}`, { password: 'secret' });
      assert.equal((await get(id)).statusCode, 403);
      assert.equal((await get(id, { password: 'secret' })).json().title, 'Renamed concert');
      await patch(`/events/${id}`, { password: '' });
      assert.equal((await get(id)).statusCode, 200);
      assert.equal((await h().request('DELETE', `/events/${id}`, { as: admin() })).statusCode, 200);
      assert.equal((await get(id)).statusCode, 403);
    });

    it('keeps public event pages too, and follows the changes of what they show', async () => {
      const venue = (
        await h().request('POST', '/venues', { as: admin(), body: { venue: 'Page Hall', status: 'publish' } })
      ).json();
      const event = (
        await h().request('POST', '/events', {
          as: admin(),
          body: {
            title: 'Paged event',
            status: 'publish',
            start_date: '2027-06-03 20:00:00',
            end_date: '2027-06-03 22:00:00',
            venue: venue.id,
          },
        })
      ).json();
      const page = () => h().app.inject({ method: 'GET', url: new URL(event.url).pathname });
      const first = await page();
      assert.equal(first.statusCode, 200);
      assert.match(first.body, /Page Hall/);
      assert.equal((await page()).body, first.body);
      await patch(`/venues/${venue.id}`, { venue: 'Renamed Page Hall' });
      assert.match((await page()).body, /Renamed Page Hall/);
      await patch(`/events/${event.id}`, { status: 'draft' });
      assert.equal((await page()).statusCode, 404);
    });

    it('keeps nothing whose answer depends on the reader or on the clock', async () => {
      const draftVenue = (
        await h().request('POST', '/venues', { as: admin(), body: { venue: 'Draft Hall', status: 'draft' } })
      ).json();
      const event = (
        await h().request('POST', '/events', {
          as: admin(),
          body: {
            title: 'With a draft venue',
            status: 'publish',
            start_date: '2027-06-02 20:00:00',
            end_date: '2027-06-02 22:00:00',
            venue: draftVenue.id,
          },
        })
      ).json();
      const before = cacheSize();
      assert.deepEqual((await get(event.id)).json().venue, []);
      assert.equal(cacheSize(), before, 'not kept: an administrator sees the venue');
      const asAdmin = await h().request('GET', `/events/${event.id}`, { as: admin() });
      assert.equal(asAdmin.json().venue.venue, 'Draft Hall');
    });
  },
  ON,
);

describeOnTwoProcesses(
  'the item cache follows writes of another process',
  (h, services) => {
    it('a change written by one process is seen at once by the other', async () => {
      const [one, two] = services();
      const url = (service: { port: number }, path: string) => `http://127.0.0.1:${service.port}${h().api}${path}`;
      const authorization = h().users.administrator.authorization;
      const created = (await (
        await fetch(url(one, '/events'), {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({
            title: 'Two processes',
            status: 'publish',
            start_date: '2027-07-01 20:00:00',
            end_date: '2027-07-01 21:00:00',
          }),
        })
      ).json()) as { id: number };
      for (let round = 0; round < 5; round++) {
        assert.equal(
          ((await (await fetch(url(two, `/events/${created.id}`))).json()) as { title: string }).title,
          round === 0 ? 'Two processes' : `Round ${round - 1}`,
        );
        const written = await fetch(url(one, `/events/${created.id}`), {
          method: 'PATCH',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Round ${round}` }),
        });
        assert.equal(written.status, 200);
        assert.equal(
          ((await (await fetch(url(two, `/events/${created.id}`))).json()) as { title: string }).title,
          `Round ${round}`,
        );
      }
    });
  },
  ON,
);

describeEachDatabase(
  'the item cache of each app, sized by its own configuration',
  (h) => {
    it('keeps answers by the ITEM_CACHE_BYTES its app was built with, whatever another app on the same store has', async () => {
      const withoutCache = await buildApp({
        config: { ...h().config, itemCacheBytes: 0 },
        store: h().store,
        clock: () => DateTime.utc(),
      });
      try {
        await withoutCache.ready();
        const created = await h().request('POST', '/events', {
          as: h().users.administrator,
          body: {
            title: 'Sized by its app',
            status: 'publish',
            start_date: '2027-08-01 20:00:00',
            end_date: '2027-08-01 22:00:00',
          },
        });
        assert.equal(created.statusCode, 201, created.body);
        // A new query string each time, so that no answer comes from the read cache, which keys by URL.
        let request = 0;
        const get = (app: typeof withoutCache) =>
          app.inject({ method: 'GET', url: `${h().api}/events/${created.json().id}?request=${++request}` });
        // The app without a cache asks first: were the cache one per store, made by its first caller, no app would keep anything.
        assert.equal((await get(withoutCache)).statusCode, 200);
        assert.equal((await get(h().app)).statusCode, 200);
        const cached = await queriesDuring(h().store, () => get(h().app));
        assert.ok(cached <= 2, 'the app with a cache answers from it');
        // Without a cache, the event's stored document (D34) is read every time: one statement more.
        assert.ok(
          (await queriesDuring(h().store, () => get(withoutCache))) > cached,
          'the app without one reads the event every time',
        );
      } finally {
        await withoutCache.close();
      }
    });
  },
  ON,
);
