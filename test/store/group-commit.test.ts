// SQLite commits the writes that arrive together in one transaction (src/store/sqlite/group-commit.ts), each under a
// savepoint of its own. The runner on a real database file (its limits set so that grouping does not depend on the
// machine's speed), then the store's writes on each database: every write has its own outcome, whatever commit held
// it.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql, type Transaction } from 'kysely';
import type { Commit } from '../../src/store/commit.ts';
import type { Database } from '../../src/store/schema.ts';
import { openSqliteConnection, type SqliteConnection } from '../../src/store/sqlite/connection.ts';
import { createGroupCommitRunner } from '../../src/store/sqlite/group-commit.ts';
import { afterCommit, leaveAlone, type OwnCommit } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

type Trx = Transaction<Database>;

describe('SQLite group commits', () => {
  let directory: string;
  let connection: SqliteConnection;
  let commits = 0;
  const runner = (limits = { writes: 32, windowMs: 60_000 }) =>
    createGroupCommitRunner(
      connection.db,
      () => connection.database.inTransaction,
      () => commits++,
      limits,
    );
  const insert = (trx: Trx, value: string) => sql`insert into notes (value) values (${value})`.execute(trx);
  /** A write that adds a note, and nothing else. */
  const adding = (run: ReturnType<typeof runner>, value: string) => run((trx) => insert(trx, value), { batch: false });
  const values = async () =>
    (await sql<{ value: string }>`select value from notes order by id`.execute(connection.db)).rows.map(
      (row) => row.value,
    );

  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'group-commit-'));
    connection = openSqliteConnection(join(directory, 'notes.db'));
    connection.database.exec('create table notes (id integer primary key, value text not null)');
  });
  after(async () => {
    await connection.db.destroy();
    rmSync(directory, { recursive: true, force: true });
  });
  const reset = () => {
    connection.database.exec('delete from notes');
    commits = 0;
  };

  it('commits writes asked together once, each with its own value, in the order asked', async () => {
    reset();
    const run = runner();
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((value) =>
        run(
          async (trx) => {
            await insert(trx, value);
            return value.toUpperCase();
          },
          { batch: false },
        ),
      ),
    );
    assert.deepEqual(answers, ['A', 'B', 'C', 'D']);
    assert.deepEqual(await values(), ['a', 'b', 'c', 'd']);
    assert.equal(commits, 1, 'one commit for the four');
  });

  it('undoes only the part of a write that throws, which fails alone', async () => {
    reset();
    const run = runner();
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((value) =>
        run(
          async (trx) => {
            await insert(trx, value);
            if (value === 'b') {
              await insert(trx, 'b again');
              throw new Error('b refused');
            }
            return value;
          },
          { batch: false },
        ),
      ),
    );
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message)),
      ['a', 'b refused', 'c'],
    );
    assert.deepEqual(await values(), ['a', 'c'], 'nothing of b, all of a and c');
    assert.equal(commits, 1);
  });

  it('runs each write in the context it was asked in, with a Transaction object of its own', async () => {
    reset();
    const run = runner();
    const context = new AsyncLocalStorage<string>();
    const seen: Array<{ asked: string; found: string | undefined; trx: Trx }> = [];
    await Promise.all(
      ['first', 'second', 'third'].map((asked) =>
        context.run(asked, () =>
          run(
            async (trx) => {
              await insert(trx, asked);
              seen.push({ asked, found: context.getStore(), trx });
            },
            { batch: false },
          ),
        ),
      ),
    );
    assert.deepEqual(
      seen.map(({ asked, found }) => [asked, found]),
      [
        ['first', 'first'],
        ['second', 'second'],
        ['third', 'third'],
      ],
    );
    assert.equal(new Set(seen.map(({ trx }) => trx)).size, 3);
    assert.equal(commits, 1);
  });

  it('shares one commit among its writes, whose hooks run once it happened and never for a write undone', async () => {
    reset();
    const run = runner();
    const events: string[] = [];
    const keys = new Set<object>();
    await Promise.allSettled(
      ['a', 'b', 'c'].map((value) =>
        run(
          async (trx, commit: Commit) => {
            keys.add(commit.key);
            await insert(trx, value);
            commit.afterCommit(() => events.push(`${value} after the commit: ${commits}`));
            if (value === 'b') throw new Error('b refused');
          },
          { batch: false },
        ),
      ),
    );
    assert.equal(keys.size, 1, 'one commit');
    assert.deepEqual(events, ['a after the commit: 1', 'c after the commit: 1']);
  });

  it('runs a batch write alone, its error undoing its transaction', async () => {
    reset();
    const run = runner();
    const outcomes = await Promise.allSettled([
      adding(run, 'before'),
      run(
        async (trx) => {
          await insert(trx, 'import');
          throw new Error('the batch is refused');
        },
        { batch: true },
      ),
      adding(run, 'after'),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await values(), ['before', 'after'], 'the batch undone, the others kept');
    assert.equal(commits, 2, 'the batch alone between them');
  });

  it('takes no more writes than its limit, and leaves a batch write a transaction of its own', async () => {
    reset();
    const run = runner({ writes: 2, windowMs: 60_000 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((value) => adding(run, value)));
    assert.equal(commits, 3, 'two, two and one');

    commits = 0;
    const grouped = runner();
    await Promise.all([
      adding(grouped, 'f'),
      grouped((trx) => insert(trx, 'import'), { batch: true }),
      adding(grouped, 'g'),
    ]);
    assert.equal(commits, 3, 'f alone (the batch write is next), the batch alone, then g');
    assert.deepEqual(await values(), ['a', 'b', 'c', 'd', 'e', 'f', 'import', 'g']);
  });

  it('takes the writes that arrive during its one turn of the event loop, and none after its window', async () => {
    reset();
    const run = runner();
    const first = adding(run, 'a');
    // Asked after the first write started, before the group's turn of the event loop ended.
    await new Promise((resolve) => setImmediate(resolve));
    const second = adding(run, 'b');
    await Promise.all([first, second]);
    assert.equal(commits, 1);

    commits = 0;
    const closed = runner({ writes: 32, windowMs: 0 });
    await Promise.all([adding(closed, 'c'), adding(closed, 'd')]);
    assert.equal(commits, 2, 'a window of 0 ms takes its first write only');
  });

  it('fails every write of a group whose transaction SQLite ended, and goes on with the next', async () => {
    reset();
    const run = runner();
    const outcomes = await Promise.allSettled([
      adding(run, 'a'),
      run(
        async (trx) => {
          await insert(trx, 'b');
          // What a full disk or an I/O error does: SQLite rolls the whole transaction back.
          connection.database.exec('rollback');
          throw new Error('the transaction is gone');
        },
        { batch: false },
      ),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
    assert.deepEqual(await values(), []);
    await adding(run, 'c');
    assert.deepEqual(await values(), ['c']);
  });
});

describeEachDatabase('writes asked together', (harness) => {
  const temporaryStore = async () =>
    Number((await sql<{ temp_store: number }>`pragma temp_store`.execute(harness().store.db)).rows[0].temp_store);

  it('journal their savepoints in memory on SQLite, but for a first load, which sorts on disk', async () => {
    if (harness().database === 'postgres') return;
    const { store } = harness();
    assert.equal(await temporaryStore(), 2, 'memory');
    const during = await store.bulkLoad(['occurrence_counts'], () => temporaryStore());
    assert.equal(during, 0, "SQLite's default, files");
    assert.equal(await temporaryStore(), 2, 'memory again');
    await assert.rejects(
      store.bulkLoad(['occurrence_counts'], async () => {
        throw new Error('the load failed');
      }),
      /the load failed/,
    );
    assert.equal(await temporaryStore(), 2, 'memory again after a failed load');
  });

  const note = (id: number, excerpt: string) => (trx: Trx) =>
    trx.updateTable('posts').set({ excerpt }).where('id', '=', id).execute();

  it('each commit or fail on their own, and run their after-commit hooks only once committed', async () => {
    const { store, request, users } = harness();
    const ids: number[] = [];
    for (const venue of ['Group Hall A', 'Group Hall B', 'Group Hall C'])
      ids.push((await request('POST', '/venues', { as: users.administrator, body: { venue } })).json().id);
    const hooks: string[] = [];
    const outcomes = await Promise.allSettled(
      ids.map((id, index) =>
        store.transaction(async (trx) => {
          await note(id, `written ${index}`)(trx);
          afterCommit(trx, () => hooks.push(`after ${index}`));
          if (index === 1) throw new Error('refused');
          return index;
        }),
      ),
    );
    assert.deepEqual(
      outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'refused')),
      [0, 'refused', 2],
    );
    assert.deepEqual(hooks.sort(), ['after 0', 'after 2']);
    const excerpts = await store.db.selectFrom('posts').select(['id', 'excerpt']).where('id', 'in', ids).execute();
    assert.deepEqual(
      ids.map((id) => excerpts.find((row) => row.id === id)?.excerpt),
      ['written 0', '', 'written 2'],
    );
  });

  it('tell the caches of each commit only what all its writes left alone', async () => {
    const { store, request, users } = harness();
    const venue = (await request('POST', '/venues', { as: users.administrator, body: { venue: 'Told Hall' } })).json();
    const reported: OwnCommit[] = [];
    const stop = store.onOwnCommit((commit) => reported.push(commit));
    try {
      await Promise.all([
        store.transaction(async (trx) => {
          leaveAlone(trx, 'terms', 'credentials');
          await note(venue.id, 'one')(trx);
        }),
        store.transaction(async (trx) => {
          leaveAlone(trx, 'credentials');
          await note(venue.id, 'two')(trx);
        }),
      ]);
    } finally {
      stop();
    }
    // Grouped (SQLite, as a rule): one commit, leaving only the credentials alone; alone: each its own. Never one
    // commit told twice.
    const told = reported.map((commit) => [...commit.leftAlone].sort());
    const afters = reported.map((commit) => commit.after);
    assert.equal(new Set(afters).size, afters.length, `each commit told once: ${JSON.stringify(reported)}`);
    // PostgreSQL may commit the second write first.
    assert.deepEqual(
      told.map((parts) => parts.join('+')).sort(),
      told.length === 1 ? ['credentials'] : ['credentials', 'credentials+terms'],
    );
    if (harness().database === 'postgres') assert.equal(told.length, 2, 'PostgreSQL commits each write alone');
    assert.ok(afters.includes(await store.dataVersion()), 'the last commit told is the current version');
  });
});
