import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { escapeLike } from '../text.ts';

/** PostgreSQL's lower() folds every letter its encoding (UTF-8) knows. */
export const lower = (expression: Expression<string> | RawBuilder<unknown>) => sql<string>`lower(${expression})`;

export function containsText(text: Expression<string> | RawBuilder<unknown>, needle: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${lower(text)} like ${`%${escapeLike(needle.toLowerCase())}%`} escape '\\'`;
}

/** The database's collation may follow a locale; "C" compares UTF-8 bytes, which is code-point order. */
export const orderByCodePoint = (expression: Expression<string> | RawBuilder<unknown>) =>
  sql<string>`${expression} collate "C"`;
