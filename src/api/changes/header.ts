// `X-Sync-Cursor` (D24) on every list answer: the cursor as of the data the list reads.
import type { RequestContext } from '../../http/context.ts';
import { encodeCursor } from '../../core/sync/cursor.ts';
import { currentCursor } from '../../core/sync/service.ts';

export const SYNC_CURSOR_HEADER = 'X-Sync-Cursor';

/**
 * The header of a list answer. Await it **before** the list's own queries: whatever committed up to its seq is then
 * in the list, and `/changes` from it replays everything later. Costs one query (`max(seq)`, a primary-key lookup).
 */
export async function syncCursorHeader(ctx: RequestContext): Promise<Record<string, string>> {
  return { [SYNC_CURSOR_HEADER]: encodeCursor(await currentCursor(ctx.store, ctx)) };
}
