// Issue 17, item 9: with two processes on one SQLite file, the "last used" update of an application password met a
// database busy with the other process's write and failed the authentication itself (500 SQLITE_BUSY after the busy
// timeout). Recording when a password was last used is worth a write, never a refused request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createHarness, type Harness } from '../helpers/harness.ts';

describe('authentication while another process holds the SQLite write lock', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness('sqlite');
  });
  after(async () => {
    await h.close();
  });

  it('still answers a remembered credential whose "last used" cannot be written (after the busy timeout)', async () => {
    const user = await h.createUser('busy-reader', 'editor');
    assert.equal((await h.request('GET', '/venues', { as: user })).statusCode, 200, 'verified and remembered');
    // A minute ago, so that the next request wants to write it again.
    await h.store.db
      .updateTable('app_passwords')
      .set({ last_used_utc: '2000-01-01 00:00:00' })
      .where('user_id', '=', user.id)
      .execute();

    const other = await h.openAnotherStore();
    try {
      await other.db.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        try {
          const response = await h.request('GET', '/venues', { as: user });
          assert.equal(response.statusCode, 200, response.body);
        } finally {
          await sql`rollback`.execute(connection);
        }
      });
    } finally {
      await other.close();
    }
  });
});
