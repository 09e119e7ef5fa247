// `GET /events` (§4, D9–D14): the validated parameters become a plan — which conditions apply, in what order the
// events come, and what the list URLs echo — before any SQL is written. Pure, so the window rules are unit-tested.
import type { DateTime } from 'luxon';
import { listStatusesAllowed, type PostStatus, type Viewer } from '../../domain/access.ts';
import { defaultListWindow, inclusiveBound, strictBound } from '../../domain/dates/list-window.ts';
import { modifiedBounds, modifiedEcho, type ModifiedBounds } from '../../domain/dates/modified-bounds.ts';
import type { FieldIssue } from '../../domain/errors.ts';
import { clampPerPage, coerceTruthy, type EchoedQuery } from '../../domain/lists.ts';

export const DATE_PARAMS = [
  'start_date',
  'end_date',
  'starts_before',
  'starts_after',
  'ends_before',
  'ends_after',
] as const;
export type DateParam = (typeof DATE_PARAMS)[number];

/** One bound on an event's local (wall-clock) start or end, `column operator value`. */
export interface DateCondition {
  param: DateParam;
  column: 'start' | 'end';
  operator: '>=' | '<=' | '<' | '>';
  value: string;
}

const DATE_CONDITIONS: Record<DateParam, Pick<DateCondition, 'column' | 'operator'>> = {
  start_date: { column: 'start', operator: '>=' },
  end_date: { column: 'end', operator: '<=' },
  starts_before: { column: 'start', operator: '<' },
  starts_after: { column: 'start', operator: '>' },
  ends_before: { column: 'end', operator: '<' },
  ends_after: { column: 'end', operator: '>' },
};

const RELATIVE_BOUNDS: readonly DateParam[] = ['starts_before', 'starts_after', 'ends_before', 'ends_after'];

/**
 * §4.2 with D9. `include` drops every date condition. Otherwise, when any `starts_*`/`ends_*` is sent only the date
 * parameters sent apply; when none is, `start_date` and `end_date` default to the window of `defaultListWindow`.
 * Inclusive mode (the default) snaps `start_date` to 00:00:00 and every other bound to 23:59:59 of its date; strict
 * mode uses the values as given. Values are read in the site's zone (D8).
 */
export function dateConditions(
  sent: Partial<Record<DateParam, unknown>>,
  options: { strict: boolean; include: boolean },
  siteZone: string,
  now: DateTime,
): DateCondition[] {
  if (options.include) return [];
  const window = defaultListWindow(now, siteZone);
  const usesDefaults = !RELATIVE_BOUNDS.some((param) => sent[param] !== undefined);
  const conditions: DateCondition[] = [];
  for (const param of DATE_PARAMS) {
    let value: string | null;
    if (sent[param] !== undefined) {
      value = options.strict
        ? strictBound(sent[param], siteZone, now)
        : inclusiveBound(sent[param], param, siteZone, now);
    } else if (usesDefaults && (param === 'start_date' || param === 'end_date')) {
      value = param === 'start_date' ? window.start : window.end;
    } else {
      continue;
    }
    // The parameters were validated with the same zone and clock, so a value always reads here.
    if (value !== null) conditions.push({ param, ...DATE_CONDITIONS[param], value });
  }
  return conditions;
}

/** D31: as in WordPress, a search of more terms than this is searched as one phrase (the whole string). */
const MAX_SEARCH_TERMS = 9;

/**
 * §4.3: the search string as WordPress splits it — on spaces, tabs, commas and `+`, a double-quoted phrase staying
 * one term — lower-cased. Every term must appear in the title, the excerpt or the content. More than
 * {@link MAX_SEARCH_TERMS} terms are one phrase, the whole string (line breaks removed, as WordPress does), which
 * bounds the work per row (D31).
 */
export function searchTerms(search: string): string[] {
  const matches = search.match(/"[^"]*("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g) ?? [];
  const terms = matches.map((term) => term.replace(/^"|"$/g, '').trim().toLowerCase()).filter((term) => term !== '');
  if (terms.length <= MAX_SEARCH_TERMS) return terms;
  const phrase = search
    .replace(/[\r\n]/g, '')
    .trim()
    .toLowerCase();
  return phrase === '' ? [] : [phrase];
}

/** The coerced parameters of `GET /events` the plan reads. */
export interface EventListParams {
  page: number;
  per_page?: number;
  start_date?: unknown;
  end_date?: unknown;
  starts_before?: unknown;
  starts_after?: unknown;
  ends_before?: unknown;
  ends_after?: unknown;
  strict_dates?: unknown;
  search?: string;
  /** §11: the request's `password`; D33: a search also matches the content of protected events it unlocks. */
  password?: string;
  categories?: string[];
  tags?: string[];
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
  status?: string[];
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  geoloc_radius?: number;
  include?: number[];
  post_parent?: number;
  modified_after?: unknown;
  modified_before?: unknown;
  collapse_series?: boolean;
}

export interface PlanContext {
  viewer: Viewer;
  siteZone: string;
  now: DateTime;
  perPageDefault: number;
  perPageMax: number;
  /** The term ids the `categories`/`tags` values name (descendants of categories included), resolved by validation. */
  categoryIds?: number[];
  tagIds?: number[];
}

export interface EventListPlan {
  page: number;
  perPage: number;
  dates: DateCondition[];
  searchTerms?: string[];
  /** D33: the request's `password`, with which a search matches the excerpt and content of the events it unlocks. */
  searchPassword?: string;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  /** Effective statuses (D17), already restricted to what the caller may ask for. */
  statuses: PostStatus[];
  include?: number[];
  parentId?: number;
  /** D24: bounds on the post's `modified_utc` (after: exclusive, before: inclusive). */
  modified?: ModifiedBounds;
  /** D13: true keeps events whose venue has coordinates, false those whose venue has none (or that have no venue). */
  geoloc?: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  /** D25: only the first matching occurrence of each series. */
  collapseSeries: boolean;
  /** §4.4: by start (then publication date, then id), or, with `include`, by publication date then id. */
  order: 'start' | 'publication';
  /** What `rest_url` and the page links carry (D11): every effective filter, §4.5's order first. */
  echo: EchoedQuery;
}

export const DEFAULT_RADIUS_KM = 25;

/** D13: the latitude and longitude filters come as a pair; the issue names the missing one. */
export function coordinateIssue(
  params: Pick<EventListParams, 'geoloc_lat' | 'geoloc_lng'>,
): Record<string, FieldIssue> | null {
  const hasLat = params.geoloc_lat !== undefined;
  if (hasLat === (params.geoloc_lng !== undefined)) return null;
  const missing = hasLat ? 'geoloc_lng' : 'geoloc_lat';
  return {
    [missing]: {
      code: 'rest_missing_coordinate',
      message: 'geoloc_lat and geoloc_lng must be sent together.',
      data: { param: missing },
    },
  };
}

const csv = (values: ReadonlyArray<string | number> | undefined) => values?.join(',');
const flag = (value: boolean | undefined) => (value === undefined ? undefined : value ? 1 : 0);

export function planEventList(params: EventListParams, context: PlanContext): EventListPlan {
  const perPage = clampPerPage(params.per_page, context.perPageDefault, context.perPageMax);
  const strict = params.strict_dates !== undefined && coerceTruthy(params.strict_dates) === true;
  const include = params.include !== undefined;
  const dates = dateConditions(params, { strict, include }, context.siteZone, context.now);
  const access = listStatusesAllowed(context.viewer, params.status);
  // Validation refused the statuses this caller may not ask for.
  const statuses = access.ok ? access.statuses : ['publish' as const];
  const near =
    params.geoloc_lat !== undefined && params.geoloc_lng !== undefined
      ? { lat: params.geoloc_lat, lng: params.geoloc_lng, radiusKm: params.geoloc_radius ?? DEFAULT_RADIUS_KM }
      : undefined;

  const modified = modifiedBounds(params, context.siteZone, context.now);
  const dateValue = (param: DateParam) => dates.find((condition) => condition.param === param)?.value;
  const defaultStatus = listStatusesAllowed(context.viewer, undefined);
  const echo: EchoedQuery = [
    ['page', params.page],
    ['per_page', perPage],
    ['start_date', dateValue('start_date')],
    ['end_date', dateValue('end_date')],
    ['search', params.search],
    ['status', csv(params.status) ?? (defaultStatus.ok && defaultStatus.statuses.length === 1 ? 'publish' : 'any')],
    ['post_parent', params.post_parent],
    ['include', csv(params.include)],
    ...RELATIVE_BOUNDS.map((param): [string, string | undefined] => [param, dateValue(param)]),
    ['venue', csv(params.venue)],
    ['organizer', csv(params.organizer)],
    ['featured', flag(params.featured)],
    ['categories', csv(params.categories)],
    ['tags', csv(params.tags)],
    ['strict_dates', strict && !include ? 1 : undefined],
    ['geoloc', flag(params.geoloc)],
    ['geoloc_lat', near?.lat],
    ['geoloc_lng', near?.lng],
    ['geoloc_radius', near?.radiusKm],
    ...modifiedEcho(modified),
    ['collapse_series', params.collapse_series ? 1 : undefined],
  ];

  return {
    page: params.page,
    perPage,
    dates,
    searchTerms: params.search === undefined ? undefined : searchTerms(params.search),
    searchPassword: params.search === undefined ? undefined : params.password,
    categoryIds: params.categories === undefined ? undefined : (context.categoryIds ?? []),
    tagIds: params.tags === undefined ? undefined : (context.tagIds ?? []),
    venueIds: params.venue,
    organizerIds: params.organizer,
    featured: params.featured,
    statuses,
    include: params.include,
    parentId: params.post_parent,
    modified: modified.after === undefined && modified.before === undefined ? undefined : modified,
    geoloc: params.geoloc,
    near,
    collapseSeries: params.collapse_series === true,
    order: include ? 'publication' : 'start',
    echo,
  };
}
