// A list page's statements (its page of ids, with its total or without, and its count), built and compiled once per
// shape of list instead of for every request. Building a list's query with Kysely and compiling it took about a tenth
// of a list's CPU (a profile of windows of days: 9 % building, 3 % compiling), for a text that only the shape of the
// list decides: which filters it has and how many ids each names, its statuses and order, the reader's scope, whether
// it walks the list in order or starts from a known position. Its values (dates, ids, the time, the page's limit and
// offset) are bound. The builder is eventListQueries itself, given placeholders for the values (store/prepared-query.ts),
// so there is one definition of a list's SQL; a test compares every statement with the builder's own for random lists.
// A list whose shape is not taken here (a search, a place, `include`, collapsed series, an author's own scope) is built
// for its request as before: their builders derive SQL from the values (a search's patterns, a place's box).
import type { Compilable } from 'kysely';
import { listVisibilityScope, type Viewer } from '../../domain/access.ts';
import { preparedQuery, type PreparedQuery } from '../../store/prepared-query.ts';
import type { Store } from '../../store/store.ts';
import type { EventListPlan } from './list-query.ts';
import type { PageStart } from './page-seeks.ts';

/** Which of a list's statements: its page, its page with the total on every row, or its count. */
export type ListStatement = 'page' | 'pageWithTotal' | 'count';

/** The values a list's statement binds, as prepared-query.ts takes arguments: plain values, then lists. */
type ListArgs = [
  scalars: {
    nowUtc: string;
    limit: number;
    offset: number;
    parentId?: number;
    modifiedAfter?: string;
    modifiedBefore?: string;
  },
  dates: string[],
  categoryIds: number[],
  tagIds: number[],
  venueIds: number[],
  organizerIds: number[],
  after: (string | number)[],
];

type Row = Record<string, unknown>;

/** A statement as the builder gives it: compiled by a prepared list, run as it is by a list built per request. */
type BuiltStatement = Compilable<Row> & { execute(): Promise<unknown[]> };

/**
 * What the builder is given: the list and its start with placeholders for their values, the other values, and how the
 * page is found (walking the list in order for a popular term, core/events/store.ts).
 */
export type ListBuilder = (
  plan: EventListPlan,
  start: PageStart | undefined,
  values: { nowUtc: string; limit: number; offset: number; walkInOrder: boolean },
) => Record<ListStatement, BuiltStatement>;

/** Shapes kept per store; a store that sees more builds the others per request (shapes are few: filters × lengths). */
export const MAX_LIST_SHAPES = 500;

/**
 * The shape of a list's statement: everything its text depends on. Undefined for the lists built per request (their
 * builders derive text or values from the values themselves).
 */
export function listShapeKey(
  plan: EventListPlan,
  viewer: Viewer,
  statement: ListStatement,
  options: { seeking: boolean; walkInOrder: boolean },
): string | undefined {
  if (plan.searchTerms !== undefined || plan.include !== undefined || plan.near !== undefined || plan.collapseSeries)
    return undefined;
  // An author's scope binds the author's id; every other scope's text is the same for every reader who has it.
  const scope = listVisibilityScope(viewer).scope;
  if (scope !== 'all' && scope !== 'published-only') return undefined;
  const length = (ids: readonly number[] | undefined) => (ids === undefined ? null : ids.length);
  return JSON.stringify([
    statement,
    scope,
    plan.order,
    plan.statuses,
    plan.dates.map((condition) => [condition.column, condition.operator]),
    length(plan.categoryIds),
    length(plan.tagIds),
    length(plan.venueIds),
    length(plan.organizerIds),
    plan.featured ?? null,
    plan.geoloc ?? null,
    plan.parentId !== undefined,
    plan.modified?.after !== undefined,
    plan.modified?.before !== undefined,
    options.seeking,
    options.walkInOrder,
  ]);
}

/** The rows the page skips: from its known start when it seeks, else from the list's first row. */
const pageOffset = (plan: EventListPlan, start: PageStart | undefined) =>
  start !== undefined && plan.order === 'start' ? start.skip : (plan.page - 1) * plan.perPage;

/** The values of `plan` (and its start) in the order of {@link ListArgs}. */
function listArgs(plan: EventListPlan, start: PageStart | undefined, nowUtc: string): ListArgs {
  const seeking = start !== undefined && plan.order === 'start';
  const scalars: ListArgs[0] = {
    nowUtc,
    limit: plan.perPage,
    offset: pageOffset(plan, start),
    parentId: plan.parentId,
    modifiedAfter: plan.modified?.after,
    modifiedBefore: plan.modified?.before,
  };
  return [
    scalars,
    plan.dates.map((condition) => condition.value),
    plan.categoryIds ?? [],
    plan.tagIds ?? [],
    plan.venueIds ?? [],
    plan.organizerIds ?? [],
    seeking ? [start.after.start, start.after.published, start.after.id] : [],
  ];
}

/**
 * The list of `shape` with the values of `args`: the shape's own structure (its filters, their operators), the
 * arguments' values (placeholders while the statement is compiled, the values themselves for a list too long to keep).
 */
function withValues(
  shape: EventListPlan,
  shapeStart: PageStart | undefined,
  [scalars, dates, categoryIds, tagIds, venueIds, organizerIds, after]: ListArgs,
): { plan: EventListPlan; start: PageStart | undefined } {
  const plan: EventListPlan = {
    ...shape,
    dates: shape.dates.map((condition, index) => ({ ...condition, value: dates[index] })),
    categoryIds: shape.categoryIds && categoryIds,
    tagIds: shape.tagIds && tagIds,
    venueIds: shape.venueIds && venueIds,
    organizerIds: shape.organizerIds && organizerIds,
    parentId: shape.parentId === undefined ? undefined : scalars.parentId,
    modified:
      shape.modified === undefined
        ? undefined
        : {
            after: shape.modified.after === undefined ? undefined : scalars.modifiedAfter,
            before: shape.modified.before === undefined ? undefined : scalars.modifiedBefore,
          },
  };
  const start =
    shapeStart === undefined
      ? undefined
      : {
          ...shapeStart,
          after: { start: after[0] as string, published: after[1] as string, id: after[2] as number },
          skip: scalars.offset,
        };
  return { plan, start };
}

const prepared = new WeakMap<Store, Map<string, PreparedQuery<ListArgs, Row>>>();

/**
 * The prepared statement of lists shaped as `plan` on `store`, made from `build` the first time; undefined for a list
 * built per request ({@link listShapeKey}) or beyond {@link MAX_LIST_SHAPES}.
 */
function preparedFor(
  store: Store,
  viewer: Viewer,
  plan: EventListPlan,
  start: PageStart | undefined,
  statement: ListStatement,
  walkInOrder: boolean,
  build: ListBuilder,
): PreparedQuery<ListArgs, Row> | undefined {
  const seeking = start !== undefined && plan.order === 'start';
  const key = listShapeKey(plan, viewer, statement, { seeking, walkInOrder });
  if (key === undefined) return undefined;
  let shapes = prepared.get(store);
  if (shapes === undefined) {
    shapes = new Map();
    prepared.set(store, shapes);
  }
  let query = shapes.get(key);
  if (query === undefined) {
    if (shapes.size >= MAX_LIST_SHAPES) return undefined;
    // The first list of the shape gives its structure; every later one has the same (the key says all of it).
    const shape = plan;
    const shapeStart = seeking ? start : undefined;
    query = preparedQuery(
      (_db, ...args: ListArgs) => {
        const { plan: valued, start: valuedStart } = withValues(shape, shapeStart, args);
        const [scalars] = args;
        const values = { nowUtc: scalars.nowUtc, limit: scalars.limit, offset: scalars.offset, walkInOrder };
        return build(valued, valuedStart, values)[statement];
      },
      // A page's id lists (a category's descendants) and dates; the clock is unused where no status depends on it.
      { longestList: 32, unusedAllowed: true },
    );
    shapes.set(key, query);
  }
  return query;
}

/** What runs one of a list's statements: the store, the reader and the clock, the list and where its page starts. */
export interface ListStatementRequest {
  store: Store;
  viewer: Viewer;
  nowUtc: string;
  plan: EventListPlan;
  start?: PageStart;
  walkInOrder: boolean;
}

/** The rows of one of a list's statements: from its prepared statement, or built for this request. */
export async function listStatementRows<R>(
  request: ListStatementRequest,
  statement: ListStatement,
  build: ListBuilder,
): Promise<R[]> {
  const { store, nowUtc, plan, start, walkInOrder } = request;
  const query = preparedOf(request, statement, build);
  if (query === undefined) {
    const values = { nowUtc, limit: plan.perPage, offset: pageOffset(plan, start), walkInOrder };
    return (await build(plan, start, values)[statement].execute()) as R[];
  }
  return (await query.rows(store.db, ...listArgs(plan, start, nowUtc))) as R[];
}

/** The statement {@link listStatementRows} would run (for tests: it must be the builder's own, value for value). */
export function compiledListStatement(request: ListStatementRequest, statement: ListStatement, build: ListBuilder) {
  const { store, nowUtc, plan, start } = request;
  return preparedOf(request, statement, build)?.compile(store.db, ...listArgs(plan, start, nowUtc));
}

const preparedOf = (request: ListStatementRequest, statement: ListStatement, build: ListBuilder) =>
  preparedFor(request.store, request.viewer, request.plan, request.start, statement, request.walkInOrder, build);
