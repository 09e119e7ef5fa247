import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A query built and compiled once per database, then run with new values: the hot paths' statements (a row by id,
 * an upsert of a document, an authentication's lookup, the rows of a write's few events). Building and compiling a
 * query with Kysely costs 5–20 µs, about what SQLite takes to run it; a request runs a few of them and a write twenty
 * or more, each the same text every time (the values are bound). The database keeps each text prepared already
 * (sqlite/connection.ts, postgres/prepared-client.ts); this keeps the text.
 *
 * `build` declares one parameter per argument after the database, and gets a placeholder for each: for an array
 * argument (a list of ids for `in`), an array of as many placeholders, so a list is compiled once per length (up to
 * {@link MAX_PREPARED_LIST}; a longer one is built for its call, as any query). It must use each placeholder only as
 * a value (a column's value, a comparand, an element of an `in` list, a bound `sql` value): never inspect it, branch
 * on it or drop it, for it is not the value. A list's length is the real one, so the build may branch on it (leave
 * out a condition on an empty list). The first build of each shape checks that every placeholder reached the
 * compiled values. Statements whose shape depends on their values otherwise (optional columns, a condition present
 * or not) stay built per call.
 */
export interface PreparedQuery<Args extends readonly unknown[], Row> {
  /** Every row `args` select. */
  rows(db: Kysely<Database>, ...args: Args): Promise<Row[]>;
  /** The first row, if any. */
  first(db: Kysely<Database>, ...args: Args): Promise<Row | undefined>;
  /** How many rows an insert, update or delete without `returning` changed. */
  affected(db: Kysely<Database>, ...args: Args): Promise<number>;
}

/** Lists longer than this are built per call: a text per length beyond it would rarely be used again. */
export const MAX_PREPARED_LIST = 16;

/** Stands for argument `argument` (its element `element`, for a list) until the query runs. */
class Placeholder {
  readonly argument: number;
  readonly element: number | undefined;
  constructor(argument: number, element?: number) {
    this.argument = argument;
    this.element = element;
  }
}

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each of the query's values, the placeholder it stands for, or undefined for a value of the build itself. */
  slots: (Placeholder | undefined)[];
}

export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row> | RawBuilder<Row>,
): PreparedQuery<Args, Row> {
  // Compiled SQL differs by database (placeholders, quoting), so one compilation per dialect adapter and shape; a
  // transaction shares its database's adapter. Weak: a store closed (a test's) lets its entry go.
  const compiled = new WeakMap<DialectAdapter, Map<string, Compiled<Row>>>();
  // A query builder compiles itself; an `sql` template is compiled by the database given.
  const compile = (db: Kysely<Database>, args: Args) => build(db, ...args).compile(db);

  function compiledFor(db: Kysely<Database>, args: Args): Compiled<Row> | undefined {
    let shape = '';
    for (const argument of args) {
      if (!Array.isArray(argument)) shape += '.';
      else if (argument.length > MAX_PREPARED_LIST) return undefined;
      else shape += `${argument.length}.`;
    }
    // `getExecutor` is Kysely's own (marked internal): the one public way to the adapter a transaction shares.
    const adapter = db.getExecutor().adapter;
    let shapes = compiled.get(adapter);
    if (shapes === undefined) {
      shapes = new Map();
      compiled.set(adapter, shapes);
    }
    let entry = shapes.get(shape);
    if (entry === undefined) {
      const placeholders = args.map((argument, index) =>
        Array.isArray(argument)
          ? argument.map((_, element) => new Placeholder(index, element))
          : new Placeholder(index),
      );
      const query = compile(db, placeholders as unknown as Args);
      const slots = query.parameters.map((value) => (value instanceof Placeholder ? value : undefined));
      const missing = placeholders.flat().filter((placeholder) => !slots.includes(placeholder));
      if (missing.length > 0)
        throw new Error(
          `a prepared query used ${missing.map(({ argument, element }) => (element === undefined ? `argument ${argument}` : `argument ${argument}[${element}]`)).join(', ')} other than as a value: ${query.sql}`,
        );
      entry = { query, slots };
      shapes.set(shape, entry);
    }
    return entry;
  }

  async function run(db: Kysely<Database>, args: Args): Promise<QueryResult<Row>> {
    const entry = compiledFor(db, args);
    if (entry === undefined) return await db.executeQuery(compile(db, args));
    const { query, slots } = entry;
    const parameters = query.parameters.map((value, position) => {
      const slot = slots[position];
      if (slot === undefined) return value;
      const argument = args[slot.argument];
      return slot.element === undefined ? argument : (argument as readonly unknown[])[slot.element];
    });
    return await db.executeQuery<Row>({ ...query, parameters });
  }

  return {
    rows: async (db, ...args) => (await run(db, args)).rows,
    first: async (db, ...args) => (await run(db, args)).rows[0],
    affected: async (db, ...args) => Number((await run(db, args)).numAffectedRows ?? 0n),
  };
}
