// D25 recurring events through the HTTP surface, on both databases: series and their occurrences in reads, lists,
// filters and counts; writes on the series, on one occurrence and with scope=following; deletes; the rolling horizon;
// the change log; bad input that writes nothing.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { runHorizonJob } from '../helpers/background.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { rowCount } from '../helpers/queries.ts';
import { listEveryEvent } from './events-support.ts';

const NOW = '2026-11-23T12:00:00Z';

describeEachDatabase('Recurring events (D25)', (h) => {
  beforeEach(() => h().setNow(NOW));
  const admin = () => h().users.administrator;

  async function create(body: Record<string, unknown>, expected = 201) {
    const response = await h().request('POST', '/events', { as: admin(), body: { status: 'publish', ...body } });
    assert.equal(response.statusCode, expected, response.body);
    return response.json();
  }
  /** Every occurrence of a series, in start order, as an administrator lists them (far window). */
  const occurrences = async (seriesId: number, query: Record<string, string | number | boolean> = {}) =>
    (await listEveryEvent(h(), admin(), query)).filter((event) => event.series_id === seriesId);
  const weekly = (title: string, extra: Record<string, unknown> = {}) =>
    create({
      title,
      start_date: '2027-03-01 09:00:00',
      end_date: '2027-03-01 10:30:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
      ...extra,
    });

  it('creates a series whose occurrences are events of their own, at the same wall-clock time across DST', async () => {
    const series = await weekly('Weekly Choir');
    assert.deepEqual(series.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6']);
    assert.equal(series.series_id, series.id, 'the series id is its first occurrence');
    assert.equal(series.occurrence_start_utc, '2027-03-01 08:00:00');
    const listed = await occurrences(series.id);
    assert.equal(listed.length, 6);
    assert.equal(listed[0].id, series.id);
    assert.equal(new Set(listed.map((event) => event.id)).size, 6, 'each occurrence has its own id');
    // Berlin moves to summer time on 2027-03-28: 09:00 local stays 09:00 local, 08:00 UTC becomes 07:00 UTC.
    assert.deepEqual(
      listed.map((event) => event.start_date),
      [
        '2027-03-01 09:00:00',
        '2027-03-08 09:00:00',
        '2027-03-15 09:00:00',
        '2027-03-22 09:00:00',
        '2027-03-29 09:00:00',
        '2027-04-05 09:00:00',
      ],
    );
    assert.deepEqual(
      listed.map((event) => event.end_date.slice(11)),
      Array(6).fill('10:30:00'),
    );
    assert.deepEqual(
      listed.map((event) => event.utc_start_date.slice(11)),
      ['08:00:00', '08:00:00', '08:00:00', '08:00:00', '07:00:00', '07:00:00'],
    );
    assert.deepEqual(
      listed.map((event) => event.timezone_abbr),
      ['CET', 'CET', 'CET', 'CET', 'CEST', 'CEST'],
    );
    for (const event of listed) {
      assert.equal(event.title, 'Weekly Choir');
      assert.deepEqual(event.recurrence, series.recurrence);
      assert.equal(event.occurrence_start_utc, event.utc_start_date);
    }
    const single = await h().request('GET', `/events/${listed[4].id}`);
    assert.equal(single.statusCode, 200, single.body);
    assert.equal(single.json().start_date, '2027-03-29 09:00:00');
    assert.equal(single.json().json_ld.startDate, '2027-03-29T09:00:00+02:00');
  });

  it('keeps the wall-clock time of a series crossing two DST changes in each of four zones', async () => {
    // Each zone changes twice between March and December 2027 (Sydney and Santiago the other way round).
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'America/Santiago']) {
      const series = await create({
        title: `Across DST in ${zone}`,
        timezone: zone,
        start_date: '2027-03-01 10:00:00',
        end_date: '2027-03-01 11:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=40'],
      });
      const listed = await occurrences(series.id);
      assert.equal(listed.length, 40, zone);
      assert.ok(
        listed.every((event) => event.start_date.endsWith(' 10:00:00') && event.end_date.endsWith(' 11:00:00')),
        zone,
      );
      for (const event of listed) {
        // The UTC start is 10:00 in the zone's offset of that day, computed here by Intl, independently of the service.
        const parts = new Intl.DateTimeFormat('en-GB', {
          timeZone: zone,
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        }).format(new Date(`${event.utc_start_date.replace(' ', 'T')}Z`));
        assert.equal(parts, '10:00', `${zone} ${event.start_date} is ${event.utc_start_date} UTC`);
      }
      const offsets = listed.map(
        (event) =>
          Date.parse(`${event.start_date.replace(' ', 'T')}Z`) -
          Date.parse(`${event.utc_start_date.replace(' ', 'T')}Z`),
      );
      const changes = offsets.filter((offset, index) => index > 0 && offset !== offsets[index - 1]).length;
      assert.equal(changes, 2, `${zone}: two DST changes crossed`);
    }
  });

  it('shows occurrences in every filter, counts a series once, and collapses series on request', async () => {
    const venue = (
      await h().request('POST', '/venues', { as: admin(), body: { venue: 'Series Hall', status: 'publish' } })
    ).json();
    const series = await weekly('Filtered Series', {
      categories: ['Series Category'],
      tags: ['series-tag'],
      venue: venue.id,
    });
    await create({
      title: 'A single one',
      start_date: '2027-03-02 09:00:00',
      end_date: '2027-03-02 10:00:00',
      categories: ['Series Category'],
    });
    const category = series.categories[0].id;
    for (const query of [
      { categories: category },
      { tags: 'series-tag' },
      { venue: venue.id },
      { search: 'Filtered' },
    ] as Array<Record<string, string | number>>) {
      assert.equal((await occurrences(series.id, query)).length, 6, JSON.stringify(query));
    }
    const window = await h().request('GET', '/events', {
      query: { start_date: '2027-03-10', end_date: '2027-03-20', categories: category },
    });
    assert.deepEqual(
      window.json().events.map((event: any) => event.start_date),
      ['2027-03-15 09:00:00'],
    );
    const total = await h().request('GET', '/events', {
      query: { start_date: '2027-01-01', end_date: '2027-12-31', categories: category },
    });
    assert.equal(total.json().total, 7);
    const collapsed = await h().request('GET', '/events', {
      query: { start_date: '2027-03-10', end_date: '2027-12-31', collapse_series: true, categories: category },
    });
    assert.deepEqual(
      collapsed.json().events.map((event: any) => event.start_date),
      ['2027-03-15 09:00:00'],
      'the first matching occurrence',
    );
    assert.equal(collapsed.json().total, 1);
    assert.match(collapsed.json().rest_url, /collapse_series=1/);
    const terms = await h().request('GET', '/categories', { query: { include: category } });
    assert.equal(terms.json().categories[0].count, 2, 'a series counts once');
    const venues = await h().request('GET', '/venues', { query: { only_with_upcoming: true } });
    assert.ok(venues.json().venues.some((item: any) => item.id === venue.id));
  });

  it('edits one occurrence alone, and series edits keep what was edited on it', async () => {
    const series = await weekly('Edited Series');
    const [, second, third] = await occurrences(series.id);
    const edited = await h().request('PATCH', `/events/${second.id}`, {
      as: admin(),
      body: { title: 'Guest conductor', start_date: '2027-03-09 18:00:00', end_date: '2027-03-09 19:00:00' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().id, second.id);
    assert.equal(edited.json().title, 'Guest conductor');
    assert.equal(edited.json().series_id, series.id);
    assert.equal(edited.json().occurrence_start_utc, '2027-03-08 08:00:00', 'the original start stays');
    const renamed = await h().request('PATCH', `/events/${series.id}`, {
      as: admin(),
      body: { title: 'Renamed Series', cost: '12' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const after = await occurrences(series.id);
    const byId = new Map(after.map((event) => [event.id, event]));
    assert.equal(byId.get(second.id).title, 'Guest conductor', 'the edited title stays');
    assert.equal(byId.get(second.id).cost, '$12', 'a field it did not edit follows the series');
    assert.equal(byId.get(second.id).start_date, '2027-03-09 18:00:00');
    assert.equal(byId.get(third.id).title, 'Renamed Series');
    // An exception may move before the previous occurrence; an impossible date is a 400 that changes nothing.
    const early = await h().request('PATCH', `/events/${third.id}`, {
      as: admin(),
      body: { start_date: '2027-02-20 09:00:00', end_date: '2027-02-20 10:00:00' },
    });
    assert.equal(early.statusCode, 200, early.body);
    const invalid = await h().request('PATCH', `/events/${third.id}`, {
      as: admin(),
      body: { start_date: '2027-02-30 09:00:00', title: 'Not applied' },
    });
    assert.equal(invalid.statusCode, 400);
    const unchanged = (await h().request('GET', `/events/${third.id}`)).json();
    assert.deepEqual([unchanged.start_date, unchanged.title], ['2027-02-20 09:00:00', 'Renamed Series']);
    const refused = await h().request('PATCH', `/events/${third.id}`, {
      as: admin(),
      body: { recurrence: ['RRULE:FREQ=DAILY'] },
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().data.details.recurrence.code, 'rest_invalid_recurrence');
  });

  it('changing the rule keeps the ids and exceptions of the occurrences still in the series', async () => {
    const series = await weekly('Rule Change');
    const before = await occurrences(series.id);
    await h().request('PATCH', `/events/${before[2].id}`, { as: admin(), body: { title: 'Kept exception' } });
    const changed = await h().request('PATCH', `/events/${series.id}`, {
      as: admin(),
      body: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const after = await occurrences(series.id);
    assert.deepEqual(
      after.map((event) => event.id),
      before.slice(0, 4).map((event) => event.id),
    );
    assert.equal(after[2].title, 'Kept exception');
    for (const gone of before.slice(4)) assert.equal((await h().request('GET', `/events/${gone.id}`)).statusCode, 404);
    const longer = await h().request('PATCH', `/events/${series.id}`, {
      as: admin(),
      body: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] },
    });
    assert.equal(longer.statusCode, 200);
    const grown = await occurrences(series.id);
    assert.deepEqual(
      grown.slice(0, 4).map((event) => event.id),
      after.map((event) => event.id),
    );
    assert.ok(!before.some((event) => event.id === grown[4].id), 'a new start gets a new id');
    const single = await h().request('PATCH', `/events/${series.id}`, { as: admin(), body: { recurrence: [] } });
    assert.equal(single.statusCode, 200);
    assert.deepEqual([single.json().recurrence, single.json().series_id], [[], null]);
    assert.equal((await occurrences(series.id)).length, 0);
  });

  it('DELETE on an occurrence cancels it (an EXDATE); on the series it trashes all; force deletes all', async () => {
    const series = await weekly('Cancellable');
    const listed = await occurrences(series.id);
    const cancelled = await h().request('DELETE', `/events/${listed[1].id}`, { as: admin() });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json().status, 'trash');
    const seriesNow = (await h().request('GET', `/events/${series.id}`)).json();
    assert.deepEqual(seriesNow.recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE:20270308T080000Z']);
    assert.equal((await occurrences(series.id)).length, 5);
    // A rule change keeps the cancelled occurrence cancelled.
    await h().request('PATCH', `/events/${series.id}`, { as: admin(), body: { end_date: '2027-03-01 11:00:00' } });
    const afterEdit = await occurrences(series.id);
    assert.equal(afterEdit.length, 5);
    assert.deepEqual(
      afterEdit.map((event) => event.end_date.slice(11)),
      Array(5).fill('11:00:00'),
    );
    // Restoring the cancelled occurrence takes its EXDATE away.
    const restored = await h().request('PATCH', `/events/${listed[1].id}`, {
      as: admin(),
      body: { status: 'publish' },
    });
    assert.equal(restored.statusCode, 200, restored.body);
    assert.deepEqual(restored.json().recurrence, ['RRULE:FREQ=WEEKLY;COUNT=6']);
    assert.equal((await occurrences(series.id)).length, 6);

    const trashed = await h().request('DELETE', `/events/${series.id}`, { as: admin() });
    assert.equal(trashed.statusCode, 200);
    assert.equal((await occurrences(series.id)).length, 0);
    const inTrash = await h().request('GET', '/events', {
      as: admin(),
      query: { status: 'trash', start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    assert.equal(inTrash.json().events.filter((event: any) => event.series_id === series.id).length, 6);
    const back = await h().request('PATCH', `/events/${series.id}`, { as: admin(), body: { status: 'publish' } });
    assert.equal(back.statusCode, 200, back.body);
    assert.equal((await occurrences(series.id)).length, 6);
    const gone = await h().request('DELETE', `/events/${series.id}`, { as: admin(), query: { force: true } });
    assert.equal(gone.statusCode, 200);
    for (const event of listed) assert.equal((await h().request('GET', `/events/${event.id}`)).statusCode, 404);
  });

  it('all-day series give whole days; cancelling one adds a date-only EXDATE; a split ends the day before', async () => {
    const series = await create({
      title: 'Market day',
      all_day: true,
      timezone: 'America/Santiago',
      start_date: '2027-03-27',
      end_date: '2027-03-28',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=5'],
    });
    const listed = await occurrences(series.id);
    assert.deepEqual(
      listed.map((event) => [event.start_date, event.end_date]),
      [
        ['2027-03-27 00:00:00', '2027-03-28 23:59:59'],
        ['2027-04-03 00:00:00', '2027-04-04 23:59:59'],
        ['2027-04-10 00:00:00', '2027-04-11 23:59:59'],
        ['2027-04-17 00:00:00', '2027-04-18 23:59:59'],
        ['2027-04-24 00:00:00', '2027-04-25 23:59:59'],
      ],
    );
    assert.ok(listed.every((event) => event.all_day === true));
    await h().request('DELETE', `/events/${listed[1].id}`, { as: admin() });
    assert.deepEqual((await h().request('GET', `/events/${series.id}`)).json().recurrence, [
      'RRULE:FREQ=WEEKLY;BYDAY=SA;COUNT=5',
      'EXDATE;VALUE=DATE:20270403',
    ]);
    const split = await h().request('PATCH', `/events/${listed[3].id}`, {
      as: admin(),
      query: { scope: 'following' },
      body: { title: 'Spring market' },
    });
    assert.equal(split.statusCode, 200, split.body);
    assert.match((await h().request('GET', `/events/${series.id}`)).json().recurrence[0], /UNTIL=20270416(;|$)/);
    assert.deepEqual(
      (await occurrences(series.id)).map((event) => event.start_date.slice(0, 10)),
      ['2027-03-27', '2027-04-10'],
    );
    assert.deepEqual(
      (await occurrences(listed[3].id)).map((event) => event.start_date.slice(0, 10)),
      ['2027-04-17', '2027-04-24'],
    );
  });

  it('scope=following splits the series: the old one ends before, a new one starts there with the changes', async () => {
    const series = await weekly('Split Me');
    const listed = await occurrences(series.id);
    const split = await h().request('PATCH', `/events/${listed[3].id}`, {
      as: admin(),
      query: { scope: 'following' },
      body: { title: 'Split Me (new room)' },
    });
    assert.equal(split.statusCode, 200, split.body);
    assert.equal(split.json().id, listed[3].id, 'the occurrence keeps its id and becomes the new series');
    assert.equal(split.json().series_id, listed[3].id);
    const old = await occurrences(series.id);
    assert.deepEqual(
      old.map((event) => event.id),
      listed.slice(0, 3).map((event) => event.id),
    );
    assert.match(old[0].recurrence[0], /UNTIL=20270322T075959Z/);
    const fresh = await occurrences(listed[3].id);
    assert.deepEqual(
      fresh.map((event) => event.start_date),
      ['2027-03-22 09:00:00', '2027-03-29 09:00:00', '2027-04-05 09:00:00'],
    );
    assert.ok(fresh.every((event) => event.title === 'Split Me (new room)'));
  });

  it('open-ended series are materialised up to the horizon, which the background job moves forward without any write', async () => {
    const series = await create({
      title: 'Every month',
      start_date: '2026-12-01 19:00:00',
      end_date: '2026-12-01 21:00:00',
      timezone: 'America/New_York',
      recurrence: ['RRULE:FREQ=MONTHLY'],
    });
    const first = await occurrences(series.id);
    assert.equal(first.length, 24, 'Dec 2026 to Nov 2028: up to 730 days after 2026-11-23');
    h().setNow('2027-06-23T12:00:00Z');
    const countStored = () => rowCount(h().store, 'events', ['series_id', series.id]);
    // A read never writes: the feed after the day changed leaves the series as it was.
    assert.equal((await h().request('GET', '/events.ics')).statusCode, 200);
    assert.equal(await countStored(), 24);
    // The background job (every hour in a serving process) brings it up to the new horizon.
    assert.deepEqual(await runHorizonJob(h(), '2027-06-23T12:00:00Z'), { ran: true, created: 7 });
    assert.equal(await countStored(), 31);
    const later = await occurrences(series.id);
    assert.equal(later.length, 31);
    assert.deepEqual(
      later.slice(0, 24).map((event) => event.id),
      first.map((event) => event.id),
    );
    const changes = await h().request('GET', '/changes', { as: admin(), query: { per_page: 1000 } });
    const created = new Set(changes.json().changes.map((change: any) => change.id));
    for (const event of later) assert.ok(created.has(event.id), 'every occurrence is in the change log');
  });

  it('keeps extending a series that, as days pass, holds more occurrences than a write may create', async () => {
    const series = await create({
      title: 'Every day, for good',
      start_date: '2026-12-01 07:00:00',
      end_date: '2026-12-01 08:00:00',
      recurrence: ['RRULE:FREQ=DAILY'],
    });
    const countStored = () => rowCount(h().store, 'events', ['series_id', series.id]);
    const first = await countStored();
    assert.ok(first > 700 && first <= 1000, `${first}`);
    h().setNow('2027-12-28T12:00:00Z');
    assert.equal((await runHorizonJob(h(), '2027-12-28T12:00:00Z')).ran, true);
    const list = await h().request('GET', '/events', { query: { start_date: '2029-12-20', end_date: '2029-12-31' } });
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(
      list.json().events.some((event: any) => event.series_id === series.id),
      'extended up to the new horizon',
    );
    assert.ok((await countStored()) > 1000, 'past the write-time maximum: time passing is not a write');
  });

  it('refuses bad rules with a 400 naming the line, and writes nothing', async () => {
    const before = (await h().request('GET', '/events', { as: admin(), query: { per_page: 1 } })).headers['x-wp-total'];
    const cases: unknown[] = [
      ['RRULE:FREQ=MINUTELY'],
      ['RRULE:FREQ=SECONDLY'],
      ['RRULE:FREQ=WEEKLY;UNTIL=20270101T000000Z'],
      ['NOT A LINE'],
      ['RRULE:FREQ=HOURLY;COUNT=5000'],
      ['RRULE:FREQ=DAILY'.repeat(1)].map((line) => `${line};BYDAY=XX`),
      42,
      [7],
    ];
    for (const recurrence of cases) {
      const response = await h().request('POST', '/events', {
        as: admin(),
        body: {
          title: 'Bad rule',
          start_date: '2027-03-01 09:00:00',
          end_date: '2027-03-01 10:00:00',
          recurrence,
          venue: { venue: 'Never Created Hall' },
        },
      });
      assert.equal(response.statusCode, 400, `${JSON.stringify(recurrence)}: ${response.body}`);
      assert.equal(response.json().code, 'rest_invalid_param');
      if (Array.isArray(recurrence) && typeof recurrence[0] === 'string') {
        assert.equal(response.json().data.details.recurrence.code, 'rest_invalid_recurrence', response.body);
      }
    }
    const venues = await h().request('GET', '/venues', { as: admin(), query: { search: 'Never Created' } });
    assert.equal(
      venues.statusCode === 404 || venues.json().venues?.length === 0,
      true,
      'the inline venue was not created',
    );
    assert.equal(
      (await h().request('GET', '/events', { as: admin(), query: { per_page: 1 } })).headers['x-wp-total'],
      before,
    );
    const onVenue = await h().request('POST', '/venues', {
      as: admin(),
      body: { venue: 'Recurring venue?', recurrence: ['RRULE:FREQ=DAILY'] },
    });
    assert.equal(onVenue.statusCode, 400, onVenue.body);
    assert.equal(onVenue.json().data.details.recurrence.code, 'rest_invalid_recurrence');
  });
});
