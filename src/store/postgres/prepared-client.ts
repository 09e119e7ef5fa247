import { createHash } from 'node:crypto';
import pg from 'pg';
import { isPlannedPerExecution } from '../planned-per-execution.ts';

/** Distinct statements one connection keeps prepared; later ones run unnamed (parsed each time, as before). */
export const MAX_PREPARED_PER_CONNECTION = 500;
/** Statements with more values (a batch's rows, a page's ids) run unnamed: one text per length, each parsed for many rows. */
export const MAX_PREPARED_VALUES = 100;

/**
 * The first statement of a batch transaction (transaction.ts): its commit does not wait for the write-ahead log to
 * reach the disk, and until the transaction ends this connection sends every statement unnamed, so that each is
 * planned for its values. The comment makes the text the client recognises; nothing else sends it.
 */
export const BATCH_START = `select set_config('synchronous_commit', 'off', true) /* batch: each statement planned for its values */`;

/** Whether `text` begins or ends a transaction (as Kysely's PostgreSQL driver sends them): a batch ends at any of them. */
const endsBatch = (text: string) =>
  text === 'begin' || text === 'commit' || text === 'rollback' || text.startsWith('start transaction');

/**
 * A pg client that runs Kysely's queries (a text and its values) as named prepared statements of this connection,
 * each named by a digest of its text: the server parses and analyses each distinct text once per connection, then
 * only binds and runs it, and after its first executions keeps the plan it chose for them when planning for the
 * values makes no better one (a read by primary key is planned five times, not at every read). Kysely builds the same
 * text for every request of a kind (values are always bound), so the hot reads and writes are a few hundred texts.
 * Bounded per connection: texts with more than {@link MAX_PREPARED_VALUES} values (a batch's rows, a long id list: one
 * text per length) and texts beyond {@link MAX_PREPARED_PER_CONNECTION} run unnamed, parsed each time as before. So
 * do the statements whose best plan depends on their values (a list's selection, marked `planned per execution`:
 * store/planned-per-execution.ts): an unnamed statement is planned for the values it comes with. The import's
 * transactions plan every execution for its values (transaction.ts): a plan kept from the first units of an import
 * into an empty database, chosen while its tables were small, had made the import twice as slow: from its
 * {@link BATCH_START} to its end, a batch transaction's statements all run unnamed. Forcing every plan of the
 * transaction to be made again (`plan_cache_mode = force_custom_plan`, as before) did that too, but also for the
 * statements PostgreSQL runs itself: each foreign key's check of each row written was planned again, a quarter of the
 * server's time in an import.
 */
export class PreparedStatementClient extends pg.Client {
  readonly #names = new Map<string, string>();
  /** Within a batch transaction ({@link BATCH_START}): every statement runs unnamed. */
  #inBatch = false;

  // pg's query() has many overloads; Kysely calls query(text, values) and query(cursor), which is passed through.
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads are re-exposed unchanged; only (text, values) is renamed
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string') {
      if (config === BATCH_START) this.#inBatch = true;
      else if (endsBatch(config)) this.#inBatch = false;
    }
    // Without values, pg uses the simple protocol, which also runs a text of several statements (a migration).
    if (
      !this.#inBatch &&
      typeof config === 'string' &&
      Array.isArray(values) &&
      values.length > 0 &&
      values.length <= MAX_PREPARED_VALUES &&
      callback === undefined &&
      !isPlannedPerExecution(config)
    ) {
      const name = this.#nameOf(config);
      if (name !== undefined) return super.query({ name, text: config, values });
    }
    return super.query(config, values, callback);
  }

  #nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined) {
      if (this.#names.size >= MAX_PREPARED_PER_CONNECTION) return undefined;
      name = `k${createHash('sha1').update(text).digest('base64url')}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /** How many statements this connection has named (for tests). */
  get preparedCount(): number {
    return this.#names.size;
  }
}
