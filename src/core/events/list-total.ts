// Totals without scans (issue: every total without a scan): which totals of `GET /events` the occurrence counts
// answer (core/occurrences/counts.ts). Pure. A list the counts cover adds up a ledger row per key of its window
// instead of counting its rows; any other list (a search, a venue, several terms, a bound inside a day, an author's
// own drafts…) counts its rows, the smallest candidate set its filters select.
import { listVisibilityScope, type Viewer } from '../../domain/access.ts';
import { ALL_EVENTS, termDimension } from '../../domain/occurrence-counts.ts';
import type { CountedQuery } from '../occurrences/counts.ts';
import type { EventListPlan } from './list-query.ts';

const START_OF_DAY = ' 00:00:00';
const END_OF_DAY = ' 23:59:59';

/**
 * The counted query that gives the total of `plan` for `viewer`, besides the scheduled (`future`) rows, which the
 * caller counts apart (whether one is listed as published depends on the clock); undefined when the counts cannot.
 */
export function countedQueryOf(plan: EventListPlan, viewer: Viewer): CountedQuery | undefined {
  if (
    plan.searchTerms !== undefined ||
    plan.venueIds !== undefined ||
    plan.organizerIds !== undefined ||
    plan.featured !== undefined ||
    plan.include !== undefined ||
    plan.parentId !== undefined ||
    plan.modified !== undefined ||
    plan.geoloc !== undefined ||
    plan.near !== undefined ||
    plan.collapseSeries
  )
    return undefined;
  if (listVisibilityScope(viewer).scope === 'published-or-own') return undefined;

  let dimension = ALL_EVENTS;
  const termFilters = [plan.categoryIds, plan.tagIds].filter((ids) => ids !== undefined);
  if (termFilters.length > 1) return undefined;
  if (termFilters.length === 1) {
    if (termFilters[0].length !== 1) return undefined;
    dimension = termDimension(termFilters[0][0]);
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
  // The stored statuses the counts add up: a due scheduled row is `future` in storage and counted apart.
  const statuses = plan.statuses.filter((status) => status !== 'future');
  return { dimension, statuses, ...query };
}

/** Whether the list may show scheduled rows (as published once due, or as scheduled): the caller counts those rows. */
export const listsScheduledRows = (plan: EventListPlan) =>
  plan.statuses.includes('publish') || plan.statuses.includes('future');
