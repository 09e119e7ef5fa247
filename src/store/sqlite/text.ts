import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { escapeLike } from '../text.ts';

/** SQLite's own lower() only folds ASCII; D11 wants non-ASCII letters folded too. */
const LOWER = 'unicode_lower';

export function registerTextFunctions(database: BetterSqlite3.Database): void {
  database.function(LOWER, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}

export const lower = (expression: Expression<string> | RawBuilder<unknown>) =>
  sql<string>`${sql.raw(LOWER)}(${expression})`;

/**
 * SQLite's LIKE already ignores ASCII case, so the Unicode lower-casing (a call into JavaScript per row) is paid only
 * for needles with a non-ASCII character.
 */
export function containsText(text: Expression<string> | RawBuilder<unknown>, needle: string): RawBuilder<SqlBool> {
  const pattern = `%${escapeLike(needle.toLowerCase())}%`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, control characters included
  const asciiOnly = /^[\x00-\x7f]*$/.test(needle);
  return sql<SqlBool>`${asciiOnly ? text : lower(text)} like ${pattern} escape '\\'`;
}

/** SQLite's default BINARY collation compares UTF-8 bytes, which is code-point order. */
export const orderByCodePoint = (expression: Expression<string> | RawBuilder<unknown>) => sql<string>`${expression}`;
