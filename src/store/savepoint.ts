import { sql } from 'kysely';
import type { Trx } from './store.ts';

/**
 * Runs `work` in `trx` under a savepoint: when it throws, what it wrote is undone and `trx` stays usable (PostgreSQL
 * refuses every later statement of a transaction whose statement failed, unless it goes back to a savepoint), and
 * the error is thrown on. `name` must be a plain identifier.
 */
export async function underSavepoint<T>(trx: Trx, name: string, work: () => Promise<T>): Promise<T> {
  await sql.raw(`savepoint ${name}`).execute(trx);
  try {
    const result = await work();
    await sql.raw(`release savepoint ${name}`).execute(trx);
    return result;
  } catch (error) {
    await sql.raw(`rollback to savepoint ${name}`).execute(trx);
    throw error;
  }
}
