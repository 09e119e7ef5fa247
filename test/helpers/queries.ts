import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.ts';
import type { Store } from '../../src/store/store.ts';
import type { Harness } from './harness.ts';

/**
 * While `run` runs, `object[method]` is wrapped: the `sql` of what each call is given (its first argument) or gives
 * back (its result) is recorded, in order. The method is put back afterwards, whatever happens.
 */
async function sqlOfCalls(
  object: object,
  method: string,
  from: 'argument' | 'result',
  run: () => Promise<unknown>,
): Promise<string[]> {
  const target = object as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method];
  const texts: string[] = [];
  target[method] = function (this: unknown, ...args: unknown[]) {
    const result = original.apply(this, args);
    texts.push(((from === 'argument' ? args[0] : result) as { sql: string }).sql);
    return result;
  };
  try {
    await run();
  } finally {
    target[method] = original;
  }
  return texts;
}

/** Every statement `store` runs through Kysely while `run` runs, with its parameters, in order. */
export async function statementsWithParameters(store: Store, run: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const executor = store.db.getExecutor() as unknown as { executeQuery: (query: CompiledQuery) => unknown };
  const execute = executor.executeQuery;
  const queries: CompiledQuery[] = [];
  executor.executeQuery = function (this: unknown, query: CompiledQuery) {
    queries.push(query);
    return execute.call(this, query);
  };
  try {
    await run();
  } finally {
    executor.executeQuery = execute;
  }
  return queries;
}

/**
 * The database's plan of `query`, one line per step: SQLite's `explain query plan`, PostgreSQL's `explain` with scans
 * of whole tables priced out where an index serves (the tests' tables are too small for its planner to prefer one).
 */
export async function queryPlan(h: Harness, query: CompiledQuery): Promise<string> {
  return h.store.db.connection().execute(async (connection) => {
    if (h.database === 'postgres') await connection.executeQuery(CompiledQuery.raw('set enable_seqscan = off'));
    try {
      const prefix = h.database === 'sqlite' ? 'explain query plan ' : 'explain ';
      const result = await connection.executeQuery(CompiledQuery.raw(prefix + query.sql, [...query.parameters]));
      return result.rows.map((row: any) => row.detail ?? row['QUERY PLAN']).join('\n');
    } finally {
      if (h.database === 'postgres') await connection.executeQuery(CompiledQuery.raw('reset enable_seqscan'));
    }
  });
}

/** The SQL of every statement `store` runs (through Kysely) while `run` runs, in order. */
export const statementsDuring = (store: Store, run: () => Promise<unknown>): Promise<string[]> =>
  sqlOfCalls(store.db.getExecutor(), 'executeQuery', 'argument', run);

/** The answer to a GET of `path` with `query`, and the SQL of every statement (through Kysely) run to answer it. */
export async function getWithStatements(h: Harness, path: string, query: Record<string, string>) {
  let answer!: Awaited<ReturnType<Harness['request']>>;
  const statements = await statementsDuring(h.store, async () => {
    answer = await h.request('GET', path, { query });
  });
  return { answer, statements };
}

/**
 * Every statement `store` sends to its database while `run` runs, with its parameters, those of its transactions
 * included (the connections are wrapped as they are handed out), in order. The SQLite row writer's prepared inserts
 * run beside Kysely and are not seen; PostgreSQL's go through it and are.
 */
export async function everyQueryDuring(store: Store, run: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const executor = store.db.getExecutor() as unknown as {
    provideConnection: (
      consumer: (connection: { executeQuery: (...args: unknown[]) => unknown }) => unknown,
    ) => unknown;
  };
  const provide = executor.provideConnection;
  const queries: CompiledQuery[] = [];
  let recording = true;
  const wrapped = new WeakSet<object>();
  executor.provideConnection = function (this: unknown, consumer) {
    return provide.call(this, (connection) => {
      if (!wrapped.has(connection)) {
        wrapped.add(connection);
        const execute = connection.executeQuery;
        connection.executeQuery = function (this: unknown, ...args: unknown[]) {
          if (recording) queries.push(args[0] as CompiledQuery);
          return execute.apply(this, args);
        };
      }
      return consumer(connection);
    });
  };
  try {
    await run();
  } finally {
    recording = false;
    executor.provideConnection = provide;
  }
  return queries;
}

/** The SQL of {@link everyQueryDuring}. */
export async function everyStatementDuring(store: Store, run: () => Promise<unknown>): Promise<string[]> {
  return (await everyQueryDuring(store, run)).map((query) => query.sql);
}

/**
 * The SQL of every query `store` builds and compiles with Kysely while `run` runs (its transactions' included: they
 * share the executor's class), in order; a prepared query (store/prepared-query.ts) compiles only its first time.
 */
export const compiledDuring = (store: Store, run: () => Promise<unknown>): Promise<string[]> =>
  sqlOfCalls(Object.getPrototypeOf(store.db.getExecutor()), 'compileQuery', 'result', run);

/** How many statements `store` runs (through Kysely) while `run` runs. */
export async function queriesDuring(store: Store, run: () => Promise<unknown>): Promise<number> {
  return (await statementsDuring(store, run)).length;
}

/** How many rows `table` holds; with `where`, only those whose column holds that value. */
export async function rowCount<T extends keyof Database>(
  store: Store,
  table: T,
  where?: [column: keyof Database[T] & string, value: string | number],
): Promise<number> {
  const [column, value] = where ?? [];
  // Any table, any column: the query is built untyped, its answer is one count.
  let query = (store.db as Kysely<any>)
    .selectFrom(table as string)
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (column !== undefined) query = query.where(column as string, '=', value);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

type AsyncMethod = (this: unknown, ...args: unknown[]) => Promise<unknown>;

/**
 * Runs `run` once, right after the next call of `target[method]` that `matches` has its result but before its caller
 * gets it: the caller then holds what it read before `run` (a race the tests replay at exactly that moment). The method
 * is put back as it fires. `fired` tells whether it ran; `restore` puts the method back if it never did.
 */
function runAfterNextCall(
  target: object,
  method: string,
  run: () => Promise<unknown>,
  matches: (...args: unknown[]) => boolean = () => true,
) {
  const methods = target as Record<string, AsyncMethod>;
  const original = methods[method];
  let fired = false;
  methods[method] = async function (this: unknown, ...args: unknown[]) {
    const result = await original.apply(this, args);
    if (!fired && matches(...args)) {
      fired = true;
      methods[method] = original;
      await run();
    }
    return result;
  };
  return {
    get fired() {
      return fired;
    },
    restore: () => {
      methods[method] = original;
    },
  };
}

/**
 * Runs `write` once, right after the next read of the store's data version has its value but before the reader gets
 * it: the reader then holds a version older than that write. `fired` tells whether it ran; `restore` puts the store's
 * own reader back.
 */
export const writeAfterNextVersionRead = (store: Store, write: () => Promise<unknown>) =>
  runAfterNextCall(store, 'dataVersion', write);

/** How many times `store`'s data version is read on its own (Store.dataVersion) while `run` runs. */
export async function versionReadsDuring(store: Store, run: () => Promise<unknown>): Promise<number> {
  const original = store.dataVersion;
  let reads = 0;
  store.dataVersion = () => {
    reads++;
    return original();
  };
  try {
    await run();
  } finally {
    store.dataVersion = original;
  }
  return reads;
}

/** Runs `meanwhile` once, right after the next transaction of `store` commits, before its caller goes on. */
export const afterNextCommit = (store: Store, meanwhile: () => Promise<unknown>) =>
  runAfterNextCall(store, 'transaction', meanwhile);

/** The next `count` transactions of `store` each stop after their work, until `release(n)` lets the n-th commit. */
export function holdTransactions(store: Store, count: number) {
  const transaction = store.transaction;
  const gates = Array.from({ length: count }, () => ({
    reached: Promise.withResolvers<void>(),
    released: Promise.withResolvers<void>(),
  }));
  let started = 0;
  store.transaction = (work) => {
    const gate = gates[started++];
    if (started >= count) store.transaction = transaction;
    return transaction(async (trx) => {
      const result = await work(trx);
      gate.reached.resolve();
      await gate.released.promise;
      return result;
    });
  };
  return {
    reached: (n: number) => gates[n].reached.promise,
    release: (n: number) => gates[n].released.resolve(),
    restore: () => {
      for (const gate of gates) gate.released.resolve();
      store.transaction = transaction;
    },
  };
}

/**
 * Runs `write` once, right after the next statement `store` runs outside a transaction (through Kysely) whose SQL
 * matches `pattern` has its rows but before its caller gets them: the caller then holds rows older than that write.
 * `fired` tells whether it ran; `restore` puts the executor's method back.
 */
export const writeAfterNextStatement = (store: Store, pattern: RegExp, write: () => Promise<unknown>) =>
  runAfterNextCall(store.db.getExecutor(), 'executeQuery', write, (query) =>
    pattern.test((query as { sql: string }).sql),
  );
