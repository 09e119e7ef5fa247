// D25 `scope=following` with a moved start, through the HTTP surface on both databases: the old series ends before
// the edited occurrence, the new one starts there and keeps the rest of the rule, moved with it (the remaining COUNT,
// or UNTIL shifted by as much as the start moved), so no occurrence is lost or added.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { rowCount } from '../helpers/queries.ts';
import { listEveryEvent } from './events-support.ts';

const NOW = '2026-11-23T12:00:00Z';

describeEachDatabase('Splitting a series with a moved start (D25 scope=following)', (h) => {
  beforeEach(() => h().setNow(NOW));
  const admin = () => h().users.administrator;

  async function create(body: Record<string, unknown>) {
    const response = await h().request('POST', '/events', {
      as: admin(),
      body: { status: 'publish', title: 'Split series', ...body },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  }
  /** Every event GET /events lists (far window, every page), by series. */
  async function listedBySeries(): Promise<Map<number, any[]>> {
    const bySeries = new Map<number, any[]>();
    for (const event of await listEveryEvent(h(), admin())) {
      if (event.series_id === null) continue;
      bySeries.set(event.series_id, [...(bySeries.get(event.series_id) ?? []), event]);
    }
    return bySeries;
  }
  /** The rows the database holds for a series (the listing reads them: the two must agree). */
  const storedCount = (seriesId: number) => rowCount(h().store, 'events', ['series_id', seriesId]);
  async function split(occurrenceId: number, body: Record<string, unknown>) {
    const response = await h().request('PATCH', `/events/${occurrenceId}`, {
      as: admin(),
      query: { scope: 'following' },
      body,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }
  /** Both parts after the split: each one's listed local starts, and its rule as answered. */
  async function parts(oldId: number, newId: number) {
    const listed = await listedBySeries();
    const starts = (id: number) => (listed.get(id) ?? []).map((event) => event.start_date as string);
    assert.equal(await storedCount(oldId), starts(oldId).length);
    assert.equal(await storedCount(newId), starts(newId).length);
    const rule = async (id: number) =>
      (await h().request('GET', `/events/${id}`, { as: admin() })).json().recurrence as string[];
    return { old: starts(oldId), new: starts(newId), oldRule: await rule(oldId), newRule: await rule(newId) };
  }

  it('weekly COUNT=6 split at its 4th occurrence and moved an hour later keeps all 6', async () => {
    const series = await create({
      timezone: 'Europe/Berlin',
      start_date: '2027-03-01 18:00:00',
      end_date: '2027-03-01 20:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    const fourth = (await listedBySeries()).get(series.id)![3];
    assert.equal(fourth.start_date, '2027-03-22 18:00:00');
    await split(fourth.id, { start_date: '2027-03-22 19:00:00', end_date: '2027-03-22 21:00:00' });
    const after = await parts(series.id, fourth.id);
    assert.deepEqual(after.old, ['2027-03-01 18:00:00', '2027-03-08 18:00:00', '2027-03-15 18:00:00']);
    assert.deepEqual(after.new, ['2027-03-22 19:00:00', '2027-03-29 19:00:00', '2027-04-05 19:00:00']);
    assert.deepEqual(after.newRule, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.equal(after.old.length + after.new.length, 6);
  });

  it('daily COUNT=6 split at its 3rd occurrence and moved months earlier keeps 4 after the split', async () => {
    const series = await create({
      timezone: 'America/New_York',
      start_date: '2028-09-01 08:00:00',
      end_date: '2028-09-01 09:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=6'],
    });
    const third = (await listedBySeries()).get(series.id)![2];
    assert.equal(third.start_date, '2028-09-03 08:00:00');
    await split(third.id, { start_date: '2026-12-01 08:00:00', end_date: '2026-12-01 09:00:00' });
    const after = await parts(series.id, third.id);
    assert.deepEqual(after.old, ['2028-09-01 08:00:00', '2028-09-02 08:00:00']);
    assert.deepEqual(after.new, [
      '2026-12-01 08:00:00',
      '2026-12-02 08:00:00',
      '2026-12-03 08:00:00',
      '2026-12-04 08:00:00',
    ]);
    assert.deepEqual(after.newRule, ['RRULE:FREQ=DAILY;COUNT=4']);
  });

  it('an UNTIL moves with a start moved across a DST change, in wall-clock time', async () => {
    // 18:00 in Berlin every Monday until 2027-04-12 18:00 CEST (16:00 UTC): seven occurrences.
    const series = await create({
      timezone: 'Europe/Berlin',
      start_date: '2027-03-01 18:00:00',
      end_date: '2027-03-01 19:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270412T160000Z'],
    });
    const listed = (await listedBySeries()).get(series.id)!;
    assert.equal(listed.length, 7);
    // The 3rd (March 15, CET) moves two weeks on, past the change to summer time on March 28: 14 days of wall-clock
    // time but 13 days and 23 hours of UTC, so UNTIL moves to April 26 18:00 CEST, keeping the last occurrence.
    await split(listed[2].id, { start_date: '2027-03-29 18:00:00', end_date: '2027-03-29 19:00:00' });
    const after = await parts(series.id, listed[2].id);
    assert.deepEqual(after.old, ['2027-03-01 18:00:00', '2027-03-08 18:00:00']);
    assert.deepEqual(after.new, [
      '2027-03-29 18:00:00',
      '2027-04-05 18:00:00',
      '2027-04-12 18:00:00',
      '2027-04-19 18:00:00',
      '2027-04-26 18:00:00',
    ]);
    assert.deepEqual(after.newRule, ['RRULE:FREQ=WEEKLY;UNTIL=20270426T160000Z']);
  });

  it('an all-day series moved two days later keeps its remaining COUNT, and its UNTIL dates move by whole days', async () => {
    const counted = await create({
      all_day: true,
      timezone: 'America/Santiago',
      start_date: '2027-03-06',
      end_date: '2027-03-06',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    });
    const listed = (await listedBySeries()).get(counted.id)!;
    await split(listed[2].id, { start_date: '2027-03-22', end_date: '2027-03-22' });
    const after = await parts(counted.id, listed[2].id);
    assert.deepEqual(after.old, ['2027-03-06 00:00:00', '2027-03-13 00:00:00']);
    assert.deepEqual(after.new, ['2027-03-22 00:00:00', '2027-03-29 00:00:00', '2027-04-05 00:00:00']);
    assert.deepEqual(after.newRule, ['RRULE:FREQ=WEEKLY;COUNT=3']);
    assert.match(after.oldRule[0], /UNTIL=20270319(;|$)/);

    const until = await create({
      all_day: true,
      timezone: 'America/Santiago',
      start_date: '2027-05-01',
      end_date: '2027-05-01',
      recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270529'],
    });
    const untilListed = (await listedBySeries()).get(until.id)!;
    assert.equal(untilListed.length, 5);
    await split(untilListed[1].id, { start_date: '2027-05-10', end_date: '2027-05-10' });
    const untilAfter = await parts(until.id, untilListed[1].id);
    assert.deepEqual(untilAfter.old, ['2027-05-01 00:00:00']);
    assert.deepEqual(untilAfter.new, [
      '2027-05-10 00:00:00',
      '2027-05-17 00:00:00',
      '2027-05-24 00:00:00',
      '2027-05-31 00:00:00',
    ]);
    assert.deepEqual(untilAfter.newRule, ['RRULE:FREQ=WEEKLY;UNTIL=20270531']);
  });
});
