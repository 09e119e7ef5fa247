import type { Store } from '../../src/store/store.ts';

/** How many statements `store` runs (through Kysely) while `run` runs. */
export async function queriesDuring(store: Store, run: () => Promise<unknown>): Promise<number> {
  const executor = store.db.getExecutor() as unknown as { executeQuery: (...args: unknown[]) => Promise<unknown> };
  const original = executor.executeQuery;
  let queries = 0;
  executor.executeQuery = function (this: unknown, ...args: unknown[]) {
    queries++;
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    executor.executeQuery = original;
  }
  return queries;
}
