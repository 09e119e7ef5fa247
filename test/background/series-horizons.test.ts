// D25's rolling horizon moves in the background, never in a read: every read surface leaves a due series as it is, the
// job extends it, one process at a time (a lease in `settings`, taken under a database lock), and a day counts as done
// only once its run finished.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { DateTime } from 'luxon';
import { runSeriesHorizons, SERIES_HORIZONS_SETTING } from '../../src/core/background/series-horizons.ts';
import { runHorizonJob } from '../helpers/background.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { rowCount } from '../helpers/queries.ts';

const CREATED = '2026-11-23T12:00:00Z';
const LATER = '2027-06-23T12:00:00Z';

describeEachDatabase('the series-horizon job (D25)', (h) => {
  beforeEach(async () => {
    h().setNow(CREATED);
    // Each test starts with no run recorded, and no series but its own due.
    await h().store.db.deleteFrom('settings').where('name', '=', SERIES_HORIZONS_SETTING).execute();
    await h().store.db.updateTable('events').set({ series_horizon_utc: null }).execute();
  });
  const admin = () => h().users.administrator;

  async function monthlySeries(title: string): Promise<number> {
    const response = await h().request('POST', '/events', {
      as: admin(),
      body: {
        title,
        status: 'publish',
        start_date: '2026-12-01 19:00:00',
        end_date: '2026-12-01 21:00:00',
        timezone: 'UTC',
        recurrence: ['RRULE:FREQ=MONTHLY'],
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id;
  }
  const countOf = (seriesId: number) => rowCount(h().store, 'events', ['series_id', seriesId]);
  const lastSeq = async () =>
    Number(
      (
        await h()
          .store.db.selectFrom('changes')
          .select((eb) => eb.fn.max<number | string>('seq').as('seq'))
          .executeTakeFirstOrThrow()
      ).seq ?? 0,
    );
  const setting = async () =>
    (
      await h()
        .store.db.selectFrom('settings')
        .select('value')
        .where('name', '=', SERIES_HORIZONS_SETTING)
        .executeTakeFirst()
    )?.value;

  it('no read writes: lists, feeds, pages and sync leave a due series as it is; the job then extends it', async () => {
    const seriesId = await monthlySeries('Due for extension');
    assert.equal(await countOf(seriesId), 24);
    h().setNow(LATER);
    const seq = await lastSeq();
    for (const path of ['/events', '/events.ics', '/changes'])
      assert.equal((await h().request('GET', path, { as: admin() })).statusCode, 200, path);
    assert.equal((await h().app.inject({ method: 'GET', url: '/events/' })).statusCode, 200);
    assert.equal((await h().app.inject({ method: 'GET', url: '/events/month/2028-12/' })).statusCode, 200);
    assert.equal(await countOf(seriesId), 24, 'no read extended the series');
    assert.equal(await lastSeq(), seq, 'no read logged a change');

    assert.deepEqual(await runHorizonJob(h(), LATER), { ran: true, created: 7 });
    assert.equal(await countOf(seriesId), 31);
    assert.ok((await lastSeq()) > seq, 'the new occurrences are logged as created');
    assert.match((await setting())!, /^2027-06-23\|$/, 'the day is done, the lease given back');
  });

  it('runs once a day: a second run the same day does nothing, the next day runs again', async () => {
    await monthlySeries('Once a day');
    assert.equal((await runHorizonJob(h(), LATER)).ran, true);
    assert.deepEqual(await runHorizonJob(h(), '2027-06-23T18:00:00Z'), { ran: false, reason: 'done today' });
    assert.deepEqual(await runHorizonJob(h(), '2027-06-24T01:00:00Z'), { ran: true, created: 0 });
  });

  it('leaves a run in flight to its process, and takes over one whose lease ran out (its process died)', async () => {
    const seriesId = await monthlySeries('Taken over');
    await h()
      .store.db.insertInto('settings')
      .values({ name: SERIES_HORIZONS_SETTING, value: '2027-06-22|2027-06-23 12:05:00' })
      .execute();
    assert.deepEqual(await runHorizonJob(h(), LATER), { ran: false, reason: 'another process is running it' });
    assert.equal(await countOf(seriesId), 24);
    // Ten minutes on, the lease has run out and the day is still not done.
    assert.deepEqual(await runHorizonJob(h(), '2027-06-23T12:06:00Z'), { ran: true, created: 7 });
    assert.equal(await countOf(seriesId), 31);
  });

  it('two processes at once: one runs, and the series is extended once', async (t) => {
    // Two stores in one thread cannot race on SQLite (its driver waits synchronously for the file lock): the race is
    // PostgreSQL's, where processes write at once.
    if (h().database === 'sqlite') return t.skip('SQLite has one writer at a time');
    const seriesId = await monthlySeries('Raced');
    const other = await h().openAnotherStore();
    try {
      const actor = { viewer: null, now: DateTime.fromISO(LATER, { zone: 'utc' }), config: h().config };
      const runs = await Promise.all([runSeriesHorizons(h().store, actor), runSeriesHorizons(other, actor)]);
      assert.equal(runs.filter((run) => run.ran).length, 1, JSON.stringify(runs));
      assert.equal(await countOf(seriesId), 31, 'each occurrence created once');
      const starts = await h()
        .store.db.selectFrom('events')
        .select('occurrence_start_utc')
        .where('series_id', '=', seriesId)
        .execute();
      assert.equal(new Set(starts.map((row) => row.occurrence_start_utc)).size, 31);
    } finally {
      await other.close();
    }
  });
});
