// D25: how a list that keeps only the first occurrence of each series (`collapse_series=true`, the public pages) finds
// those firsts. Pure.
//
// Ranked: rank every occurrence the filters keep by series and keep each series' first. Its cost grows with the
// occurrences the filters keep, which an index-driven filter (a term, a venue, an organizer, a search, `include`, a
// place) narrows to few: it stays there.
// Per series: walk the single events apart (their own index) and probe each series' own rows, in start order, for
// its first occurrence the filters keep. Its cost grows with the single events the page passes and the number of
// series, not with their occurrences: a window of days over a hundred daily series ranked about 100,000 rows a page.
// For a list no index narrows (the window, the statuses, the reader's scope, flags read from the rows), where ranking
// reads every occurrence of the window anyway, a probe that reads a series' every row in the window is no worse.
import type { EventListPlan } from './list-query.ts';

export type SeriesCollapse = 'none' | 'ranked' | 'per-series';

export function seriesCollapseOf(
  plan: Pick<
    EventListPlan,
    | 'collapseSeries'
    | 'order'
    | 'searchTerms'
    | 'include'
    | 'categoryIds'
    | 'tagIds'
    | 'venueIds'
    | 'organizerIds'
    | 'near'
  >,
): SeriesCollapse {
  if (!plan.collapseSeries) return 'none';
  const narrowed =
    plan.searchTerms !== undefined ||
    plan.include !== undefined ||
    plan.categoryIds !== undefined ||
    plan.tagIds !== undefined ||
    plan.venueIds !== undefined ||
    plan.organizerIds !== undefined ||
    plan.near !== undefined;
  return narrowed || plan.order !== 'start' ? 'ranked' : 'per-series';
}
