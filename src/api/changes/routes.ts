// `GET /changes` (D24): a thin handler over the cursor format and the sync service.
import { arg } from '../../core/input/args.ts';
import { ItemStream } from '../../http/bounded-json.ts';
import { endpoint, type RouteGroup } from '../../http/routes.ts';
import { positiveInteger } from '../../core/input/validators.ts';
import {
  CHANGES_PER_PAGE_DEFAULT,
  CHANGES_PER_PAGE_MAX,
  changesPerPage,
  decodeCursor,
  encodeCursor,
} from '../../core/sync/cursor.ts';
import { ChangesPageSchema } from './response.ts';
import { cursorExpired, readSyncPage } from '../../core/sync/service.ts';

const changes = endpoint({
  methods: ['GET'],
  summary: 'What changed after a sync cursor (incremental sync)',
  responses: {
    200: {
      description: 'The changes after the cursor, oldest first, and where to continue.',
      schema: ChangesPageSchema,
    },
    400: { description: 'Invalid parameter (per_page).' },
    410: {
      description:
        'The cursor is expired (older than the change-log retention), malformed, or not from this service (rest_sync_cursor_expired): list everything again.',
    },
  },
  args: {
    since: arg.string({
      description:
        'The cursor to continue from: X-Sync-Cursor of a list answer, or next_cursor of the previous page (opaque). Omitted: from the oldest retained change.',
    }),
    per_page: arg.integer({
      description: `At most this many changes (default ${CHANGES_PER_PAGE_DEFAULT}); larger values are lowered to ${CHANGES_PER_PAGE_MAX}.`,
      validate: positiveInteger,
      documentedDefault: () => CHANGES_PER_PAGE_DEFAULT,
    }),
  },
  async handler(ctx, params) {
    let since = null;
    if (params.since !== undefined) {
      since = decodeCursor(params.since);
      if (since === null) throw cursorExpired();
    }
    const page = await readSyncPage(ctx.store, ctx, since, changesPerPage(params.per_page));
    // D31: serialised entry by entry under the response budget (http/bounded-json.ts).
    return {
      body: { changes: new ItemStream(page.changes), next_cursor: encodeCursor(page.next), has_more: page.hasMore },
    };
  },
});

export function changeRoutes(): RouteGroup[] {
  return [{ path: '/changes', pattern: '/changes', endpoints: [changes] }];
}
