// What follows a write inside its transaction (stored documents, occurrence counts) reads an item and writes what is
// derived from it; two transactions doing so for one item at once must take turns, so that the one that writes last
// has read the other's committed state. On PostgreSQL each item has a lock (an advisory one, held to the end of the
// transaction), taken once per transaction whatever asks for it, in id order; SQLite's single writer needs none.
import { storeOf, type Trx } from '../store/store.ts';

const held = new WeakMap<Trx, Set<number>>();

/** Takes the locks of `ids` this transaction does not hold yet, in id order, in one statement. */
export async function lockItems(trx: Trx, ids: readonly number[]): Promise<void> {
  const store = storeOf(trx);
  if (store.writers === 'one') return;
  let mine = held.get(trx);
  if (!mine) {
    mine = new Set();
    held.set(trx, mine);
  }
  const wanted = [...new Set(ids)].filter((id) => !mine.has(id)).sort((a, b) => a - b);
  if (wanted.length === 0) return;
  await store.lockAll(
    trx,
    wanted.map((id) => `item:${id}`),
  );
  for (const id of wanted) mine.add(id);
}
