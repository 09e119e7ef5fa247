import { sql } from 'kysely';

/**
 * The end of a statement whose best plan depends on its values: a list's selection, where one category holds half the
 * events and another three, one window is a day and another ten years, one word is in every title and another in
 * none. PostgreSQL plans such a statement for its values at every execution (it is sent unnamed: postgres/
 * prepared-client.ts); every other statement keeps the plan PostgreSQL chose for its first executions, as a
 * prepared statement does by default (a read by primary key planned once instead of at every read). SQLite plans a
 * statement when it prepares it, whatever its values (sqlite/stable-plans.ts), and ignores the comment.
 */
export const PLANNED_PER_EXECUTION = '/* planned per execution */';

/** What a query builder's `modifyEnd` takes: the comment that marks its statement {@link PLANNED_PER_EXECUTION}. */
export const plannedPerExecution = sql.raw(PLANNED_PER_EXECUTION);

/** Whether `text` is a statement marked {@link PLANNED_PER_EXECUTION}. */
export const isPlannedPerExecution = (text: string): boolean => text.endsWith(PLANNED_PER_EXECUTION);
