// D24/D25: a series that adds occurrences (here: its rule extended) copies its venue onto them, while an edit of that
// venue logs every event that embeds it. The two must take turns: otherwise the edit can list the venue's events
// before the new occurrences are committed, commit after them, and a syncing client keeps the occurrences with the
// venue's old name. Replayed by holding each write open after its work, in that order.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { sql } from 'kysely';
import { latestSeq, readChanges } from '../../src/core/change-log/read.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { holdTransactions } from '../helpers/queries.ts';
import { createLinked } from './support.ts';

describeEachDatabase('a venue edited while its series adds occurrences', (h) => {
  it('logs every new occurrence after the edit, so a syncing client reads the venue as edited', async () => {
    const admin = h().users.administrator;
    const venue = await createLinked(h(), 'venues', { venue: 'Raced hall' }, admin);
    const created = await h().request('POST', '/events', {
      as: admin,
      body: {
        title: 'Raced weekly',
        status: 'publish',
        start_date: '2031-01-06 18:00:00',
        end_date: '2031-01-06 19:00:00',
        venue: venue.id,
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const seriesId = created.json().id;
    const store = h().store;
    // Read before the writes hold SQLite's one connection.
    const afterSeq = await latestSeq(store.db);

    const held = holdTransactions(store, 2);
    try {
      const extend = h().request('PATCH', `/events/${seriesId}`, {
        as: admin,
        body: { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] },
      });
      await held.reached(0);
      const rename = h().request('PATCH', `/venues/${venue.id}`, { as: admin, body: { venue: 'Renamed hall' } });
      // The edit either waits for the series write (a lock of the venue; on SQLite, the write lock), or has listed
      // the venue's events and is held open in its turn.
      let editHeld = false;
      void held.reached(1).then(() => {
        editHeld = true;
      });
      for (let waited = 0; !editHeld; waited++) {
        if (h().database === 'postgres') {
          const { rows } = await sql<{ waiting: number | string }>`
            select count(*) as waiting from pg_locks where not granted`.execute(store.db);
          if (Number(rows[0].waiting) > 0) break;
        } else if (waited >= 10) break;
        assert.ok(waited < 500, 'the edit neither waited nor got through its work');
        await sleep(10);
      }
      // The series write commits first, then the edit.
      held.release(0);
      assert.equal((await extend).statusCode, 200);
      await held.reached(1);
      held.release(1);
      assert.equal((await rename).statusCode, 200);

      const changes = await readChanges(store.db, { afterSeq, limit: 100 });
      const edited = changes.find((row) => row.type === 'venue' && row.id === venue.id);
      assert.ok(edited, 'the venue edit is logged');
      const members = await store.db.selectFrom('events').select('id').where('series_id', '=', seriesId).execute();
      assert.equal(members.length, 5, 'the series has its five occurrences');
      for (const { id } of members)
        assert.ok(
          changes.some((row) => row.type === 'event' && row.id === id && row.seq > edited.seq),
          `occurrence ${id} is logged after the venue edit: ${JSON.stringify(changes)}`,
        );
    } finally {
      held.restore();
    }
  });
});
