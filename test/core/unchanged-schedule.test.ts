// A write that leaves an event's dates as they are keeps its schedule: its occurrences are not rebuilt and a series is
// not expanded again (events/service.ts sameSchedule compares what the write would store with what is stored, on
// both databases' column types). Counted from the statements the write sends, its transaction's included.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { everyStatementDuring } from '../helpers/queries.ts';

/** Statements that rebuild an event's occurrences or expand a series again. */
const rescheduling = (texts: readonly string[]) =>
  texts.filter((text) => /^delete from "occurrences"/.test(text) || /^insert into "occurrences"/.test(text));

describeEachDatabase('a write that leaves the dates as they are', (h) => {
  const create = async (body: Record<string, unknown>) => {
    const created = await h().request('POST', '/events', { as: h().users.administrator, body });
    assert.equal(created.statusCode, 201, created.body);
    return created.json();
  };
  const patch = async (id: number, body: Record<string, unknown>) =>
    everyStatementDuring(h().store, async () => {
      const answer = await h().request('PATCH', `/events/${id}`, { as: h().users.administrator, body });
      assert.equal(answer.statusCode, 200, answer.body);
    });

  it('keeps the schedule of a single event, a timed and an all-day one, in any zone', async () => {
    for (const body of [
      { title: 'Steady', start_date: '2031-03-10 09:00:00', end_date: '2031-03-10 10:30:00', timezone: 'Europe/Rome' },
      { title: 'Steady day', start_date: '2031-03-11', end_date: '2031-03-12', all_day: true },
      {
        title: 'Steady offset',
        start_date: '2031-03-29 01:30:00',
        end_date: '2031-03-29 03:30:00',
        timezone: 'UTC+5.5',
      },
    ]) {
      const event = await create(body);
      assert.deepEqual(rescheduling(await patch(event.id, { title: `${body.title}, renamed` })), [], body.title);
      // The same dates sent again, as the event answered them.
      const again = { start_date: event.start_date, end_date: event.end_date, timezone: event.timezone };
      assert.deepEqual(rescheduling(await patch(event.id, again)), [], `${body.title}, the same dates`);
      // Moved: rebuilt (the count above could see it).
      assert.notDeepEqual(
        rescheduling(await patch(event.id, { start_date: '2031-04-01 08:00:00', end_date: '2031-04-01 09:00:00' })),
        [],
      );
    }
  });

  it('does not expand a series again when its own row is renamed', async () => {
    const series = await create({
      title: 'Steady series',
      start_date: '2031-05-05 18:00:00',
      end_date: '2031-05-05 19:00:00',
      timezone: 'America/New_York',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    });
    assert.deepEqual(rescheduling(await patch(series.id, { title: 'Steady series, renamed' })), []);
    assert.notDeepEqual(
      rescheduling(await patch(series.id, { start_date: '2031-05-06 18:00:00', end_date: '2031-05-06 19:00:00' })),
      [],
    );
  });
});
