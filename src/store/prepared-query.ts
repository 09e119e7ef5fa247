import type { Compilable, CompiledQuery, DialectAdapter, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A query built and compiled once per database, then run with new values: the hot paths' statements (a row by id,
 * an upsert of a document, an authentication's lookup, the rows of a write's few events). Building and compiling a
 * query with Kysely costs 5–20 µs, about what SQLite takes to run it; a request runs a few of them and a write twenty
 * or more, each the same text every time (the values are bound). The database keeps each text prepared already
 * (sqlite/connection.ts, postgres/prepared-client.ts); this keeps the text.
 *
 * `build` declares one parameter per argument after the database, and gets a placeholder for each. For an array
 * argument (a list of ids for `in`, the rows of an insert) it gets an array of as many, and for a row (a plain object
 * of plain values: the columns of an insert or of an update's `set`) an object with a placeholder for each column
 * whose value is not undefined, so a statement is compiled once per shape: per list length (up to
 * {@link MAX_PREPARED_LIST}; a longer list is built for its call, as any query) and per set of columns. It must use
 * each placeholder only as a value (a column's value, a comparand, an element of an `in` list, a bound `sql` value):
 * never inspect it, branch on it or drop it, for it is not the value. A list's length and a row's columns are the
 * real ones, so the build may branch on them (leave out a condition on an empty list). The first build of each shape
 * checks that every placeholder reached the compiled values. An argument of any other kind (an expression, a Date)
 * makes that call build the query with the real arguments, as an unprepared query would. Statements whose shape
 * depends on their values otherwise (a condition present or not) stay built per call.
 */
export interface PreparedQuery<Args extends readonly unknown[], Row> {
  /** Every row `args` select. */
  rows(db: Kysely<Database>, ...args: Args): Promise<Row[]>;
  /** The first row, if any. */
  first(db: Kysely<Database>, ...args: Args): Promise<Row | undefined>;
  /** How many rows an insert, update or delete without `returning` changed. */
  affected(db: Kysely<Database>, ...args: Args): Promise<number>;
  /** The statement these arguments run: its text and its values (what the three above execute). */
  compile(db: Kysely<Database>, ...args: Args): CompiledQuery<Row>;
}

/**
 * Shapes one query keeps compiled, per database. An update's changes are a set of columns of the client's choosing:
 * without a bound, requests naming ever new combinations would grow the process without end. Beyond it, a new shape
 * is built for its call, as an unprepared query.
 */
export const MAX_SHAPES = 64;

/** Lists longer than this are built per call (unless a query says otherwise): a text per length beyond it would rarely be used again. */
export const MAX_PREPARED_LIST = 16;

/**
 * An array bound as one value (a PostgreSQL array, `cast($1 as text[])`), not spread as a list: one statement text
 * whatever its length. The build gets a placeholder for it, which it uses as any value.
 */
export class OneValue<T> {
  readonly value: readonly T[];
  constructor(value: readonly T[]) {
    this.value = value;
  }
}

/** Stands for argument `argument` (at `path` within it, for a list or a row) until the query runs. */
class Placeholder {
  readonly argument: number;
  readonly path: readonly (number | string)[];
  constructor(argument: number, path: readonly (number | string)[]) {
    this.argument = argument;
    this.path = path;
  }

  valueIn(args: readonly unknown[]): unknown {
    let value = args[this.argument];
    for (const step of this.path) value = (value as Record<number | string, unknown>)[step];
    return value instanceof OneValue ? value.value : value;
  }

  toString(): string {
    return `argument ${this.argument}${this.path.map((step) => `[${JSON.stringify(step)}]`).join('')}`;
  }
}

const isPlainValue = (value: unknown) =>
  value === null || ['string', 'number', 'boolean', 'bigint', 'undefined'].includes(typeof value);

/** A row: a plain object whose every value is a plain value (not an expression, not a nested object). */
function isRow(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.values(value).every(isPlainValue);
}

/**
 * What decides the compiled text of `value`: a list's length and its elements' shapes, a row's columns. Undefined
 * when the query must be built for this call: a list too long, or an argument that is neither a plain value, a list
 * nor a row (an expression, a Date, a Buffer), which the build then gets as it is.
 */
function shapeOf(value: unknown, longestList: number): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > longestList) return undefined;
    let shape = '[';
    for (const element of value) {
      const inner = shapeOf(element, longestList);
      if (inner === undefined) return undefined;
      shape += `${inner},`;
    }
    return `${shape}]`;
  }
  if (isRow(value)) return JSON.stringify(Object.keys(value).filter((column) => value[column] !== undefined));
  return isPlainValue(value) || value instanceof OneValue ? '.' : undefined;
}

/** The placeholders that stand for `value`, of the same shape. */
function placeholdersFor(value: unknown, argument: number, path: readonly (number | string)[]): unknown {
  if (Array.isArray(value)) return value.map((element, index) => placeholdersFor(element, argument, [...path, index]));
  if (isRow(value))
    return Object.fromEntries(
      Object.keys(value)
        .filter((column) => value[column] !== undefined)
        .map((column) => [column, new Placeholder(argument, [...path, column])]),
    );
  return new Placeholder(argument, path);
}

function placeholdersIn(value: unknown): Placeholder[] {
  if (value instanceof Placeholder) return [value];
  if (Array.isArray(value)) return value.flatMap(placeholdersIn);
  return Object.values(value as Record<string, unknown>).flatMap(placeholdersIn);
}

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each of the query's values, the placeholder it stands for, or undefined for a value of the build itself. */
  slots: (Placeholder | undefined)[];
}

export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row> | RawBuilder<Row>,
  options: {
    /** Lists up to this long are compiled once per length: more than the default for a list of a fixed length. */
    longestList?: number;
    /**
     * Whether the build may leave an argument's placeholder unused (a value the statement of this shape does not need:
     * a list's clock where no status depends on it). Without it, one unused is taken for a placeholder used other than
     * as a value, and throws; with it, such a misuse is for the caller's tests to catch (list-statements.ts compares
     * its statements with the builder's own).
     */
    unusedAllowed?: boolean;
  } = {},
): PreparedQuery<Args, Row> {
  const longestList = options.longestList ?? MAX_PREPARED_LIST;
  // Compiled SQL differs by database (placeholders, quoting), so one compilation per dialect adapter and shape; a
  // transaction shares its database's adapter. Weak: a store closed (a test's) lets its entry go.
  const compiled = new WeakMap<DialectAdapter, Map<string, Compiled<Row>>>();
  // A query builder compiles itself; an `sql` template is compiled by the database given.
  const compile = (db: Kysely<Database>, args: Args) => build(db, ...args).compile(db);

  function compiledFor(db: Kysely<Database>, args: Args): Compiled<Row> | undefined {
    let shape = '';
    for (const argument of args) {
      const inner = shapeOf(argument, longestList);
      if (inner === undefined) return undefined;
      shape += `${inner};`;
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
      if (shapes.size >= MAX_SHAPES) return undefined;
      const placeholders = args.map((argument, index) => placeholdersFor(argument, index, []));
      const query = compile(db, placeholders as unknown as Args);
      const slots = query.parameters.map((value) => (value instanceof Placeholder ? value : undefined));
      const missing = placeholdersIn(placeholders).filter((placeholder) => !slots.includes(placeholder));
      if (missing.length > 0 && !options.unusedAllowed)
        throw new Error(`a prepared query used ${missing.join(', ')} other than as a value: ${query.sql}`);
      entry = { query, slots };
      shapes.set(shape, entry);
    }
    return entry;
  }

  function compiledWith(db: Kysely<Database>, args: Args): CompiledQuery<Row> {
    const entry = compiledFor(db, args);
    if (entry === undefined) return compile(db, args);
    const { query, slots } = entry;
    const parameters = query.parameters.map((value, position) => {
      const slot = slots[position];
      return slot === undefined ? value : slot.valueIn(args);
    });
    return { ...query, parameters };
  }

  const run = (db: Kysely<Database>, args: Args): Promise<QueryResult<Row>> =>
    db.executeQuery<Row>(compiledWith(db, args));

  return {
    rows: async (db, ...args) => (await run(db, args)).rows,
    first: async (db, ...args) => (await run(db, args)).rows[0],
    affected: async (db, ...args) => Number((await run(db, args)).numAffectedRows ?? 0n),
    compile: (db, ...args) => compiledWith(db, args),
  };
}

/**
 * {@link preparedQuery} for a query that also depends on an object of its store's (the data version's expression,
 * Store.dataVersionColumn): one prepared query per such object, let go with it.
 */
export function preparedQueryPer<Key extends object, Args extends readonly unknown[], Row>(
  build: (key: Key) => (db: Kysely<Database>, ...args: Args) => Compilable<Row> | RawBuilder<Row>,
): (key: Key) => PreparedQuery<Args, Row> {
  const queries = new WeakMap<Key, PreparedQuery<Args, Row>>();
  return (key) => {
    let query = queries.get(key);
    if (query === undefined) {
      query = preparedQuery(build(key));
      queries.set(key, query);
    }
    return query;
  };
}
