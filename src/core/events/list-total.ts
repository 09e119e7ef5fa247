// Totals without scans (issue: every total without a scan): which totals of `GET /events` the occurrence counts
// answer (core/occurrences/counts.ts). Pure. A list the counts cover (all events, or one category, tag, venue,
// organizer or place) adds up a ledger row per key of its window instead of counting its rows; any other list (a search,
// several terms, a venue and a category, a bound inside a day, an author's own drafts…) counts its rows, the smallest
// candidate set its filters select.
import { listVisibilityScope, type Viewer } from '../../domain/access.ts';
import { ALL_EVENTS, organizerDimension, termDimension, venueDimension } from '../../domain/occurrence-counts.ts';
import { isRowId } from '../../store/store.ts';
import type { CountedQuery } from '../occurrences/counts.ts';
import type { EventListPlan } from './list-query.ts';

const START_OF_DAY = ' 00:00:00';
const END_OF_DAY = ' 23:59:59';

/** The counted query that gives the total of `plan` for `viewer` at `nowUtc`; undefined when the counts cannot. */
export function countedQueryOf(plan: EventListPlan, viewer: Viewer, nowUtc: string): CountedQuery | undefined {
  if (
    plan.searchTerms !== undefined ||
    plan.featured !== undefined ||
    plan.include !== undefined ||
    plan.parentId !== undefined ||
    plan.modified !== undefined ||
    plan.geoloc !== undefined ||
    plan.collapseSeries
  )
    return undefined;
  if (listVisibilityScope(viewer).scope === 'published-or-own') return undefined;

  // One dimension at most: one category, tag, venue or organizer. A venue or organizer counts only when the caller
  // may read it (the list itself holds nothing then): the query names it for that check.
  const filters = (
    [
      [plan.categoryIds, termDimension],
      [plan.tagIds, termDimension],
      [plan.venueIds, venueDimension, 'venue'],
      [plan.organizerIds, organizerDimension, 'organizer'],
    ] as const
  ).filter(([ids]) => ids !== undefined);
  let dimension = ALL_EVENTS;
  let linked: CountedQuery['linked'];
  // A place is the sum of its venues' dimensions: then no other.
  if (filters.length > (plan.near === undefined ? 1 : 0)) return undefined;
  if (filters.length === 1) {
    const [ids, dimensionOf, type] = filters[0];
    // D31: an id beyond 32 bits names nothing the database can compare; the rows are counted then (and find none).
    if (ids === undefined || ids.length !== 1 || !isRowId(ids[0])) return undefined;
    dimension = dimensionOf(ids[0]);
    if (type !== undefined) linked = { type, id: ids[0] };
  }

  const query: { fromDay?: string; toDay?: string } = {};
  for (const condition of plan.dates) {
    const day = condition.value.slice(0, 10);
    if (condition.param === 'start_date' && condition.operator === '>=' && condition.value === day + START_OF_DAY) {
      query.fromDay = query.fromDay === undefined || day > query.fromDay ? day : query.fromDay;
    } else if (condition.param === 'end_date' && condition.operator === '<=' && condition.value === day + END_OF_DAY) {
      query.toDay = query.toDay === undefined || day < query.toDay ? day : query.toDay;
    } else {
      return undefined;
    }
  }
  return {
    dimension,
    statuses: plan.statuses,
    nowUtc,
    ...query,
    ...(linked ? { linked } : {}),
    ...(plan.near ? { near: plan.near } : {}),
  };
}
