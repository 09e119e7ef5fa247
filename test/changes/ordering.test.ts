import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordChange } from '../../src/core/change-log/log.ts';
import { latestSeq, readChanges } from '../../src/core/change-log/read.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

// D21 "no gap behind a reader": once a reader has seen seq N, no change with seq ≤ N may appear later. Several
// writer processes (separate stores, each with its own connections) commit many small transactions that record
// changes while a reader tails the log with `seq > last seen`, as a sync client or the webhook worker does. A row that
// commits below a seq the reader has already passed would be skipped for ever: the reader checks after every poll that
// the rows at or below its position are exactly the ones it has seen, and at the end that it saw every row once.
describeEachDatabase('change log order under concurrent writers', (h) => {
  it('never lets a reader that has seen seq N find a row with seq ≤ N later', { timeout: 120_000 }, async () => {
    const postgres = h().database === 'postgres';
    const STORES = postgres ? 4 : 2;
    const WRITERS_PER_STORE = postgres ? 3 : 2;
    const TRANSACTIONS_PER_WRITER = postgres ? 30 : 40;
    const stores: Store[] = [];
    for (let index = 0; index < STORES; index++) stores.push(await h().openAnotherStore());
    const db = h().store.db;
    const start = await latestSeq(db);

    let nextId = 1;
    let writing = true;
    // Half the writers use the batch path, whose commits do not wait for the disk: more commits a second, and the
    // same commit order.
    const writer = async (store: Store, batch: boolean) => {
      const transaction = batch ? store.batchTransaction : store.transaction;
      for (let round = 0; round < TRANSACTIONS_PER_WRITER; round++) {
        // Decided once per write: SQLite may run a transaction again when another process holds the write lock.
        const ids = Array.from({ length: Math.random() < 0.5 ? 2 : 1 }, () => nextId++);
        const pause = Math.random() < 0.3 ? Math.floor(Math.random() * 3) : -1;
        await transaction(async (trx) => {
          // Some work of varying length before and after the record, as a real write has.
          await trx.selectFrom('posts').select('id').limit(1).execute();
          recordChange(trx, { type: 'event', id: ids[0], action: 'updated' });
          if (ids.length > 1) recordChange(trx, { type: 'venue', id: ids[1], action: 'created' });
          if (pause >= 0) await sleep(pause);
          await trx.selectFrom('changes').select('seq').limit(1).execute();
        });
      }
    };

    const seen = new Set<number>();
    let position = start;
    const violations: string[] = [];
    let polls = 0;
    const poll = async () => {
      polls++;
      for (;;) {
        const rows = await readChanges(db, { afterSeq: position, limit: 500 });
        for (const row of rows) {
          if (seen.has(row.seq)) violations.push(`seq ${row.seq} read twice`);
          seen.add(row.seq);
          position = Math.max(position, row.seq);
        }
        if (rows.length < 500) break;
      }
      // Rows at or below the position that the tail never returned: committed behind the reader.
      const behind = await db
        .selectFrom('changes')
        .select('seq')
        .where('seq', '>', start)
        .where('seq', '<=', position)
        .execute();
      for (const { seq } of behind) {
        if (!seen.has(seq)) {
          violations.push(`seq ${seq} appeared after the reader had seen seq ${position}`);
          seen.add(seq);
        }
      }
    };
    const reader = async () => {
      while (writing) {
        await poll();
        await sleep(0);
      }
    };

    const tail = reader();
    try {
      await Promise.all(
        stores.flatMap((store) =>
          Array.from({ length: WRITERS_PER_STORE }, (_, index) => writer(store, index % 2 === 1)),
        ),
      );
    } finally {
      writing = false;
      await tail;
      await Promise.all(
        stores.map(async (store) => {
          await store.flushBatches();
          await store.close();
        }),
      );
    }
    await poll();

    assert.deepEqual(violations, []);
    const all = await db.selectFrom('changes').select(['seq', 'type', 'id']).where('seq', '>', start).execute();
    assert.equal(all.length, nextId - 1, 'one row per recorded item');
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      all.map((row) => Number(row.seq)).sort((a, b) => a - b),
      'every row seen exactly once',
    );
    assert.ok(polls > 10, `the reader polled while the writers wrote (${polls} polls)`);
  });
});
