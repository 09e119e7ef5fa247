import { createHash } from 'node:crypto';
import pg from 'pg';
import { isPlannedPerExecution } from '../planned-per-execution.ts';

/** Distinct statements one connection keeps prepared; later ones run unnamed (parsed each time, as before). */
export const MAX_PREPARED_PER_CONNECTION = 500;
/** Statements with more values (a batch's rows, a page's ids) run unnamed: one text per length, each parsed for many rows. */
export const MAX_PREPARED_VALUES = 100;

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
 * into an empty database, chosen while its tables were small, had made the import twice as slow.
 */
export class PreparedStatementClient extends pg.Client {
  readonly #names = new Map<string, string>();

  // pg's query() has many overloads; Kysely calls query(text, values) and query(cursor), which is passed through.
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads are re-exposed unchanged; only (text, values) is renamed
  override query(config: any, values?: any, callback?: any): any {
    // Without values, pg uses the simple protocol, which also runs a text of several statements (a migration).
    if (
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
