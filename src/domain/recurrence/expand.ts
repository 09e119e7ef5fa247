/**
 * expandRecurrence: the occurrences of a parsed recurrence up to a horizon, in UTC and in the series' zone; with
 * `completeFiniteRules`, every occurrence of the rules that end (COUNT or UNTIL) and of RDATE, however far past it.
 *
 * Rules are expanded in wall-clock time (rule-iterator.ts) and each wall-clock start is converted with the service's
 * zone code, so a series keeps its local time across DST changes. A start inside a spring-forward gap moves forward by
 * the gap (D8: 02:30 on the New York change day is 03:30 EDT); a start in the repeated hour of a fall-back change is
 * its first occurrence (the earlier instant, as localToUtc reads it everywhere in the service). Local values are given
 * as that instant reads in the zone, exactly as event writes normalise them (resolveSchedule), so local and UTC always
 * agree.
 */
import type { Zone } from 'luxon';
import { wallClockInstant } from '../dates/wall-clock.ts';
import { offsetAt } from '../dates/zone-offsets.ts';
import { requireZone } from '../dates/zones.ts';
import {
  Budget,
  BudgetExhausted,
  DEFAULT_EXPANSION_BUDGET,
  DEFAULT_FINITE_BUDGET,
  DEFAULT_LOOKAHEAD_BUDGET,
  type ExpansionWork,
} from './budget.ts';
import { formatFloating, requireFloating, SECONDS_PER_DAY } from './civil.ts';
import { tooCostlyMessage, tooManyInAllMessage, tooManyMessage } from './messages.ts';
import { ruleStarts, type UntilTest } from './rule-iterator.ts';
import type {
  DateValue,
  Expansion,
  ExpansionOptions,
  OccurrenceTimes,
  ParsedRecurrence,
  RuleSpec,
  SeriesStart,
} from './types.ts';

/** How far past the horizon, in wall-clock time, a start can still be before it (zone offsets and gaps stay within this). */
const HORIZON_MARGIN_SECONDS = 2 * SECONDS_PER_DAY;

export interface ExpansionLimits {
  /** Work units up to the horizon and past it (see budget.ts); for tests. */
  budget?: number;
  lookahead?: number;
  finite?: number;
  /** Counts the walk's steps (see budget.ts); for tests. */
  work?: ExpansionWork;
}

interface Start {
  /** The nominal wall-clock start (floating seconds), as the rule or value gives it. */
  nominal: number;
  /** Its instant, UTC milliseconds. */
  instant: number;
}

export function expandRecurrence(
  recurrence: ParsedRecurrence,
  series: SeriesStart,
  options: ExpansionOptions,
  limits: ExpansionLimits = {},
): Expansion {
  const zone = requireZone(series.timezone);
  const dtstart = requireFloating(series.startLocal);
  const duration = Math.max(0, requireFloating(series.endLocal) - dtstart);
  const horizon = requireFloating(options.horizonUtc) * 1000;
  const horizonLocal = toLocal(horizon, zone);
  const bound = horizonLocal + HORIZON_MARGIN_SECONDS;
  const budget = new Budget(
    limits.budget ?? DEFAULT_EXPANSION_BUDGET,
    limits.lookahead ?? DEFAULT_LOOKAHEAD_BUDGET,
    limits.finite ?? DEFAULT_FINITE_BUDGET,
    bound,
    limits.work,
  );
  const completeFinite = options.completeFiniteRules ?? false;

  const excludedInstants = new Set<number>();
  const excludedDays = new Set<number>();
  for (const value of recurrence.exdates) {
    if (value.kind === 'date') excludedDays.add(value.days);
    else excludedInstants.add(instantOfValue(value, zone));
  }
  const isExcluded = (start: Start) =>
    excludedInstants.has(start.instant) || excludedDays.has(Math.floor(start.nominal / SECONDS_PER_DAY));

  // Every start seen, by instant (the first one seen of an instant stays), and those listed: up to the horizon, and
  // past it DTSTART and, with completeFiniteRules, the starts of finite rules and RDATE.
  const kept = new Map<number, Start>();
  const listed = new Set<number>();
  let complete = true;
  const add = (start: Start, listedPastHorizon: boolean): boolean => {
    if (isExcluded(start) || listed.has(start.instant)) return true;
    if (!kept.has(start.instant)) kept.set(start.instant, start);
    if (start.instant > horizon && !listedPastHorizon) {
      complete = false;
      return true;
    }
    listed.add(start.instant);
    return listed.size <= options.maxOccurrences;
  };
  const tooMany = (start: Start): Expansion => ({
    ok: false,
    reason: 'too_many',
    message:
      start.instant > horizon
        ? tooManyInAllMessage(options.maxOccurrences)
        : tooManyMessage(options.maxOccurrences, options.horizonUtc),
  });

  // DTSTART is always the first occurrence, even past the horizon, unless an EXDATE removes it.
  const first = { nominal: dtstart, instant: wallClockInstant(dtstart * 1000, zone) };
  add(first, true);

  const ruleLines = recurrence.lines.filter((line) => line.startsWith('RRULE:'));
  for (const [index, rule] of recurrence.rules.entries()) {
    const toItsEnd = completeFinite && (rule.count !== null || rule.until !== null);
    budget.walkingFinite = toItsEnd;
    const starts = ruleStarts(rule, dtstart, untilTest(rule, zone), budget);
    try {
      for (const nominal of starts) {
        budget.spend(1, nominal);
        const start = { nominal, instant: wallClockInstant(nominal * 1000, zone) };
        if (!add(start, toItsEnd)) return tooMany(start);
        if (!toItsEnd && nominal > bound && nominal !== dtstart) break; // one start past the horizon: the series continues
      }
    } catch (error) {
      if (!(error instanceof BudgetExhausted)) throw error;
      if (!error.lookahead)
        return { ok: false, reason: 'too_many', message: tooCostlyMessage(ruleLines[index] ?? 'RRULE') };
      complete = false; // it may continue: finding out would cost too much
    }
  }

  for (const value of recurrence.rdates) {
    const nominal =
      value.kind === 'date' ? value.days * SECONDS_PER_DAY : value.kind === 'floating' ? value.seconds : null;
    const start =
      nominal !== null
        ? { nominal, instant: wallClockInstant(nominal * 1000, zone) }
        : { nominal: toLocal(instantOfValue(value, zone), zone), instant: instantOfValue(value, zone) };
    if (!add(start, completeFinite)) return tooMany(start);
  }

  const starts = [...kept.values()].filter((start) => listed.has(start.instant));
  starts.sort((a, b) => a.instant - b.instant);
  return {
    ok: true,
    occurrences: starts.map((start) => occurrenceTimes(start, duration, series.allDay, zone)),
    complete,
  };
}

/** The UTC starts of an expansion, in order (empty for an error). */
export function utcStartsOf(expansion: Expansion): string[] {
  return expansion.ok ? expansion.occurrences.map((occurrence) => occurrence.startUtc) : [];
}

function occurrenceTimes(start: Start, duration: number, allDay: boolean, zone: Zone): OccurrenceTimes {
  const startLocal = toLocal(start.instant, zone);
  // The series' wall-clock duration from the start as it reads locally (an all-day series: from its nominal midnight,
  // so that it ends at 23:59:59 of its last day), converted on its own.
  const endNominal = (allDay ? start.nominal : startLocal) + duration;
  const endInstant = wallClockInstant(endNominal * 1000, zone);
  return {
    startLocal: formatFloating(startLocal),
    endLocal: formatFloating(toLocal(endInstant, zone)),
    startUtc: formatFloating(start.instant / 1000),
    endUtc: formatFloating(endInstant / 1000),
  };
}

/** The wall-clock time (floating seconds) of an instant (UTC milliseconds) in `zone`. */
export function toLocal(instant: number, zone: Zone): number {
  return instant / 1000 + offsetAt(zone, instant) * 60;
}

function instantOfValue(value: DateValue, zone: Zone): number {
  switch (value.kind) {
    case 'utc':
      return requireFloating(value.utc) * 1000;
    case 'floating':
      return wallClockInstant(value.seconds * 1000, zone);
    case 'date':
      return wallClockInstant(value.days * SECONDS_PER_DAY * 1000, zone);
  }
}

/** UNTIL in the series' terms: a date includes its whole local day; a UTC value is compared as an instant. */
export function untilTest(rule: RuleSpec, zone: Zone): UntilTest | null {
  const until = rule.until;
  if (until === null) return null;
  switch (until.kind) {
    case 'date': {
      const last = (until.days + 1) * SECONDS_PER_DAY;
      return (seconds) => seconds >= last;
    }
    case 'floating':
      return (seconds) => seconds > until.seconds;
    case 'utc': {
      const limit = requireFloating(until.utc) * 1000;
      return (seconds) => wallClockInstant(seconds * 1000, zone) > limit;
    }
  }
}
