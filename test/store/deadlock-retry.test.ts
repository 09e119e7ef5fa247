// PostgreSQL breaks a deadlock by rolling one of the two transactions back (40P01); the store runs that one again
// instead of failing the request (store/postgres/transaction.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from '../helpers/harness.ts';
import type { Store } from '../../src/store/store.ts';

describe('a PostgreSQL transaction rolled back for a deadlock', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
}, () => {
  let h: Harness;
  let other: Store;
  before(async () => {
    h = await createHarness('postgres');
    other = await h.openAnotherStore();
  });
  after(async () => {
    await other?.close();
    await h?.close();
  });

  it('is run again, and both writes commit', async () => {
    const attempts = { first: 0, second: 0 };
    const holding = { first: Promise.withResolvers<void>(), second: Promise.withResolvers<void>() };
    /** Takes `mine`, on the first attempt waits until the other holds its own, then takes `theirs`. */
    const write = (store: Store, me: 'first' | 'second', mine: string, theirs: string) =>
      store.transaction(async (trx) => {
        const attempt = ++attempts[me];
        await store.lock(trx, mine);
        if (attempt === 1) {
          holding[me].resolve();
          await holding[me === 'first' ? 'second' : 'first'].promise;
        }
        await store.lock(trx, theirs);
        await trx
          .insertInto('settings')
          .values({ name: `deadlock ${me}`, value: String(attempt) })
          .execute();
      });
    await Promise.all([
      write(h.store, 'first', 'deadlock a', 'deadlock b'),
      write(other, 'second', 'deadlock b', 'deadlock a'),
    ]);
    assert.equal(attempts.first + attempts.second, 3, 'one of them ran twice');
    const rows = await h.store.db.selectFrom('settings').selectAll().where('name', 'like', 'deadlock %').execute();
    assert.deepEqual(rows.map((row) => row.name).sort(), ['deadlock first', 'deadlock second']);
  });
});
