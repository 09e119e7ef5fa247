import { createHash } from 'node:crypto';
import pg from 'pg';

/** Distinct statements one connection keeps prepared; later ones run unnamed (parsed each time, as before). */
export const MAX_PREPARED_PER_CONNECTION = 500;

/**
 * A pg client that runs every query of Kysely's (a text and its values) as a named prepared statement of this
 * connection, its name a digest of the text: the server parses and analyses each distinct text once per connection,
 * then only binds and executes it, instead of parsing it on every request. Kysely builds the same text for every
 * request of a kind (values are always bound parameters), so the hot reads and writes are a few hundred texts.
 * Texts beyond {@link MAX_PREPARED_PER_CONNECTION} (lists of many ids, one text per length) run unnamed, so a
 * connection's prepared statements stay bounded. Planning still happens per execution unless the server finds a
 * generic plan as good (its `plan_cache_mode`).
 */
export class PreparedStatementClient extends pg.Client {
  readonly #names = new Map<string, string>();

  // pg's query() has many overloads; Kysely calls query(text, values) and query(cursor), which is passed through.
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads are re-exposed unchanged; only (text, values) is renamed
  override query(config: any, values?: any, callback?: any): any {
    // Without values, pg uses the simple protocol, which also runs a text of several statements (a migration).
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
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
