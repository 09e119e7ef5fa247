/** Ids (bound parameters) per `in (…)` statement: far below SQLite's and PostgreSQL's limits. */
export const IDS_PER_STATEMENT = 500;

/** `items` in order, in consecutive slices of at most `size`; none for no items. */
export function chunks<T>(items: readonly T[], size = IDS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}
