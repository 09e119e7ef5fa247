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
// reads every occurrence of the window anyway, a probe that reads a series' every row in the window is no worse. A list
// narrowed by one category, tag, venue or organizer ranks what it keeps, unless the occurrence counts say that is most
// of the window (probesEachSeries): a category holding a hundred daily series ranked them all, where probing reads
// each series' first rows and walks the list in order, checking the category row by row.
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

/**
 * For a list narrowed by one dimension the counts keep: whether probing each series reads fewer rows than ranking
 * what the filter keeps. Ranking reads the filter's `matches` in the window; probing, at most the rows the filter
 * leaves out (`windowRows - matches`, each checked and passed) beside one probe per series.
 */
export function probesEachSeries({ matches, windowRows }: { matches: number; windowRows: number }): boolean {
  return matches > 0 && windowRows - matches < matches;
}
