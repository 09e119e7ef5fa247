import { errorCode } from '../../domain/errors.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.ts';

const BUSY_RETRIES = 8;

export function isBusy(error: unknown): boolean {
  const code = errorCode(error);
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Runs `work` again (with a growing pause) while another connection holds the write lock beyond the busy timeout. */
export async function retryWhileBusy<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isBusy(error) || attempt >= BUSY_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

/**
 * One transaction per write (begun IMMEDIATE: connection.ts), retried whole when another process's writer holds the
 * lock beyond the busy timeout. A batch transaction is an ordinary one: SQLite's commits in WAL mode with `synchronous = NORMAL` are
 * already cheap. `committed` runs after each commit.
 */
export function createTransactionRunner(db: Kysely<Database>, committed: () => void) {
  return async <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> => {
    const result = await retryWhileBusy(() => db.transaction().execute(work));
    committed();
    return result;
  };
}

/** One writer at a time: its write lock, held from its first write to its commit, orders commits. */
export async function enterCommitOrder(): Promise<void> {}

/** The write lock serialises writers already. */
export async function lock(): Promise<void> {}
