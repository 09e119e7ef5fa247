/**
 * Recurring events (D25): parsing `recurrence` lines, expanding them into occurrences, splitting a series in two, and
 * planning what becomes of a series' occurrences. Pure: no database, no HTTP.
 */
export type {
  DateValue,
  Expansion,
  ExpansionOptions,
  Frequency,
  OccurrenceTimes,
  ParsedRecurrence,
  RecurrenceLineError,
  RecurrenceParse,
  RuleSpec,
  SeriesStart,
  WeekdayNum,
} from './types.ts';
export { MAX_RECURRENCE_LINE_LENGTH, MAX_RECURRENCE_LINES, parseRecurrence } from './parse.ts';
export { expandRecurrence, utcStartsOf, type ExpansionLimits } from './expand.ts';
export { describeRecurrenceError, RECURRENCE_ERROR_CODE } from './messages.ts';
export { splitRecurrence, type SeriesSplit, type SplitResult } from './split.ts';
export {
  CANCELLED,
  expandForMaterialising,
  extensionDue,
  materialiseHorizon,
  planSeriesSync,
  planSplit,
  type Materialised,
  type MaterialisedRule,
  type MaterialiseLimits,
  type PlannedSeries,
  type SeriesMemberState,
  type SeriesPlan,
  type SplitPlan,
  type SplitPlanInput,
} from './series-plan.ts';
