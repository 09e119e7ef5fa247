// D24 `modified_after` / `modified_before` at the HTTP edge: their arguments, and the filter of the venue and organizer
// lists. The bounds themselves (what the values mean) are domain/dates/modified-bounds.ts.
import type { DateTime } from 'luxon';
import type { SqlBool } from 'kysely';
import { sql } from 'kysely';
import { modifiedBounds, modifiedEcho } from '../../domain/dates/modified-bounds.ts';
import { modifiedArgs } from '../../core/posts/input.ts';
import type { ListFilter } from '../linked/routes.ts';

/** The filter of the venue and organizer lists (their `posts` row is the item). */
export function modifiedListFilter(): ListFilter {
  const bounds = (params: Record<string, unknown>, ctx: { config: { siteTimezone: string }; now: DateTime }) =>
    modifiedBounds(params, ctx.config.siteTimezone, ctx.now);
  return {
    args: modifiedArgs,
    where(params, ctx) {
      const { after, before } = bounds(params, ctx);
      const conditions = [
        ...(after === undefined ? [] : [sql<SqlBool>`${sql.ref('posts.modified_utc')} > ${after}`]),
        ...(before === undefined ? [] : [sql<SqlBool>`${sql.ref('posts.modified_utc')} <= ${before}`]),
      ];
      return conditions.length === 0 ? undefined : sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
    },
    echo: (params, ctx) => modifiedEcho(bounds(params, ctx)),
  };
}
