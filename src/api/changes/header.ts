// `X-Sync-Cursor` (D24) on every list answer: the cursor as of the data the list reads.
import type { RequestContext } from '../../http/context.ts';
import { encodeCursor } from '../../core/sync/cursor.ts';
import { currentCursor } from '../../core/sync/service.ts';

export const SYNC_CURSOR_HEADER = 'X-Sync-Cursor';

/**
 * The header of a list answer. Await it **before** the list's own queries: whatever committed up to its seq is then
 * in the list, and `/changes` from it replays everything later. Costs one query (`max(seq)`, a primary-key lookup),
 * and for a read that had read the data version already, that version again.
 */
export async function syncCursorHeader(ctx: RequestContext): Promise<Record<string, string>> {
  const cursor = await currentCursor(ctx.store, ctx);
  // What the rest of the list checks its process snapshots against (the embedded terms, the deep-page positions) must
  // be read after the cursor too: a version read before it (the read cache's, at the request's start) would let a
  // snapshot older than a change inside the cursor answer, and the client, following /changes from the cursor, would
  // never fetch that change again.
  if (ctx.dataVersion !== undefined) ctx.dataVersion = await ctx.store.dataVersion();
  return { [SYNC_CURSOR_HEADER]: encodeCursor(cursor) };
}
