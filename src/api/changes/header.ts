// `X-Sync-Cursor` (D24) on every list answer: the cursor as of the data the list reads.
import type { RequestContext } from '../../http/context.ts';
import { encodeCursor } from '../../core/sync/cursor.ts';
import { currentCursor, currentCursorAndDataVersion } from '../../core/sync/service.ts';

export const SYNC_CURSOR_HEADER = 'X-Sync-Cursor';

/**
 * The header of a list answer. Await it **before** the list's own queries: whatever committed up to its seq is then
 * in the list, and `/changes` from it replays everything later. Costs one query (`max(seq)`, a primary-key lookup);
 * for a read that had read the data version already, that version again, in the same statement on PostgreSQL.
 */
export async function syncCursorHeader(ctx: RequestContext): Promise<Record<string, string>> {
  // Read by the read cache with the version it answers at (readSyncCursor), before anything else of the request.
  if (ctx.syncCursor !== undefined) return { [SYNC_CURSOR_HEADER]: encodeCursor(ctx.syncCursor) };
  if (ctx.dataVersion === undefined) return { [SYNC_CURSOR_HEADER]: encodeCursor(await currentCursor(ctx.store, ctx)) };
  // What the rest of the list checks its process snapshots against (the embedded terms, the deep-page positions) must
  // be read with the cursor or after it: a version read before it (the read cache's, at the request's start) would let
  // a snapshot older than a change inside the cursor answer, and the client, following /changes from the cursor,
  // would never fetch that change again.
  const { cursor, dataVersion } = await currentCursorAndDataVersion(ctx.store, ctx);
  ctx.dataVersion = dataVersion;
  return { [SYNC_CURSOR_HEADER]: encodeCursor(cursor) };
}

/**
 * A list's `readsDataVersion` (http/routes.ts): the sync cursor and the data version the read cache answers at, in one
 * statement, before the request reads anything else (its arguments' checks included). The cursor then precedes every
 * read of the list, and the version is the one its snapshots check, read with the cursor.
 */
export async function readSyncCursor(ctx: RequestContext): Promise<string> {
  const { cursor, dataVersion } = await currentCursorAndDataVersion(ctx.store, ctx);
  ctx.syncCursor = cursor;
  return dataVersion;
}
