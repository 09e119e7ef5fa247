import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { readSetting } from '../../src/core/settings/store.ts';
import { MAX_PREPARED_LIST, MAX_SHAPES, OneValue, preparedQuery } from '../../src/store/prepared-query.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { statementsDuring } from '../helpers/queries.ts';

describeEachDatabase('prepared queries', (harness) => {
  it('builds once per database and binds each run its own values', async () => {
    let builds = 0;
    const settingOf = preparedQuery((db, name: string) => {
      builds++;
      return db.selectFrom('settings').select('value').where('name', '=', name);
    });
    const { store } = harness();
    await store.db
      .insertInto('settings')
      .values([
        { name: 'prepared-a', value: 'first' },
        { name: 'prepared-b', value: 'second' },
      ])
      .execute();
    assert.equal((await settingOf.first(store.db, 'prepared-a'))?.value, 'first');
    assert.equal((await settingOf.first(store.db, 'prepared-b'))?.value, 'second');
    assert.equal(await settingOf.first(store.db, 'prepared-none'), undefined);
    // A transaction shares its database's compiled text.
    await store.transaction(async (trx) => {
      assert.deepEqual(await settingOf.rows(trx, 'prepared-b'), [{ value: 'second' }]);
    });
    assert.equal(builds, 1);
    // Another store (another connection, as a second process) compiles its own.
    const another = await harness().openAnotherStore();
    try {
      assert.equal((await settingOf.first(another.db, 'prepared-a'))?.value, 'first');
      assert.equal(builds, 2);
    } finally {
      await another.close();
    }
  });

  it('runs the same text as the built query, with the values in their places', async () => {
    const { store } = harness();
    const rename = preparedQuery((db, value: string, name: string) =>
      db.updateTable('settings').set({ value }).where('name', '=', name),
    );
    await store.db.insertInto('settings').values({ name: 'prepared-c', value: 'old' }).execute();
    const built = store.db.updateTable('settings').set({ value: 'x' }).where('name', '=', 'y').compile().sql;
    const texts = await statementsDuring(store, async () => {
      assert.equal(await rename.affected(store.db, 'new', 'prepared-c'), 1);
      assert.equal(await rename.affected(store.db, 'new', 'prepared-missing'), 0);
    });
    assert.deepEqual(texts, [built, built]);
    assert.equal(await readSetting(store.db, 'prepared-c'), 'new');
  });

  it('keeps literal values of the built query and binds an argument used twice in both places', async () => {
    const { store } = harness();
    const pair = preparedQuery((db, name: string) =>
      db.selectFrom('settings').select(sql<string>`${name} || ${'!'}`.as('marked')).where('name', '=', name),
    );
    await store.db.insertInto('settings').values({ name: 'prepared-d', value: 'v' }).execute();
    assert.deepEqual(await pair.rows(store.db, 'prepared-d'), [{ marked: 'prepared-d!' }]);
  });

  it('prepares an sql template, an argument used in several places', async () => {
    const { store } = harness();
    const either = preparedQuery(
      (_db, first: string, second: string) =>
        sql<{
          name: string;
        }>`select name from settings where name in (${first}, ${second}) or name = ${first} order by name`,
    );
    await store.db
      .insertInto('settings')
      .values([
        { name: 'prepared-e', value: '' },
        { name: 'prepared-f', value: '' },
      ])
      .execute();
    assert.deepEqual(await either.rows(store.db, 'prepared-f', 'prepared-e'), [
      { name: 'prepared-e' },
      { name: 'prepared-f' },
    ]);
    assert.deepEqual(await either.rows(store.db, 'prepared-f', 'prepared-none'), [{ name: 'prepared-f' }]);
  });

  it('compiles a list once per length, and builds a long list for its call', async () => {
    const { store } = harness();
    const lengths: number[] = [];
    const named = preparedQuery((db, names: readonly string[], value: string) => {
      lengths.push(names.length);
      return db
        .selectFrom('settings')
        .select('name')
        .where('name', 'in', names)
        .where('value', '=', value)
        .orderBy('name');
    });
    const names = Array.from(
      { length: MAX_PREPARED_LIST + 1 },
      (_, index) => `prepared-list-${String(index).padStart(2, '0')}`,
    );
    await store.db
      .insertInto('settings')
      .values(names.map((name) => ({ name, value: 'listed' })))
      .execute();
    const namesOf = async (list: readonly string[]) =>
      (await named.rows(store.db, list, 'listed')).map((row) => row.name);
    assert.deepEqual(await namesOf([names[3]]), [names[3]]);
    assert.deepEqual(await namesOf([names[5], names[1]]), [names[1], names[5]]);
    assert.deepEqual(await namesOf([names[7]]), [names[7]]);
    assert.deepEqual(await namesOf([names[2], names[4]]), [names[2], names[4]]);
    assert.deepEqual(await namesOf(names), names);
    assert.deepEqual(await namesOf(names), names);
    assert.deepEqual(await named.rows(store.db, [names[0]], 'other'), []);
    // Lengths 1 and 2 once each; the long list built at each of its two calls.
    assert.deepEqual(lengths, [1, 2, MAX_PREPARED_LIST + 1, MAX_PREPARED_LIST + 1]);
  });

  it('refuses a build that drops an element of a list', async () => {
    const { store } = harness();
    const firstOnly = preparedQuery((db, names: readonly string[]) =>
      db.selectFrom('settings').select('name').where('name', '=', names[0]),
    );
    await assert.rejects(firstOnly.rows(store.db, ['a', 'b']), /argument 0\[1\] other than as a value/);
  });

  it('compiles a row once per set of columns: inserts, updates, several rows, nulls', async () => {
    const { store } = harness();
    const columnSets: string[] = [];
    const insert = preparedQuery((db, rows: readonly { name: string; value: string }[]) => {
      columnSets.push(`insert ${rows.length}`);
      return db.insertInto('settings').values(rows);
    });
    const change = preparedQuery((db, name: string, changes: { value?: string; name?: string }) => {
      columnSets.push(`set ${Object.keys(changes).join()}`);
      return db.updateTable('settings').set(changes).where('name', '=', name);
    });
    await insert.affected(store.db, [{ name: 'prepared-row-a', value: 'a' }]);
    await insert.affected(store.db, [
      { name: 'prepared-row-b', value: 'b' },
      { name: 'prepared-row-c', value: 'c' },
    ]);
    await insert.affected(store.db, [{ name: 'prepared-row-d', value: 'd' }]);
    assert.equal(await change.affected(store.db, 'prepared-row-a', { value: 'a2' }), 1);
    assert.equal(await change.affected(store.db, 'prepared-row-b', { value: 'b2', name: undefined }), 1);
    assert.equal(await change.affected(store.db, 'prepared-row-c', { value: 'c2', name: 'prepared-row-c2' }), 1);
    const rows = await store.db
      .selectFrom('settings')
      .select(['name', 'value'])
      .where('name', 'like', 'prepared-row-%')
      .orderBy('name')
      .execute();
    assert.deepEqual(rows, [
      { name: 'prepared-row-a', value: 'a2' },
      { name: 'prepared-row-b', value: 'b2' },
      { name: 'prepared-row-c2', value: 'c2' },
      { name: 'prepared-row-d', value: 'd' },
    ]);
    // One row, two rows, then the set of one column (undefined columns are not columns), then of two.
    assert.deepEqual(columnSets, ['insert 1', 'insert 2', 'set value', 'set value,name']);
  });

  it('binds null as a value, not as the placeholder it replaced', async () => {
    const { store } = harness();
    const coalesced = preparedQuery(
      (_db, value: string | null) => sql<{ result: string }>`select coalesce(${value}, 'none') as result`,
    );
    assert.deepEqual(await coalesced.rows(store.db, null), [{ result: 'none' }]);
    assert.deepEqual(await coalesced.rows(store.db, 'some'), [{ result: 'some' }]);
  });

  it('keeps at most MAX_SHAPES shapes compiled, and builds further ones for their call', async () => {
    const { store } = harness();
    let builds = 0;
    const named = preparedQuery(
      (db, names: readonly string[]) => {
        builds++;
        return db.selectFrom('settings').select('name').where('name', 'in', names);
      },
      { longestList: MAX_SHAPES + 10 },
    );
    await store.db.insertInto('settings').values({ name: 'prepared-shapes', value: '' }).execute();
    const list = (length: number) => Array.from({ length }, () => 'prepared-shapes');
    for (let length = 1; length <= MAX_SHAPES + 2; length++)
      assert.deepEqual(await named.rows(store.db, list(length)), [{ name: 'prepared-shapes' }]);
    assert.equal(builds, MAX_SHAPES + 2);
    // The kept ones are not built again; the two beyond the bound are, at every call.
    await named.rows(store.db, list(1));
    await named.rows(store.db, list(MAX_SHAPES));
    assert.equal(builds, MAX_SHAPES + 2);
    await named.rows(store.db, list(MAX_SHAPES + 1));
    assert.equal(builds, MAX_SHAPES + 3);
  });

  it('builds for its call a query given an expression, which is neither a value, a list nor a row', async () => {
    const { store } = harness();
    let builds = 0;
    const change = preparedQuery((db, name: string, changes: Record<string, unknown>) => {
      builds++;
      return db.updateTable('settings').set(changes).where('name', '=', name);
    });
    await store.db.insertInto('settings').values({ name: 'prepared-expression', value: 'v' }).execute();
    for (let round = 0; round < 2; round++)
      assert.equal(await change.affected(store.db, 'prepared-expression', { value: sql`value || 'x'` }), 1);
    assert.equal(builds, 2);
    assert.equal(await readSetting(store.db, 'prepared-expression'), 'vxx');
  });

  it('binds an array wrapped as one value whole: one text whatever its length (PostgreSQL)', async (t) => {
    const { store, database } = harness();
    if (database !== 'postgres') return t.skip('an array as one value is a PostgreSQL array');
    let builds = 0;
    const count = preparedQuery((_db, keys: OneValue<string>) => {
      builds++;
      return sql<{ n: number }>`select cardinality(cast(${keys} as text[])) as n`;
    });
    for (const keys of [['a'], ['a', 'b', 'c'], Array.from({ length: 40 }, (_, index) => `k${index}`)])
      assert.deepEqual(await count.rows(store.db, new OneValue(keys)), [{ n: keys.length }]);
    assert.equal(builds, 1);
  });

  it('refuses a build that does not use an argument as a value', async () => {
    const { store } = harness();
    const branching = preparedQuery((db, name: string) =>
      db
        .selectFrom('settings')
        .select('value')
        .where('name', '=', typeof name === 'string' ? name : 'never'),
    );
    await assert.rejects(branching.first(store.db, 'x'), /argument 0 other than as a value/);
  });
});
