// The list plan of a request's filters, shared by every surface that lists events (the API list, feeds, pages): the
// category and tag names resolved (once per request), then the pure plan of list-query.ts. It reads only: open-ended
// series are brought up to the rolling horizon in the background (core/background/series-horizons.ts), never by a list.
import type { Viewer } from '../../domain/access.ts';
import type { RequestContext } from '../../http/context.ts';
import { planEventList, type EventListParams, type EventListPlan } from '../../core/events/list-query.ts';
import { filterTermIds } from '../../core/events/input.ts';

export async function planListRequest(
  ctx: RequestContext,
  params: EventListParams,
  viewer: Viewer = ctx.viewer,
): Promise<EventListPlan> {
  const [categoryIds, tagIds] = await Promise.all([
    params.categories && filterTermIds(ctx, 'event_category', params.categories),
    params.tags && filterTermIds(ctx, 'event_tag', params.tags),
  ]);
  return planEventList(params, {
    viewer,
    siteZone: ctx.config.siteTimezone,
    now: ctx.now,
    perPageDefault: ctx.config.perPageDefault,
    perPageMax: ctx.config.perPageMax,
    categoryIds: categoryIds ?? undefined,
    tagIds: tagIds ?? undefined,
  });
}
