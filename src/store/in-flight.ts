/**
 * Runs `write` for each of `items`, `concurrency` at a time (a batch writer's Store.batchConcurrency: more than one
 * only where a batch can be written while another waits for the database), each item taken in order by the first
 * writer free, and `written` after each. Once a write fails no writer takes another item; every write under way ends
 * before the first failure is thrown, so that nothing is still writing when the caller goes on (or closes the store).
 */
export async function eachInFlight<T>(
  items: readonly T[],
  concurrency: number,
  write: (item: T, index: number) => Promise<void>,
  written?: (item: T) => void,
): Promise<void> {
  let next = 0;
  let failed = false;
  const writer = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        await write(items[index], index);
      } catch (error) {
        failed = true;
        throw error;
      }
      written?.(items[index]);
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: Math.max(1, concurrency) }, writer));
  const failure = ended.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}
