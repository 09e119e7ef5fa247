import { errorCode } from '../../domain/errors.ts';

/** How often a write (or a group of writes) is run again while another process holds the write lock. */
export const BUSY_RETRIES = 8;

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

/** One writer at a time: its write lock, held from its first write to its commit, orders commits. */
export async function enterCommitOrder(): Promise<void> {}

/** The write lock serialises writers already. */
export async function lock(): Promise<void> {}
