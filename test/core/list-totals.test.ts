// Totals without scans: the total of every list (X-WP-Total), whether the occurrence counts answer it or its rows are
// counted, equals the number of events the list holds, over randomised events, writes, clocks, filters and callers.
// The page of 100 that holds every listed event is read by the page query alone, so it is the plain count.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { sql } from 'kysely';
import { compactAllCounts, countUncountedEvents } from '../../src/core/background/occurrence-counts.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { rowCount, statementsDuring } from '../helpers/queries.ts';

const SEED = Number(process.env.TOTALS_SEED ?? Math.floor(Math.random() * 2 ** 31));

describeEachDatabase('list totals from the occurrence counts', (h) => {
  it(`equal the plain count for random data, writes and lists (seed ${SEED}, replay: TOTALS_SEED=${SEED})`, async () => {
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const chance = (p: number) => random() < p;
    const admin = h().users.administrator;
    h().setNow('2030-01-01T12:00:00Z');

    const categories: number[] = [];
    const tags: number[] = [];
    for (const name of ['Music', 'Film', 'Food']) {
      categories.push((await h().request('POST', '/categories', { as: admin, body: { name } })).json().id);
      tags.push((await h().request('POST', '/tags', { as: admin, body: { name: `${name} tag` } })).json().id);
    }
    // Venues and organizers, one of each unpublished: an anonymous list of it holds nothing, whatever its events.
    const venues: number[] = [];
    const organizers: number[] = [];
    // Paris, London, Paris again: a place's total sums the venues near it that the caller may read.
    const places = [
      [48.8566, 2.3522],
      [51.5072, -0.1276],
      [48.8606, 2.3376],
    ] as const;
    for (const [index, status] of (['publish', 'publish', 'draft'] as const).entries()) {
      const [geo_lat, geo_lng] = places[index];
      const venue = await h().request('POST', '/venues', {
        as: admin,
        body: { venue: `Hall ${index}`, status, geo_lat, geo_lng },
      });
      assert.equal(venue.statusCode, 201, venue.body);
      venues.push(venue.json().id);
      const organizer = await h().request('POST', '/organizers', {
        as: admin,
        body: { organizer: `Host ${index}`, status },
      });
      assert.equal(organizer.statusCode, 201, organizer.body);
      organizers.push(organizer.json().id);
    }
    // Days over five months, January most: a window's whole months are added up by month, its ends by day.
    const months = ['2029-12', '2030-01', '2030-01', '2030-02', '2030-03', '2030-04'] as const;
    const day = () => `${pick(months)}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`;
    const daysAfter = (first: string, days: number) =>
      new Date(Date.parse(`${first}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const body = () => {
      const first = day();
      const start = `${first} ${String(Math.floor(random() * 24)).padStart(2, '0')}:00:00`;
      // A third end on a later day, often in a later month.
      const end = chance(0.3)
        ? `${daysAfter(first, 1 + Math.floor(random() * 45))} 10:00:00`
        : start.replace(/:00:00$/, ':30:00');
      return {
        title: `Event ${Math.floor(random() * 1e6)}`,
        start_date: start,
        end_date: end,
        status: pick(['publish', 'publish', 'publish', 'draft', 'pending', 'private']),
        ...(chance(0.15) ? { date: '2030-01-01 18:00:00' } : {}), // scheduled: due once the clock passes 18:00
        hide_from_listings: chance(0.15),
        categories: categories.filter(() => chance(0.4)),
        tags: tags.filter(() => chance(0.3)),
        venue: chance(0.7) ? pick(venues) : 0,
        organizer: organizers.filter(() => chance(0.35)),
        ...(chance(0.1) ? { recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] } : {}),
      };
    };
    const ids: number[] = [];
    for (let index = 0; index < 30; index++) {
      const created = await h().request('POST', '/events', { as: admin, body: body() });
      assert.equal(created.statusCode, 201, created.body);
      ids.push(created.json().id);
    }
    for (let index = 0; index < 30; index++) {
      const id = pick(ids);
      const action = pick(['edit', 'edit', 'trash', 'delete', 'restore'] as const);
      if (action === 'edit') {
        const { title: _title, recurrence: _recurrence, ...changes } = body();
        const fields = Object.entries(changes).filter(() => chance(0.5));
        await h().request('POST', `/events/${id}`, { as: admin, body: Object.fromEntries(fields) });
      } else if (action === 'trash') await h().request('DELETE', `/events/${id}`, { as: admin });
      else if (action === 'delete')
        await h().request('DELETE', `/events/${id}`, { as: admin, query: { force: 'true' } });
      else await h().request('POST', `/events/${id}`, { as: admin, body: { status: 'publish' } });
    }

    const author = await h().createUser('totals-author', 'author');
    const callers: Array<Credentials | undefined> = [undefined, admin, h().users.editor, author];
    let fromCounts = 0;
    let fromLinkedCounts = 0;
    for (let index = 0; index < 120; index++) {
      // A third of the way: the ledger compacted; two thirds: counted again from nothing, as an older database is.
      if (index === 30) assert.ok((await compactAllCounts(h().store)) > 0, 'compaction merged rows');
      if (index === 60) {
        await h().store.transaction(async (trx) => {
          await sql`delete from occurrence_counts`.execute(trx);
          await sql`delete from counted_events`.execute(trx);
        });
        assert.ok((await countUncountedEvents(h().store)) > 0);
        assert.equal(await rowCount(h().store, 'counted_events'), await rowCount(h().store, 'events'));
      }
      // Half way: a venue and an organizer trashed, which their events' lists then hide from all but their editors.
      if (index === 45) {
        assert.equal((await h().request('DELETE', `/venues/${venues[1]}`, { as: admin })).statusCode, 200);
        assert.equal((await h().request('DELETE', `/organizers/${organizers[1]}`, { as: admin })).statusCode, 200);
      }
      h().setNow(pick(['2030-01-01T12:00:00Z', '2030-01-02T12:00:00Z']));
      const query: Record<string, string> = { per_page: '100' };
      const window = pick(['default', 'days', 'days', 'months', 'times', 'include'] as const);
      if (window === 'days') {
        const [from, to] = [day(), day()].sort();
        if (chance(0.8)) query.start_date = from;
        if (chance(0.8)) query.end_date = chance(0.2) ? '2030-02-03' : to;
      } else if (window === 'months') {
        // From a month's first day, to a month's last: windows of whole months.
        const [from, to] = [pick(months), pick(months)].sort();
        if (chance(0.8)) query.start_date = `${from}-01`;
        if (chance(0.8)) query.end_date = daysAfter(`${daysAfter(`${to}-01`, 32).slice(0, 7)}-01`, -1);
      } else if (window === 'times') {
        query.start_date = `${day()} 06:00:00`;
        query.end_date = '2030-02-02 08:00:00';
        query.strict_dates = 'true';
      } else if (window === 'include') query.start_date = '2020-01-01';
      const filter = pick([
        'none',
        'category',
        'tag',
        'two categories',
        'search',
        'venue',
        'venue',
        'organizer',
        'organizer',
        'venue and tag',
        'place',
        'place',
        'place and tag',
      ] as const);
      if (filter === 'category') query.categories = String(pick(categories));
      if (filter === 'tag' || filter === 'venue and tag') query.tags = String(pick(tags));
      if (filter === 'venue' || filter === 'venue and tag') query.venue = String(pick(venues));
      if (filter === 'organizer') query.organizer = String(pick(organizers));
      if (filter === 'place' || filter === 'place and tag') {
        const [lat, lng] = pick([places[0], places[1], [35.68, 139.69]]);
        Object.assign(query, { geoloc_lat: String(lat), geoloc_lng: String(lng), geoloc_radius: pick(['5', '500']) });
        if (filter === 'place and tag') query.tags = String(pick(tags));
      }
      if (filter === 'two categories') query.categories = `${categories[0]},${categories[1]}`;
      if (filter === 'search') query.search = 'Event';
      const caller = pick(callers);
      if (caller && chance(0.5)) query.status = pick(['publish', 'draft', 'private,pending', 'future', 'trash']);
      let answer!: Awaited<ReturnType<Harness['request']>>;
      const statements = await statementsDuring(h().store, async () => {
        answer = await h().request('GET', '/events', { as: caller, query });
      });
      if (statements.some((text) => text.includes('occurrence_counts'))) {
        fromCounts++;
        if (filter === 'venue' || filter === 'organizer' || filter === 'place') fromLinkedCounts++;
      }
      const case_ = JSON.stringify({ query, caller: caller?.login ?? 'anonymous' });
      if (answer.statusCode === 404 || answer.statusCode === 400) continue;
      assert.equal(answer.statusCode, 200, `${case_}: ${answer.body}`);
      assert.equal(Number(answer.headers['x-wp-total']), answer.json().events.length, case_);
    }
    assert.ok(fromCounts >= 20, `${fromCounts} of 120 totals came from the counts`);
    assert.ok(fromLinkedCounts >= 5, `${fromLinkedCounts} totals of a venue, organizer or place came from the counts`);
  });

  it('are counted again from nothing when a database counted before venues and organizers were dimensions starts', async () => {
    const admin = h().users.administrator;
    const venue = (await h().request('POST', '/venues', { as: admin, body: { venue: 'Counted Hall' } })).json().id;
    for (const day of ['2031-03-01', '2031-03-02']) {
      const body = { title: 'Counted', start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00`, venue };
      const created = await h().request('POST', '/events', { as: admin, body });
      assert.equal(created.statusCode, 201, created.body);
    }
    // As a database migrated before 0020 stands: its events counted, that migration and the later ones not run yet.
    await sql`delete from kysely_migration where name >= '0020'`.execute(h().store.db);
    const reopened = await h().openAnotherStore();
    try {
      assert.equal(await rowCount(reopened, 'counted_events'), 0, 'the old counts are gone');
      assert.equal(
        await rowCount(reopened, 'settings', ['name', 'occurrence_counts']),
        0,
        'lists count rows meanwhile',
      );
      assert.equal(await countUncountedEvents(reopened), await rowCount(reopened, 'events'));
      const counted = await rowCount(reopened, 'occurrence_counts', ['dimension', `v${venue}`]);
      assert.ok(counted > 0, 'the venue is a dimension of the new counts');
    } finally {
      await reopened.close();
    }
    const listed = await h().request('GET', '/events', {
      query: { venue: String(venue), start_date: '2031-01-01', end_date: '2031-12-31' },
    });
    assert.equal(listed.headers['x-wp-total'], '2', listed.body.slice(0, 300));
  });
  it('gain month rows summed from the day rows when a database counted before them starts', async () => {
    const admin = h().users.administrator;
    const days = ['2032-03-30', '2032-03-31', '2032-04-01', '2032-04-02', '2032-05-20'];
    for (const [index, day] of days.entries()) {
      // The second ends in the next month: its month row keeps its end day.
      const end = index === 1 ? '2032-04-03' : day;
      const body = { title: 'Counted by month', start_date: `${day} 10:00:00`, end_date: `${end} 12:00:00` };
      const created = await h().request('POST', '/events', { as: admin, body });
      assert.equal(created.statusCode, 201, created.body);
    }
    const monthRows = async (store: Harness['store']) =>
      (
        await sql<{ start_day: string; end_day: string; total: number | string }>`
          select start_day, end_day, sum(count) as total from occurrence_counts
          where dimension = 'm:' and start_day >= '2032' group by start_day, end_day order by start_day, end_day`.execute(
          store.db,
        )
      ).rows.map((row) => [row.start_day, row.end_day, Number(row.total)]);
    const written = await monthRows(h().store);
    assert.deepEqual(written, [
      ['2032-03', '2032-03', 1],
      ['2032-03', '2032-04-03', 1],
      ['2032-04', '2032-04', 2],
      ['2032-05', '2032-05', 1],
    ]);
    // As a database migrated before 0021 stands: day rows only, the migration not run yet.
    await sql`delete from occurrence_counts where dimension like 'm:%'`.execute(h().store.db);
    await sql`delete from kysely_migration where name >= '0021'`.execute(h().store.db);
    const reopened = await h().openAnotherStore();
    try {
      // On PostgreSQL 0024 then has every event counted again from nothing, month rows included (the next test).
      if (h().database === 'postgres') await countUncountedEvents(reopened);
      assert.deepEqual(await monthRows(reopened), written, 'the migration sums the day rows into the same month rows');
    } finally {
      await reopened.close();
    }
    for (const [query, total] of [
      [{ start_date: '2032-03-01', end_date: '2032-05-31' }, '5'],
      [{ start_date: '2032-03-31', end_date: '2032-05-31' }, '4'],
      [{ start_date: '2032-03-01', end_date: '2032-04-02' }, '3'],
      [{ start_date: '2032-01-01', end_date: '2032-04-30' }, '4'],
    ] as const) {
      const listed = await h().request('GET', '/events', { query });
      assert.equal(listed.headers['x-wp-total'], total, JSON.stringify(query));
    }
  });

  it('are counted again from nothing where several processes write, once compactions of theirs may have raced', async () => {
    const admin = h().users.administrator;
    const days = ['2033-06-01', '2033-06-01', '2033-06-02'];
    for (const day of days) {
      const body = { title: 'Raced', start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00` };
      const created = await h().request('POST', '/events', { as: admin, body });
      assert.equal(created.statusCode, 201, created.body);
    }
    const window = { start_date: '2033-06-01', end_date: '2033-06-30' };
    // What two compactions adding their sums twice left: every row of the month counted twice.
    await sql`insert into occurrence_counts (dimension, status, start_day, end_day, published_utc, count)
      select dimension, status, start_day, end_day, published_utc, count from occurrence_counts
      where start_day >= '2033-06' and start_day < '2033-07'`.execute(h().store.db);
    // As a database migrated before 0024 stands.
    await sql`delete from kysely_migration where name >= '0024'`.execute(h().store.db);
    const reopened = await h().openAnotherStore();
    try {
      const recounted = h().database === 'postgres';
      assert.equal(
        await rowCount(reopened, 'settings', ['name', 'occurrence_counts']),
        recounted ? 0 : 1,
        recounted ? 'lists count rows meanwhile' : 'SQLite keeps its counts',
      );
      if (recounted) assert.equal(await countUncountedEvents(reopened), await rowCount(reopened, 'events'));
    } finally {
      await reopened.close();
    }
    const listed = await h().request('GET', '/events', { query: window });
    // SQLite's writers never raced, so its counts were never doubled: the doubling this test wrote stays there.
    assert.equal(listed.headers['x-wp-total'], h().database === 'postgres' ? '3' : '6', listed.body.slice(0, 300));
  });
});
