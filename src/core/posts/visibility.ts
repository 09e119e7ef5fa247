import { DynamicModule, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { listVisibilityScope, type PostStatus, type Viewer } from '../../domain/access.ts';

/** The columns of StatusColumns are chosen at run time: Kysely's dynamic references take them as written. */
const dynamic = new DynamicModule();

/**
 * Where a query finds an item's status, publication date and author: the `posts` row, or copies of them kept on
 * another table (event lists read them from `occurrences`, so that a page needs no join).
 */
export interface StatusColumns {
  status: string;
  publishedUtc: string;
  author: string;
}

export const POST_COLUMNS: StatusColumns = {
  status: 'posts.status',
  publishedUtc: 'posts.date_utc',
  author: 'posts.author_id',
};

/** Rows whose effective status (D17: a due `future` is `publish`) is one of `statuses`. */
export function hasEffectiveStatus<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  statuses: readonly PostStatus[],
  nowUtc: string,
  columns = POST_COLUMNS,
): Expression<SqlBool> {
  const status = dynamic.ref(columns.status);
  const publishedUtc = dynamic.ref(columns.publishedUtc);
  const conditions: Expression<SqlBool>[] = [];
  const plain = statuses.filter((candidate) => candidate !== 'publish' && candidate !== 'future');
  if (plain.length > 0) conditions.push(eb(status, 'in', plain));
  if (statuses.includes('publish')) {
    conditions.push(eb(status, '=', 'publish'));
    conditions.push(eb.and([eb(status, '=', 'future'), eb(publishedUtc, '<=', nowUtc)]));
  }
  if (statuses.includes('future')) {
    conditions.push(eb.and([eb(status, '=', 'future'), eb(publishedUtc, '>', nowUtc)]));
  }
  return eb.or(conditions);
}

/** The status filter plus D19: a list shows a caller only what that caller could open by id. */
export function visibleInList<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  viewer: Viewer,
  statuses: readonly PostStatus[],
  nowUtc: string,
  columns = POST_COLUMNS,
): Expression<SqlBool> {
  const requested = hasEffectiveStatus(eb, statuses, nowUtc, columns);
  const scope = listVisibilityScope(viewer);
  switch (scope.scope) {
    case 'all':
      return requested;
    case 'published-only':
      return eb.and([requested, hasEffectiveStatus(eb, ['publish'], nowUtc, columns)]);
    case 'published-or-own':
      return eb.and([
        requested,
        eb.or([
          hasEffectiveStatus(eb, ['publish'], nowUtc, columns),
          eb(dynamic.ref(columns.author), '=', scope.authorId),
        ]),
      ]);
  }
}
