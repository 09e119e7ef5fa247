/**
 * The series plan (D25): what becomes of a recurring series' occurrences when its rule or dates change, when it is
 * split (`scope=following`), and when its horizon moves: which occurrences to create, which existing ones keep their
 * id and take new dates, which to delete and which to leave as they are, and how far the series is then materialised.
 * Pure: plain data in, a plan out; no database and no clock (now and the horizon are inputs). The series service
 * (src/core/events/series.ts) reads the inputs, asks for the plan and applies it.
 *
 * An occurrence is named in its series by its original start (the start the rule gave it), whatever its dates are
 * now: while the rule still gives that start, the occurrence keeps its id and what was edited on it alone.
 */
import { formatFloating, requireFloating, SECONDS_PER_DAY } from './civil.ts';
import { expandRecurrence } from './expand.ts';
import { parseRecurrence } from './parse.ts';
import { splitRecurrence } from './split.ts';
import type { OccurrenceTimes, ParsedRecurrence, SeriesStart } from './types.ts';

/** The override that marks a cancelled occurrence: trashed, and its start is an EXDATE of the series. */
export const CANCELLED = 'cancelled';
/** The override of an occurrence whose dates were edited on it alone: series changes leave its dates alone. */
const DATES = 'dates';

/** The series' own row, as its occurrences see it: they take its zone and kind, and its own start is none of theirs. */
export interface PlannedSeries {
  timezone: string;
  allDay: boolean;
  /** Its start (UTC): the series' own row is that occurrence. */
  startUtc: string;
}

/** An occurrence of the series other than its own row, as stored. */
export interface SeriesMemberState {
  id: number;
  /** The start the rule gave it (UTC `YYYY-MM-DD HH:MM:SS`), which names it in the series whatever its dates are now. */
  occurrenceStartUtc: string;
  /** What was edited on it alone (`dates`, `title`, …), and {@link CANCELLED} when it was cancelled. */
  overrides: readonly string[];
  /** Its dates as they are now. */
  startLocal: string;
  endLocal: string;
  timezone: string;
  allDay: boolean;
}

/** The occurrences the series' rule gives now, as far as they are materialised ({@link expandForMaterialising}). */
export interface MaterialisedRule {
  occurrences: readonly OccurrenceTimes[];
  /** How far they go; null when the rule is complete (nothing is ever to be added as days pass). */
  horizonUtc: string | null;
}

export interface SeriesPlan {
  /** The series' horizon once the plan is applied (null: complete). */
  horizonUtc: string | null;
  /** New occurrences at these times, in start order. */
  create: OccurrenceTimes[];
  /** Members that keep their id and edits, and take these dates (with the series' zone and kind), in start order. */
  move: Array<{ id: number; times: OccurrenceTimes }>;
  /** Members whose start is no longer the series': gone. */
  delete: number[];
  /** Members left exactly as they are: their dates already right or edited on their own, or cancelled. */
  keep: number[];
}

/** How a stored or written rule is expanded to be materialised. */
export interface MaterialiseLimits {
  /** Open-ended rules are materialised up to here ({@link materialiseHorizon}). */
  horizonUtc: string;
  /** More occurrences than this in all (finite rules and RDATE to their end) is an error for a rule being written. */
  maxOccurrences: number;
  /**
   * For a rule already stored: past `maxOccurrences` in all it is expanded up to the horizon only, with at most this
   * many (it outgrew the maximum as days passed, and following it must not fail). Absent for a rule being written.
   */
  storedCeiling?: number;
}

export type Materialised = ({ ok: true } & MaterialisedRule) | { ok: false; message: string };

/**
 * How far a series is materialised: `horizonDays` from now, or from its start when it starts later (a series that
 * begins in three years still has its first two years of occurrences).
 */
export function materialiseHorizon(nowUtc: string, seriesStartUtc: string, horizonDays: number): string {
  return formatFloating(
    Math.max(requireFloating(nowUtc), requireFloating(seriesStartUtc)) + horizonDays * SECONDS_PER_DAY,
  );
}

/** Series materialised only up to before this are due to be extended: their horizon fell more than a day behind. */
export function extensionDue(nowUtc: string, horizonDays: number): string {
  return formatFloating(requireFloating(nowUtc) + (horizonDays - 1) * SECONDS_PER_DAY);
}

/**
 * The occurrences to materialise of a rule: every one of its finite rules (COUNT or UNTIL) and extra dates (RDATE),
 * however far ahead, those of open-ended rules up to the horizon; and that horizon when the series goes on.
 */
export function expandForMaterialising(
  recurrence: ParsedRecurrence,
  series: SeriesStart,
  limits: MaterialiseLimits,
): Materialised {
  const { horizonUtc, maxOccurrences, storedCeiling } = limits;
  const whole = expandRecurrence(recurrence, series, { horizonUtc, maxOccurrences, completeFiniteRules: true });
  const expansion =
    whole.ok || storedCeiling === undefined
      ? whole
      : expandRecurrence(recurrence, series, { horizonUtc, maxOccurrences: storedCeiling });
  if (!expansion.ok) return { ok: false, message: expansion.message };
  return { ok: true, occurrences: expansion.occurrences, horizonUtc: expansion.complete ? null : horizonUtc };
}

/**
 * A series' occurrences brought in line with its rule and dates: a member whose original start the rule still gives
 * keeps its id and edits and, unless its dates were edited on it or it is cancelled, takes the new dates; one whose
 * start the rule no longer gives is deleted, unless it is cancelled (it stays cancelled, in the trash); every start
 * without a member gets a new occurrence. A second member at one start (none is ever made) is not the series' either:
 * it is deleted too.
 *
 * The one plan for every change: after a create or an edit of the rule or dates, and when the horizon moves (days
 * passed, the rule expanded to the later horizon), where it creates the new starts past the previous horizon and
 * nothing else in a series materialised up to it (a series stored before finite rules were materialised in full may
 * lack starts before it: they are filled in too).
 */
export function planSeriesSync(
  series: PlannedSeries,
  rule: MaterialisedRule,
  members: readonly SeriesMemberState[],
): SeriesPlan {
  const byStart = new Map<string, SeriesMemberState>();
  for (const member of members)
    if (!byStart.has(member.occurrenceStartUtc)) byStart.set(member.occurrenceStartUtc, member);
  const plan: SeriesPlan = { horizonUtc: rule.horizonUtc, create: [], move: [], delete: [], keep: [] };
  const inSeries = new Set<number>();
  for (const times of rule.occurrences) {
    if (times.startUtc === series.startUtc) continue;
    const member = byStart.get(times.startUtc);
    if (member === undefined) {
      plan.create.push(times);
      continue;
    }
    inSeries.add(member.id);
    if (followsSeriesDates(member) && datesDiffer(member, series, times)) plan.move.push({ id: member.id, times });
  }
  const moved = new Set(plan.move.map(({ id }) => id));
  for (const member of members) {
    if (inSeries.has(member.id) || isCancelled(member)) {
      if (!moved.has(member.id)) plan.keep.push(member.id);
    } else {
      plan.delete.push(member.id);
    }
  }
  return plan;
}

export interface SplitPlanInput {
  /** The series' stored lines, parsed against its own schedule. */
  recurrence: ParsedRecurrence;
  series: SeriesStart & { startUtc: string };
  /** The member the series is split at. */
  occurrence: { id: number; occurrenceStartUtc: string };
  /** Where that occurrence starts after the edit. */
  newStart: Pick<SeriesStart, 'timezone' | 'allDay' | 'startLocal'>;
  /** Every member of the series, the occurrence split at included. */
  members: readonly SeriesMemberState[];
  /** How the series before the split is materialised again. */
  limits: MaterialiseLimits;
}

export type SplitPlan =
  | {
      ok: true;
      /** The lines of the series before the split (it ends just before the occurrence). */
      before: string[];
      /** The lines of the series from the split, whose own row is the occurrence: its other occurrences are all new. */
      following: string[];
      /** The occurrence, which leaves the series to become the series from the split (keeping its id). */
      detached: number;
      /** The series before the split: its members from the split on leave it (deleted; cancelled ones stay as they are). */
      beforeSplit: SeriesPlan;
    }
  | { ok: false; message: string };

/**
 * D25 `scope=following` (splitRecurrence): the series ends before the occurrence, and the occurrence becomes the first
 * of a new series with the rest of the rule. The old series' members from the split on, exceptions included, are
 * gone, as in Google Calendar's "this and following events"; those of its extra dates (RDATE) stay with it.
 */
export function planSplit(input: SplitPlanInput): SplitPlan {
  const { recurrence, series, occurrence, newStart, members, limits } = input;
  const split = splitRecurrence({ recurrence, series, occurrenceStartUtc: occurrence.occurrenceStartUtc, newStart });
  if (!split.ok) return split;
  const parsed = parseRecurrence(split.before, series);
  if (!parsed.ok) return { ok: false, message: `${parsed.line}: ${parsed.message}` };
  if (parsed.recurrence === null) return { ok: false, message: 'recurrence: empty' };
  const rule = expandForMaterialising(parsed.recurrence, series, limits);
  if (!rule.ok) return rule;
  const remaining = members.filter((member) => member.id !== occurrence.id);
  return {
    ok: true,
    before: split.before,
    following: split.following,
    detached: occurrence.id,
    beforeSplit: planSeriesSync(series, rule, remaining),
  };
}

const isCancelled = (member: SeriesMemberState) => member.overrides.includes(CANCELLED);
const followsSeriesDates = (member: SeriesMemberState) => !isCancelled(member) && !member.overrides.includes(DATES);

const datesDiffer = (member: SeriesMemberState, series: PlannedSeries, times: OccurrenceTimes) =>
  member.startLocal !== times.startLocal ||
  member.endLocal !== times.endLocal ||
  member.timezone !== series.timezone ||
  member.allDay !== series.allDay;
