import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { seededRandom } from '../../bench/random.ts';
import { withStatementCache } from '../../src/store/sqlite/connection.ts';
import { withStablePlan } from '../../src/store/sqlite/stable-plans.ts';

/** Pieces of statement text and what each becomes: only a placeholder outside quotes and comments changes. */
const PIECES: ReadonlyArray<readonly [string, string]> = [
  ['?', '+?'],
  [' ', ' '],
  ['a', 'a'],
  ['+', '+'],
  ['(', '('],
  [',', ','],
  ["'it''s ?'", "'it''s ?'"],
  ['"col?"', '"col?"'],
  ['[x?]', '[x?]'],
  ['`y?`', '`y?`'],
  ['-- note ?\n', '-- note ?\n'],
  ['/* ? */', '/* ? */'],
];

describe('SQLite statements prepared for stable plans', () => {
  it('writes each placeholder +? and leaves literals, identifiers and comments alone', () => {
    assert.equal(
      withStablePlan(`select "a?" from t where x = ? and y in (?, ?) and z = 'what?' -- and ?\nlimit ? /* ? */`),
      `select "a?" from t where x = +? and y in (+?, +?) and z = 'what?' -- and ?\nlimit +? /* ? */`,
    );
    assert.equal(withStablePlan('select 1'), 'select 1');
    assert.equal(withStablePlan('select x-?'), 'select x-+?');
  });

  it('leaves the rest of an unterminated literal or comment alone', () => {
    assert.equal(withStablePlan("select ? where a = 'b?"), "select +? where a = 'b?");
    assert.equal(withStablePlan('select ? /* ?'), 'select +? /* ?');
    assert.equal(withStablePlan('select ? -- ?'), 'select +? -- ?');
  });

  it('changes exactly the free placeholders of any text made of such pieces', () => {
    const random = seededRandom(20261127);
    for (let round = 0; round < 2000; round++) {
      let text = '';
      let expected = '';
      const length = Math.floor(random() * 30);
      for (let piece = 0; piece < length; piece++) {
        const [from, to] = PIECES[Math.floor(random() * PIECES.length)];
        text += from;
        expected += to;
      }
      assert.equal(withStablePlan(text), expected, text);
    }
  });

  it('is how the statement cache prepares statements, and the answers are the same', () => {
    const database = new BetterSqlite3(':memory:');
    try {
      database.exec('create table t (id integer primary key, hidden integer not null, status text not null)');
      database.exec('create index t_list on t (hidden, status)');
      const insert = database.prepare('insert into t (hidden, status) values (?, ?)');
      for (let id = 0; id < 50; id++) insert.run(id % 2, id % 3 === 0 ? 'publish' : 'draft');
      const cache = withStatementCache(database);
      const text = "select id from t where hidden = ? and status = ? and status != '?' order by id limit ? offset ?";
      const statement = cache.prepare(text) as unknown as BetterSqlite3.Statement;
      assert.equal(
        statement.source,
        "select id from t where hidden = +? and status = +? and status != '?' order by id limit +? offset +?",
      );
      for (const values of [
        [0, 'publish', 3, 0],
        [1, 'draft', 10, 2],
        [0, 'draft', 0, 0],
      ])
        assert.deepEqual(statement.all(...values), database.prepare(text).all(...values));
      assert.equal(cache.prepare(text), statement, 'prepared once, then kept');
    } finally {
      database.close();
    }
  });
});
