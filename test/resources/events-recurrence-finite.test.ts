// D25 finite series (every rule ends with COUNT or UNTIL) through the HTTP surface on both databases: all of their
// occurrences are materialised, not only those up to the rolling horizon, so the API lists what the series' own feed
// says; RECURRENCE_MAX_OCCURRENCES bounds them all when a rule is written. Every finite rule of the python-dateutil
// fixture (test/fixtures/recurrence/expected.json, generate.py) is checked this way.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import ICAL from 'ical.js';
import { runHorizonJob } from '../helpers/background.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { recurrenceCases } from '../fixtures/recurrence/cases.ts';

const NOW = '2026-11-23T12:00:00Z';

const fixture = { cases: recurrenceCases };
const finiteCases = fixture.cases.filter((c) => c.all_utc_starts !== undefined);

describeEachDatabase('Finite series are expanded completely (D25)', (h) => {
  beforeEach(() => h().setNow(NOW));
  const admin = () => h().users.administrator;
  const maxOccurrences = () => h().config.recurrence.maxOccurrences;

  const post = (body: Record<string, unknown>) =>
    h().request('POST', '/events', { as: admin(), body: { status: 'publish', title: 'Finite series', ...body } });
  async function create(body: Record<string, unknown>) {
    const response = await post(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  }
  /** A series' occurrences as GET /events lists them (every page of a window wider than any fixture case). */
  async function listed(seriesId: number): Promise<any[]> {
    const found: any[] = [];
    for (let page = 1; ; page++) {
      const response = await h().request('GET', '/events', {
        as: admin(),
        query: { start_date: '1900-01-01', end_date: '2500-12-31', per_page: 100, page, status: 'publish,future' },
      });
      assert.equal(response.statusCode, 200, response.body);
      found.push(...(response.json().events as any[]).filter((event) => event.series_id === seriesId));
      if (page >= Number(response.headers['x-wp-totalpages'])) return found;
    }
  }
  function assertTooMany(response: { statusCode: number; json(): any; body: string }) {
    assert.equal(response.statusCode, 400, response.body);
    const body = response.json();
    assert.equal(body.code, 'rest_invalid_param');
    assert.equal(body.data.status, 400);
    assert.equal(body.data.details.recurrence.code, 'rest_invalid_recurrence');
    assert.match(body.data.details.recurrence.message, new RegExp(`more than ${maxOccurrences()} occurrences`));
  }

  it('MONTHLY;COUNT=36 starting in two months lists all 36, as its own feed does', async () => {
    const series = await create({
      timezone: 'Europe/Berlin',
      start_date: '2027-01-20 19:00:00',
      end_date: '2027-01-20 21:00:00',
      recurrence: ['RRULE:FREQ=MONTHLY;COUNT=36'],
    });
    const occurrences = await listed(series.id);
    assert.equal(occurrences.length, 36);
    assert.equal(occurrences.at(-1).start_date, '2029-12-20 19:00:00');
    const feed = await h().request('GET', `/events/${series.id}.ics`);
    assert.equal(feed.statusCode, 200, feed.body);
    const master = new ICAL.Component(ICAL.parse(feed.body))
      .getAllSubcomponents('vevent')
      .find((event) => !event.hasProperty('recurrence-id'))!;
    const iterator = new ICAL.Event(master).iterator();
    let fromFeed = 0;
    while (iterator.next()) fromFeed += 1;
    assert.equal(fromFeed, 36);
  });

  it('a yearly COUNT=3 leap-day series lists its three February 29ths', async () => {
    const series = await create({
      timezone: 'America/New_York',
      start_date: '2028-02-29 12:00:00',
      end_date: '2028-02-29 13:00:00',
      recurrence: ['RRULE:FREQ=YEARLY;COUNT=3'],
    });
    assert.deepEqual(
      (await listed(series.id)).map((event) => event.start_date),
      ['2028-02-29 12:00:00', '2032-02-29 12:00:00', '2036-02-29 12:00:00'],
    );
  });

  it('more than RECURRENCE_MAX_OCCURRENCES in all is a 400 on create and update, however far past the horizon', async () => {
    const start = { timezone: 'UTC', start_date: '2027-01-01 09:00:00', end_date: '2027-01-01 10:00:00' };
    for (const rule of [
      'RRULE:FREQ=DAILY;COUNT=100000',
      `RRULE:FREQ=WEEKLY;COUNT=${maxOccurrences() + 1}`,
      'RRULE:FREQ=HOURLY;UNTIL=99991231T000000Z',
      'RRULE:FREQ=DAILY;UNTIL=29991231',
    ]) {
      assertTooMany(await post({ ...start, recurrence: [rule] }));
    }
    const exactly = await create({ ...start, recurrence: [`RRULE:FREQ=WEEKLY;COUNT=${maxOccurrences()}`] });
    assert.equal((await listed(exactly.id)).length, maxOccurrences());
    const longer = await h().request('PATCH', `/events/${exactly.id}`, {
      as: admin(),
      body: { recurrence: ['RRULE:FREQ=DAILY;COUNT=100000'] },
    });
    assertTooMany(longer);
    assert.equal((await listed(exactly.id)).length, maxOccurrences(), 'the refused rule changed nothing');
    // Gone again, so that the other tests' lists stay short.
    assert.equal(
      (await h().request('DELETE', `/events/${exactly.id}`, { as: admin(), query: { force: true } })).statusCode,
      200,
    );
  });

  it('a stored finite rule past the maximum (written before finite rules were checked in full) is still followed to the horizon', async () => {
    const series = await create({
      timezone: 'UTC',
      start_date: '2026-12-01 07:00:00',
      end_date: '2026-12-01 08:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=10'],
    });
    // As such a series was stored: its rule on every row of it, and on its own row the horizon to extend it to.
    await h()
      .store.db.updateTable('events')
      .set({ recurrence: JSON.stringify(['RRULE:FREQ=DAILY;COUNT=100000']) })
      .where('series_id', '=', series.id)
      .execute();
    await h()
      .store.db.updateTable('events')
      .set({ series_horizon_utc: '2028-11-23 12:00:00' })
      .where('id', '=', series.id)
      .execute();
    h().setNow('2027-06-23T12:00:00Z');
    assert.equal((await runHorizonJob(h(), '2027-06-23T12:00:00Z')).ran, true);
    const occurrences = await listed(series.id);
    assert.equal(occurrences.length, 935, 'December 1, 2026 to the horizon, June 22, 2029');
    assert.equal(occurrences.at(-1).start_date, '2029-06-22 07:00:00');
    assert.equal(
      (await h().request('DELETE', `/events/${series.id}`, { as: admin(), query: { force: true } })).statusCode,
      200,
    );
  });

  it("has the dateutil fixture's finite rules to check", () => {
    assert.ok(finiteCases.length >= 150, `${finiteCases.length}`);
  });

  it('every finite rule of the dateutil fixture lists all its starts, not only those up to the horizon', async () => {
    let beyondHorizon = 0;
    for (const c of finiteCases) {
      const response = await post({
        title: `Fixture ${c.name}`,
        timezone: c.timezone,
        all_day: c.all_day,
        start_date: c.start,
        end_date: c.end,
        recurrence: c.recurrence,
      });
      const expected = c.all_utc_starts!;
      if (expected.length > maxOccurrences()) {
        assertTooMany(response);
        continue;
      }
      if (!c.all_local_starts!.includes(c.start)) {
        // DTSTART removed by its own EXDATE: the API refuses that (a series starts at its first occurrence).
        assert.equal(response.statusCode, 400, `${c.name}: ${response.body}`);
        assert.match(response.json().data.details.recurrence.message, /first occurrence is start_date/);
        continue;
      }
      assert.equal(response.statusCode, 201, `${c.name}: ${response.body}`);
      const series = response.json();
      const occurrences = await listed(series.id);
      assert.deepEqual(
        occurrences.map((event) => event.utc_start_date),
        expected,
        c.name,
      );
      assert.deepEqual(
        occurrences.map((event) => event.start_date),
        c.all_local_starts,
        c.name,
      );
      if (expected.at(-1)! > '2028-11-23 12:00:00') beyondHorizon += 1;
      // One series at a time keeps each list short.
      const deleted = await h().request('DELETE', `/events/${series.id}`, { as: admin(), query: { force: true } });
      assert.equal(deleted.statusCode, 200, deleted.body);
    }
    assert.ok(beyondHorizon >= 20, `${beyondHorizon} cases end past the horizon`);
  });
});
