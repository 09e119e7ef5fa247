// D21 for events, venues and organizers: every committed write through the one post lifecycle appends one row per
// changed item in its own transaction (created, updated, trashed, restored, deleted), together with the events a
// venue or organizer leaves; a failed write appends nothing.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { latestSeq, readChanges } from '../../src/core/change-log/read.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

type Row = [type: string, id: number, action: string];

describeEachDatabase('change log of events, venues and organizers', (h) => {
  const appendedBy = async (write: () => Promise<unknown>): Promise<Row[]> => {
    const afterSeq = await latestSeq(h().store.db);
    await write();
    const rows = await readChanges(h().store.db, { afterSeq, limit: 1000 });
    return rows
      .map(({ type, id, action }): Row => [type, id, action])
      .sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
  };
  const call = async (method: string, path: string, status: number, body?: Record<string, unknown>) => {
    const response = await h().request(method, path, { as: h().users.editor, ...(body ? { body } : {}) });
    assert.equal(response.statusCode, status, response.body);
    return response.json();
  };
  const event = (overrides: Record<string, unknown> = {}) => ({
    title: 'Logged',
    start_date: '2030-01-01 10:00:00',
    end_date: '2030-01-01 11:00:00',
    status: 'publish',
    ...overrides,
  });

  it('logs an event with its inline venue and organizer as created, once each', async () => {
    let created: any;
    const rows = await appendedBy(async () => {
      created = await call(
        'POST',
        '/events',
        201,
        event({ venue: { venue: 'Logged hall' }, organizer: { organizer: 'Logged host' } }),
      );
    });
    assert.deepEqual(
      rows,
      [
        ['event', created.id, 'created'],
        ['organizer', created.organizer[0].id, 'created'],
        ['venue', created.venue.id, 'created'],
      ].sort((a: any, b: any) => a[0].localeCompare(b[0]) || a[1] - b[1]),
    );
  });

  it('logs updates, trash (by DELETE and by status), restore and permanent delete of an event', async () => {
    const { id } = await call('POST', '/events', 201, event());
    assert.deepEqual(await appendedBy(() => call('PATCH', `/events/${id}`, 200, { title: 'Renamed' })), [
      ['event', id, 'updated'],
    ]);
    assert.deepEqual(await appendedBy(() => call('DELETE', `/events/${id}`, 200)), [['event', id, 'trashed']]);
    assert.deepEqual(await appendedBy(() => call('PATCH', `/events/${id}`, 200, { status: 'publish' })), [
      ['event', id, 'restored'],
    ]);
    assert.deepEqual(await appendedBy(() => call('PATCH', `/events/${id}`, 200, { status: 'trash' })), [
      ['event', id, 'trashed'],
    ]);
    assert.deepEqual(await appendedBy(() => call('DELETE', `/events/${id}?force=true`, 200)), [
      ['event', id, 'deleted'],
    ]);
  });

  for (const [collection, type, nameKey] of [
    ['venues', 'venue', 'venue'],
    ['organizers', 'organizer', 'organizer'],
  ] as const) {
    it(`logs the events a ${type} leaves when it is trashed or deleted`, async () => {
      const linked = await call('POST', `/${collection}`, 201, { [nameKey]: `Leaving ${type}`, status: 'publish' });
      const first = await call('POST', '/events', 201, event({ [type]: type === 'venue' ? linked.id : [linked.id] }));
      const second = await call('POST', '/events', 201, event({ [type]: type === 'venue' ? linked.id : [linked.id] }));
      // D24: the events that embed it changed too.
      assert.deepEqual(
        await appendedBy(() => call('PATCH', `/${collection}/${linked.id}`, 200, { website: 'https://example.com' })),
        [
          ['event', first.id, 'updated'],
          ['event', second.id, 'updated'],
          [type, linked.id, 'updated'],
        ],
      );
      assert.deepEqual(await appendedBy(() => call('DELETE', `/${collection}/${linked.id}`, 200)), [
        ['event', first.id, 'updated'],
        ['event', second.id, 'updated'],
        [type, linked.id, 'trashed'],
      ]);

      const other = await call('POST', `/${collection}`, 201, { [nameKey]: `Deleted ${type}`, status: 'publish' });
      const third = await call('POST', '/events', 201, event({ [type]: type === 'venue' ? other.id : [other.id] }));
      assert.deepEqual(await appendedBy(() => call('DELETE', `/${collection}/${other.id}?force=true`, 200)), [
        ['event', third.id, 'updated'],
        [type, other.id, 'deleted'],
      ]);
    });
  }

  it('logs a reused duplicate as updated, not created', async () => {
    const first = await call('POST', '/venues', 201, { venue: 'Reused hall', status: 'publish' });
    assert.deepEqual(
      await appendedBy(() => call('POST', '/venues', 201, { venue: 'Reused hall', city: 'Springfield' })),
      [['venue', first.id, 'updated']],
    );
  });

  it('appends nothing for a write that fails', async () => {
    const { id } = await call('POST', '/events', 201, event());
    assert.deepEqual(
      await appendedBy(() => call('PATCH', `/events/${id}`, 400, { end_date: '2000-01-01 00:00:00' })),
      [],
    );
    assert.deepEqual(
      await appendedBy(() =>
        call(
          'POST',
          '/events',
          400,
          event({ categories: ['x'], venue: { venue: 'Never made' }, end_date: '2000-01-01' }),
        ),
      ),
      [],
    );
    assert.deepEqual(await appendedBy(() => call('DELETE', `/events/${id}`, 200)), [['event', id, 'trashed']]);
    assert.deepEqual(await appendedBy(() => call('DELETE', `/events/${id}`, 410)), []);
  });
});
