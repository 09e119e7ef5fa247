// D25 races where they happen: two service processes on one PostgreSQL database writing one series at the same time
// (series-wide edits, cancellations of its occurrences and edits of single occurrences), which must neither deadlock
// nor lose a write.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnTwoProcesses } from '../helpers/service-process.ts';

describeOnTwoProcesses('Recurring series written by two service processes at once (D25)', (h, services) => {
  const send = async (index: number, method: string, path: string, body?: unknown) => {
    const service = services()[index % services().length];
    const response = await fetch(`http://127.0.0.1:${service.port}${h().api}${path}`, {
      method,
      headers: {
        authorization: h().users.administrator.authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('series edits, cancellations and occurrence edits in parallel all hold', async () => {
    for (let round = 0; round < 3; round++) {
      const created = await send(0, 'POST', '/events', {
        title: `Raced series ${round}`,
        status: 'publish',
        start_date: '2030-01-07 18:00:00',
        end_date: '2030-01-07 19:00:00',
        timezone: 'Europe/Berlin',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=12'],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const seriesId = created.body.id;
      const listed = await send(0, 'GET', '/events?start_date=2030-01-01&end_date=2030-12-31&per_page=100');
      const ids: number[] = listed.body.events
        .filter((event: any) => event.series_id === seriesId)
        .map((event: any) => event.id);
      assert.equal(ids.length, 12);
      const writes = [
        send(0, 'PATCH', `/events/${seriesId}`, { cost: '10' }),
        send(1, 'DELETE', `/events/${ids[3]}`),
        send(0, 'PATCH', `/events/${ids[5]}`, { title: 'Solo' }),
        send(1, 'DELETE', `/events/${ids[7]}`),
        send(0, 'PATCH', `/events/${seriesId}`, { featured: true }),
        send(1, 'PATCH', `/events/${ids[9]}`, { excerpt: 'Own excerpt' }),
      ];
      const answers = await Promise.all(writes);
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const series = await send(0, 'GET', `/events/${seriesId}`);
      assert.deepEqual(series.body.recurrence.filter((line: string) => line.startsWith('EXDATE')).sort(), [
        'EXDATE:20300128T170000Z',
        'EXDATE:20300225T170000Z',
      ]);
      const after = await send(1, 'GET', '/events?start_date=2030-01-01&end_date=2030-12-31&per_page=100');
      const events: any[] = after.body.events.filter((event: any) => event.series_id === seriesId);
      assert.equal(
        events.length,
        10,
        `two occurrences cancelled: ${JSON.stringify(events.map((event) => [event.id, event.title, event.start_date]))} of ${JSON.stringify(ids)}`,
      );
      for (const event of events) {
        assert.equal(event.cost, '$10');
        assert.equal(event.featured, true);
        assert.deepEqual(event.recurrence, series.body.recurrence);
      }
      assert.equal(events.find((event) => event.id === ids[5]).title, 'Solo');
      assert.equal(events.find((event) => event.id === ids[9]).excerpt, '<p>Own excerpt</p>');
    }
  });
});
