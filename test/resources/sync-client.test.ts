// D24, the heart of it: a client that lists everything and then follows /changes ends with exactly what a fresh full
// list shows it. Anonymous, author and administrator clients each take a full list of every kind, remember its
// X-Sync-Cursor, then follow /changes (per_page 7) while three writers (editor, author, administrator) make 200
// random writes at once: creates, updates, trashes, restores, unpublishing, passwords set and removed, listing flags,
// permanent deletes, venue, organizer and term changes, and events scheduled a few seconds ahead that come due during
// the run. A fourth client (administrator) takes its full list while the writes run. At the end each client drains
// /changes and its copy must equal a fresh full list.
//
// The writes are drawn from a seeded generator: a failure prints the seed; `SYNC_SEED=<seed>` replays the same choices
// (the interleaving of concurrent requests may still differ).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DateTime } from 'luxon';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { assertSameCopy, drain, followOnce, fullList, type Copy } from './sync-support.ts';

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[int(items.length)]);
  const chance = (probability: number) => next() < probability;
  const some = <T>(items: readonly T[], most: number): T[] => {
    const chosen = new Set<T>();
    const count = int(most + 1);
    for (let index = 0; index < count && items.length > 0; index++) chosen.add(items[int(items.length)]);
    return [...chosen];
  };
  return { next, int, pick, chance, some };
}

const WRITES = 200;
const WRITERS = 3;

describeEachDatabase('a syncing client ends with what a fresh full list shows (D24)', (h) => {
  it('anonymous, author and administrator clients follow 200 random concurrent writes', {
    timeout: 600_000,
  }, async () => {
    const seed = Number(process.env.SYNC_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const label = `seed ${seed} on ${h().database} (replay: SYNC_SEED=${seed})`;
    console.log(`sync-client: ${label}`);
    const random = generator(seed);
    const { administrator: admin, editor, author } = h().users;

    const pools = {
      event: [] as number[],
      venue: [] as number[],
      organizer: [] as number[],
      category: [] as number[],
      tag: [] as number[],
    };
    let serial = 0;
    const failures: string[] = [];

    /** One write; any 5xx fails the test, a 4xx (an author on someone else's item, a stale id) is part of the game. */
    const write = async (
      as: Credentials,
      method: string,
      path: string,
      body?: Record<string, unknown>,
      query?: Record<string, string>,
    ) => {
      const response = await h().request(method, path, { as, ...(body ? { body } : {}), ...(query ? { query } : {}) });
      if (response.statusCode >= 500)
        failures.push(`${method} ${path} ${JSON.stringify(body)} → ${response.statusCode} ${response.body}`);
      return response.statusCode < 300 ? response.json() : undefined;
    };

    const dateIn = (base: string, hours: number) =>
      DateTime.fromISO(base, { zone: 'utc' }).plus({ hours }).toFormat('yyyy-MM-dd HH:mm:ss');
    const eventFields = (): Record<string, unknown> => {
      const start = dateIn(
        `${2027 + random.int(4)}-0${1 + random.int(9)}-1${random.int(10)}T0${random.int(10)}:00:00`,
        0,
      );
      return { start_date: start, end_date: dateIn(start.replace(' ', 'T'), 1 + random.int(3)) };
    };
    const statusChoice = () => random.pick(['publish', 'publish', 'publish', 'draft', 'pending', 'private'] as const)!;
    /** Publication dates a few seconds ahead: scheduled items that come due while the clients follow. */
    const soon = () =>
      DateTime.utc()
        .plus({ seconds: 1 + random.int(6) })
        .toFormat('yyyy-MM-dd HH:mm:ss');

    const createEventOp = async (as: Credentials) => {
      const body: Record<string, unknown> = {
        title: `Event ${++serial}`,
        description: `<p>About event ${serial}</p>`,
        status: statusChoice(),
        ...eventFields(),
      };
      if (random.chance(0.15)) Object.assign(body, { status: 'publish', date_utc: soon() });
      if (random.chance(0.2)) body.password = `pw${random.int(100)}`;
      if (random.chance(0.1)) body.hide_from_listings = true;
      if (random.chance(0.7))
        body.venue = random.chance(0.15) ? { venue: `Inline hall ${random.int(4)}` } : (random.pick(pools.venue) ?? 0);
      if (random.chance(0.6)) body.organizer = random.some(pools.organizer, 2);
      if (random.chance(0.6)) body.categories = random.some(pools.category, 2);
      if (random.chance(0.5)) body.tags = random.some(pools.tag, 3);
      // D25: some are series, whose occurrences are items of their own (each logged, listed and synced).
      if (random.chance(0.25)) body.recurrence = [`RRULE:FREQ=WEEKLY;COUNT=${2 + random.int(4)}`];
      const created = await write(as, 'POST', '/events', body);
      if (created) pools.event.push(created.id);
      if (created?.series_id) {
        const everything = await h().request('GET', '/events', {
          as: h().users.administrator,
          query: {
            start_date: '2000-01-01',
            end_date: '2100-01-01',
            per_page: 100,
            status: 'publish,future,draft,pending,private',
          },
        });
        for (const event of everything.json().events ?? [])
          if (event.series_id === created.id && event.id !== created.id) pools.event.push(event.id);
      }
    };

    const updateEventOp = async (as: Credentials) => {
      const id = random.pick(pools.event);
      if (id === undefined) return createEventOp(as);
      const body: Record<string, unknown> = {};
      switch (random.int(12)) {
        case 0:
          body.title = `Event ${++serial} renamed`;
          break;
        case 1:
          body.status = random.pick(['draft', 'private', 'pending'])!;
          break;
        case 2:
          body.status = 'publish';
          break;
        case 3:
          body.password = random.chance(0.5) ? `pw${random.int(100)}` : '';
          break;
        case 4:
          body.hide_from_listings = random.chance(0.5);
          break;
        case 5:
          body.venue = random.chance(0.2) ? 0 : (random.pick(pools.venue) ?? 0);
          break;
        case 6:
          body.organizer = random.some(pools.organizer, 2);
          break;
        case 7:
          body.categories = random.some(pools.category, 2);
          body.tags = random.some(pools.tag, 2);
          break;
        case 8:
          Object.assign(body, eventFields());
          break;
        case 9:
          Object.assign(body, { status: 'publish', date_utc: soon() });
          break;
        // D25: a single event becomes a series, a series changes its rule or becomes single (on an occurrence: a 400).
        case 10:
          body.recurrence = random.chance(0.3) ? [] : [`RRULE:FREQ=DAILY;COUNT=${2 + random.int(3)}`];
          break;
        default:
          body.featured = random.chance(0.5);
          body.excerpt = `Excerpt ${++serial}`;
          break;
      }
      await write(as, 'PATCH', `/events/${id}`, body);
    };

    const eventLifecycleOp = async (as: Credentials) => {
      const id = random.pick(pools.event);
      if (id === undefined) return createEventOp(as);
      const roll = random.int(10);
      if (roll < 5) await write(as, 'DELETE', `/events/${id}`);
      else if (roll < 8) await write(as, 'PATCH', `/events/${id}`, { status: 'publish' });
      else await write(as, 'DELETE', `/events/${id}`, undefined, { force: 'true' });
    };

    const linkedOp = async (as: Credentials, collection: 'venues' | 'organizers') => {
      const type = collection === 'venues' ? 'venue' : 'organizer';
      const pool = pools[type];
      const id = random.pick(pool);
      const roll = random.int(10);
      if (id === undefined || roll < 3) {
        const created = await write(as, 'POST', `/${collection}`, {
          [type]: `${type} ${++serial}`,
          status: random.chance(0.8) ? 'publish' : 'draft',
          ...(type === 'venue' ? { city: 'Springfield' } : { email: `o${serial}@example.com` }),
        });
        if (created && !pool.includes(created.id)) pool.push(created.id);
      } else if (roll < 6) {
        await write(
          as,
          'PATCH',
          `/${collection}/${id}`,
          type === 'venue' ? { city: `City ${++serial}`, venue: `venue ${serial}` } : { phone: `555-${++serial}` },
        );
      } else if (roll < 8) {
        await write(as, 'PATCH', `/${collection}/${id}`, { status: random.pick(['draft', 'publish', 'private'])! });
      } else if (roll < 9) {
        await write(as, 'DELETE', `/${collection}/${id}`);
      } else {
        await write(as, 'DELETE', `/${collection}/${id}`, undefined, { force: 'true' });
      }
    };

    const termOp = async (as: Credentials) => {
      const collection = random.chance(0.5) ? 'categories' : 'tags';
      const pool = collection === 'categories' ? pools.category : pools.tag;
      const id = random.pick(pool);
      const roll = random.int(10);
      if (id === undefined || roll < 4) {
        const body: Record<string, unknown> = { name: `${collection} ${++serial}` };
        if (collection === 'categories' && random.chance(0.4)) body.parent = random.pick(pool) ?? 0;
        const created = await write(as, 'POST', `/${collection}`, body);
        if (created) pool.push(created.id);
      } else if (roll < 7) {
        await write(as, 'PATCH', `/${collection}/${id}`, {
          name: `${collection} ${++serial} renamed`,
          description: `Changed ${serial}`,
        });
      } else if (roll < 8 && collection === 'categories') {
        await write(as, 'PATCH', `/${collection}/${id}`, { parent: random.chance(0.5) ? 0 : (random.pick(pool) ?? 0) });
      } else {
        await write(as, 'DELETE', `/${collection}/${id}`);
      }
    };

    const randomWrite = async (as: Credentials) => {
      const roll = random.next();
      if (roll < 0.22) return createEventOp(as);
      if (roll < 0.52) return updateEventOp(as);
      if (roll < 0.64) return eventLifecycleOp(as);
      if (roll < 0.76) return linkedOp(as, 'venues');
      if (roll < 0.86) return linkedOp(as, 'organizers');
      return termOp(as);
    };

    // What there is before the clients list: a few of everything, by the administrator.
    for (let index = 0; index < 4; index++) {
      await linkedOp(admin, 'venues');
      await linkedOp(admin, 'organizers');
    }
    for (let index = 0; index < 6; index++) await termOp(admin);
    for (let index = 0; index < 15; index++) await createEventOp(admin);

    const clients: Array<{
      name: string;
      as: Credentials | null;
      copy: Copy;
      cursor: string;
      polls: number;
      entries: number;
    }> = [];
    for (const [name, as] of [
      ['anonymous', null],
      ['author', author],
      ['administrator', admin],
    ] as const) {
      const { copy, cursor } = await fullList(h(), as);
      clients.push({ name, as, copy, cursor, polls: 0, entries: 0 });
    }

    let writing = true;
    const follower = async (client: (typeof clients)[number]) => {
      while (writing) {
        const page = await followOnce(h(), client.as, client.copy, client.cursor, 7);
        client.cursor = page.next_cursor;
        client.polls++;
        client.entries += page.changes.length;
        if (!page.has_more) await sleep(2);
      }
    };
    let done = 0;
    const writers = [editor, author, admin].slice(0, WRITERS).map(async (as) => {
      while (done < WRITES) {
        done++;
        await randomWrite(as);
      }
    });
    const following = clients.map(follower);
    // One more client lists while the writes run (each list a single page): its cursor, read before the first list's
    // queries, must cover whatever the lists missed.
    const listingDuringWrites = (async () => {
      while (done < WRITES / 4) await sleep(1);
      const { copy, cursor } = await fullList(h(), admin);
      const client = { name: 'administrator listing during the writes', as: admin, copy, cursor, polls: 0, entries: 0 };
      clients.push(client);
      await follower(client);
    })();
    await Promise.all(writers);
    writing = false;
    await Promise.all([...following, listingDuringWrites]);
    assert.deepEqual(failures, [], `no write answered 5xx (${label})`);

    // One instant for the drain and the fresh lists, so that a scheduled item cannot come due between the two. Two
    // seconds ahead: no anonymous answer cached at an earlier instant is still fresh then.
    h().setNow(DateTime.utc().plus({ seconds: 2 }).toISO()!);
    for (const client of clients) {
      const drained = await drain(h(), client.as, client.copy, client.cursor, 7);
      client.entries += drained.entries.length;
      const fresh = await fullList(h(), client.as);
      assertSameCopy(client.copy, fresh.copy, `${client.name} client, ${label}`);
      console.log(
        `sync-client: ${client.name} on ${h().database}: ${client.polls} polls, ${client.entries} entries; ${Object.entries(
          fresh.copy,
        )
          .map(([kind, items]) => `${items.size} ${kind}`)
          .join(', ')}`,
      );
      assert.ok(fresh.copy.event.size > 0, 'the run leaves events to compare');
    }
  });
});
