import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { listVisibilityScope, type PostStatus, type Viewer } from '../../domain/access.ts';
import type { Database } from '../../store/schema.ts';

type PostsScope = ExpressionBuilder<Database, 'posts'>;

/** Rows whose effective status (D17: a due `future` is `publish`) is one of `statuses`. */
export function hasEffectiveStatus(eb: PostsScope, statuses: readonly PostStatus[], nowUtc: string): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  const plain = statuses.filter((status) => status !== 'publish' && status !== 'future');
  if (plain.length > 0) conditions.push(eb('posts.status', 'in', plain));
  if (statuses.includes('publish')) {
    conditions.push(eb('posts.status', '=', 'publish'));
    conditions.push(eb.and([eb('posts.status', '=', 'future'), eb('posts.date_utc', '<=', nowUtc)]));
  }
  if (statuses.includes('future')) {
    conditions.push(eb.and([eb('posts.status', '=', 'future'), eb('posts.date_utc', '>', nowUtc)]));
  }
  return eb.or(conditions);
}

/** The status filter plus D19: a list shows a caller only what that caller could open by id. */
export function visibleInList(eb: PostsScope, viewer: Viewer, statuses: readonly PostStatus[], nowUtc: string): Expression<SqlBool> {
  const requested = hasEffectiveStatus(eb, statuses, nowUtc);
  const scope = listVisibilityScope(viewer);
  switch (scope.scope) {
    case 'all':
      return requested;
    case 'published-only':
      return eb.and([requested, hasEffectiveStatus(eb, ['publish'], nowUtc)]);
    case 'published-or-own':
      return eb.and([requested, eb.or([hasEffectiveStatus(eb, ['publish'], nowUtc), eb('posts.author_id', '=', scope.authorId)])]);
  }
}
