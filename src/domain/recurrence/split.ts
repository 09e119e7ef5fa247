/**
 * splitRecurrence: the lines of the two series that D25's `scope=following` makes of one, when an occurrence is edited
 * "and following" (as Google Calendar's "this and following events"). Pure: no database, no clock.
 *
 * The series before the split ends just before the occurrence. The series from the split starts at the occurrence's
 * new start and keeps the rest of each rule, moved with it: a COUNT keeps the occurrences the rule had left (COUNT
 * minus those before the split), an UNTIL moves by as much as the start moved, an open-ended rule stays open. The
 * move is measured in wall-clock time (new local start − the occurrence's original local start) and applied to
 * wall-clock values, so a series moved across a DST change, or to another zone, keeps its last occurrence. EXDATEs at
 * or after the split move the same way (a cancelled occurrence stays cancelled); the ones before it are left out, as
 * a start moved earlier would otherwise meet them. RDATEs stay with the series before the split.
 */
import type { Zone } from 'luxon';
import { basicUtc } from '../dates/stored-format.ts';
import { wallClockInstant } from '../dates/wall-clock.ts';
import { requireZone } from '../dates/zones.ts';
import { Budget, BudgetExhausted, DEFAULT_EXPANSION_BUDGET, DEFAULT_FINITE_BUDGET } from './budget.ts';
import { formatFloating, requireFloating, SECONDS_PER_DAY } from './civil.ts';
import { toLocal, untilTest } from './expand.ts';
import { tooCostlyMessage } from './messages.ts';
import { ruleStarts } from './rule-iterator.ts';
import type { DateValue, ParsedRecurrence, RuleSpec, SeriesStart } from './types.ts';

export interface SeriesSplit {
  /** The series' lines as stored (parsed against `series`). */
  recurrence: ParsedRecurrence;
  /** The series being split: its zone, kind and first occurrence. */
  series: SeriesStart;
  /** The original start (UTC `YYYY-MM-DD HH:MM:SS`) of the occurrence the series is split at. */
  occurrenceStartUtc: string;
  /** Where the series from the split starts: the occurrence's zone, kind and local start after the edit. */
  newStart: Pick<SeriesStart, 'timezone' | 'allDay' | 'startLocal'>;
}

export type SplitResult = { ok: true; before: string[]; following: string[] } | { ok: false; message: string };

/** Values per regenerated EXDATE line: 50 UTC date-times are 850 characters, under the line limit (parse.ts). */
const VALUES_PER_LINE = 50;

export function splitRecurrence(split: SeriesSplit, limits: { budget?: number } = {}): SplitResult {
  const { recurrence, series, newStart } = split;
  const oldZone = requireZone(series.timezone);
  const newZone = requireZone(newStart.timezone);
  const dtstart = requireFloating(series.startLocal);
  const splitInstant = requireFloating(split.occurrenceStartUtc) * 1000;
  const splitLocal = toLocal(splitInstant, oldZone);
  // An all-day series moves by whole days, from the midnight of its day (one in a DST gap reads 01:00).
  const wallClock = (local: number, allDay: boolean) =>
    allDay ? Math.floor(local / SECONDS_PER_DAY) * SECONDS_PER_DAY : local;
  const move = wallClock(requireFloating(newStart.startLocal), newStart.allDay) - wallClock(splitLocal, series.allDay);
  const moved = move !== 0 || newStart.timezone !== series.timezone || newStart.allDay !== series.allDay;

  const endBefore = series.allDay
    ? `UNTIL=${dateText(Math.floor(splitLocal / SECONDS_PER_DAY) - 1)}`
    : `UNTIL=${basicUtc(formatFloating(splitInstant / 1000 - 1))}`;
  const target = { zone: newZone, allDay: newStart.allDay };
  // The counting walk covers what the expansion that produced the occurrence walked, up to the horizon and past it
  // (finite rules are expanded to their end): the same allowances suffice.
  const budget = new Budget(limits.budget ?? DEFAULT_EXPANSION_BUDGET + DEFAULT_FINITE_BUDGET, 0, 0, Infinity);

  const before: string[] = [];
  const followingRules: string[] = [];
  let ruleIndex = 0;
  for (const line of recurrence.lines) {
    if (!line.startsWith('RRULE:')) {
      before.push(line);
      continue;
    }
    const rule = recurrence.rules[ruleIndex++];
    let endsBefore: boolean;
    let followingEnd: string | null = null;
    if (rule.count !== null) {
      let counted: number;
      try {
        counted = occurrencesBefore(rule, dtstart, splitInstant, oldZone, budget);
      } catch (error) {
        if (error instanceof BudgetExhausted) return { ok: false, message: tooCostlyMessage(line) };
        throw error;
      }
      endsBefore = counted >= rule.count;
      followingEnd = `COUNT=${rule.count - counted}`;
    } else if (rule.until !== null) {
      endsBefore = untilTest(rule, oldZone)!(splitLocal);
      if (!endsBefore) followingEnd = `UNTIL=${movedValue(rule.until, 'until')}`;
    } else {
      endsBefore = false;
    }
    if (endsBefore) {
      // Its own end comes first: it stays as it is, and nothing of it is left for the series from the split.
      before.push(line);
      continue;
    }
    before.push(withEnd(line, endBefore));
    followingRules.push(followingEnd === null ? line : withEnd(line, followingEnd));
  }

  const exdates = moved
    ? exdateLines(
        recurrence.exdates.filter(atOrAfterSplit).map((value) => movedValue(value, 'exdate')),
        newStart.allDay,
      )
    : recurrence.lines.filter((line) => line.startsWith('EXDATE'));
  return { ok: true, before, following: [...followingRules, ...exdates] };

  function atOrAfterSplit(value: DateValue): boolean {
    switch (value.kind) {
      case 'utc':
        return requireFloating(value.utc) * 1000 >= splitInstant;
      case 'floating':
        return wallClockInstant(value.seconds * 1000, oldZone) >= splitInstant;
      case 'date':
        return value.days >= Math.floor(splitLocal / SECONDS_PER_DAY);
    }
  }

  /**
   * An UNTIL or EXDATE value moved as the start moved, written for the series from the split: dates for an all-day
   * one, else in the value's own form (an instant stays UTC, a floating time floating).
   */
  function movedValue(value: DateValue, role: 'until' | 'exdate'): string {
    let local: number;
    switch (value.kind) {
      case 'utc':
        local = toLocal(requireFloating(value.utc) * 1000, oldZone);
        break;
      case 'floating':
        local = value.seconds;
        break;
      case 'date':
        // A date UNTIL includes its whole day: its last second moves. A date EXDATE names the day's starts: the
        // start at the series' time of day moves (the one start a day most series have).
        local =
          role === 'until' ? (value.days + 1) * SECONDS_PER_DAY - 1 : value.days * SECONDS_PER_DAY + timeOfDay(dtstart);
        break;
    }
    const shifted = local + move;
    const day = Math.floor(shifted / SECONDS_PER_DAY);
    if (target.allDay) return dateText(day);
    switch (value.kind) {
      case 'utc':
        return basicUtc(formatFloating(wallClockInstant(shifted * 1000, target.zone) / 1000));
      case 'floating':
        return floatingText(shifted);
      case 'date':
        // Still a whole day after the move (a move by whole days): still a date.
        if (role === 'exdate' || (shifted + 1) % SECONDS_PER_DAY === 0) return dateText(day);
        return floatingText(shifted);
    }
  }
}

/** How many occurrences of a COUNT rule come before the split (DTSTART always counts as the first, RFC 5545). */
function occurrencesBefore(rule: RuleSpec, dtstart: number, splitInstant: number, zone: Zone, budget: Budget): number {
  // Wall-clock order and instant order differ by at most a DST shift: a day past the split ends the walk.
  const walkUntil = toLocal(splitInstant, zone) + SECONDS_PER_DAY;
  let counted = 1;
  for (const nominal of ruleStarts(rule, dtstart, null, budget)) {
    if (nominal > walkUntil) break;
    budget.spend(1, nominal);
    if (nominal !== dtstart && wallClockInstant(nominal * 1000, zone) < splitInstant) counted += 1;
  }
  return counted;
}

/** An RRULE line with `end` (`COUNT=n` or `UNTIL=value`) instead of its own COUNT or UNTIL. */
function withEnd(line: string, end: string): string {
  const parts = line
    .slice('RRULE:'.length)
    .split(';')
    .filter((part) => !/^(COUNT|UNTIL)=/.test(part));
  return `RRULE:${[...parts, end].join(';')}`;
}

/** EXDATE lines for values already written out: UTC and floating date-times, or dates, a few dozen a line. */
function exdateLines(values: readonly string[], allDay: boolean): string[] {
  const unique = [...new Set(values)];
  const lines: string[] = [];
  const groups = allDay
    ? [{ prefix: 'EXDATE;VALUE=DATE:', values: unique }]
    : [
        { prefix: 'EXDATE:', values: unique.filter((value) => value.includes('T')) },
        { prefix: 'EXDATE;VALUE=DATE:', values: unique.filter((value) => !value.includes('T')) },
      ];
  for (const { prefix, values: group } of groups) {
    for (let index = 0; index < group.length; index += VALUES_PER_LINE) {
      lines.push(prefix + group.slice(index, index + VALUES_PER_LINE).join(','));
    }
  }
  return lines;
}

const timeOfDay = (seconds: number) => ((seconds % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
const dateText = (days: number) =>
  formatFloating(days * SECONDS_PER_DAY)
    .slice(0, 10)
    .replace(/-/g, '');
const floatingText = (seconds: number) => formatFloating(seconds).replace(/[-:]/g, '').replace(' ', 'T');
