// D28: the month view's grid, planned without I/O: which days a month shows (whole weeks, Monday first) and on which
// of them each event appears (a multi-day event on every day it spans, in its own zone's wall-clock days).
import { addDays, dayLabel, lastDay } from './format.ts';

export const FIRST_YEAR = 1970;
export const LAST_YEAR = 2100;

export type MonthParse = { ok: true; year: number; month: number } | { ok: false; status: 400 | 404; reason: string };

/** `YYYY-MM`, month 01–12 (else 400), year 1970–2100 (else 404: such a page does not exist). */
export function parseMonth(text: string): MonthParse {
  const match = /^(\d{4})-(\d{2})$/.exec(text);
  if (!match) return { ok: false, status: 400, reason: 'A month is written YYYY-MM, for example 2027-03.' };
  const year = Number(match[1]);
  const month = Number(match[2]);
  if (month < 1 || month > 12)
    return { ok: false, status: 400, reason: `There is no month ${match[2]}: months run from 01 to 12.` };
  if (year < FIRST_YEAR || year > LAST_YEAR)
    return { ok: false, status: 404, reason: `The calendar covers ${FIRST_YEAR} to ${LAST_YEAR}.` };
  return { ok: true, year, month };
}

export const monthKey = (year: number, month: number) => `${year}-${String(month).padStart(2, '0')}`;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The first and last day of the month and the first of the next one, `YYYY-MM-DD`. */
export function monthBounds(year: number, month: number): { first: string; last: string; next: string } {
  const first = `${monthKey(year, month)}-01`;
  return {
    first,
    last: `${monthKey(year, month)}-${String(daysIn(year, month)).padStart(2, '0')}`,
    next: month === 12 ? `${monthKey(year + 1, 1)}-01` : `${monthKey(year, month + 1)}-01`,
  };
}

/** The months before and after, when they are inside the calendar's years. */
export function neighbours(year: number, month: number): { previous?: string; next?: string } {
  const previous = month === 1 ? [year - 1, 12] : [year, month - 1];
  const next = month === 12 ? [year + 1, 1] : [year, month + 1];
  return {
    previous: previous[0] >= FIRST_YEAR ? monthKey(previous[0], previous[1]) : undefined,
    next: next[0] <= LAST_YEAR ? monthKey(next[0], next[1]) : undefined,
  };
}

export interface MonthEvent {
  id: number;
  title: string;
  url: string;
  startLocal: string;
  endLocal: string;
  allDay: boolean;
  /**
   * The event's zone, short (`CET`) and in full (`Europe/Rome`), when its clock is not the site's at its start: its
   * start time is then read in that zone. Undefined when the site's clock shows the same time.
   */
  zone?: { tag: string; name: string };
}

export interface DayEntry<E extends MonthEvent = MonthEvent> {
  event: E;
  /** The event's start time on its first day (`09:00`), "All day", or "continued" on the days after. */
  label: string;
  /** With a start time of another zone than the site's: that zone (see {@link MonthEvent.zone}). */
  zone?: { tag: string; name: string };
  /** Whether the event began on an earlier day / goes on to a later one. */
  continued: boolean;
  continues: boolean;
}

export interface Day<E extends MonthEvent = MonthEvent> {
  date: string;
  dayOfMonth: number;
  inMonth: boolean;
  /** e.g. `Tuesday 10 March 2027`, for screen readers and narrow screens. */
  label: string;
  entries: Array<DayEntry<E>>;
}

/**
 * Whole weeks from the Monday on or before the 1st to the Sunday on or after the last day. Days of the neighbouring
 * months are shown empty: the month's query reads only the month.
 */
export function monthGrid<E extends MonthEvent>(
  year: number,
  month: number,
  events: readonly E[],
): Array<Array<Day<E>>> {
  const { first, last } = monthBounds(year, month);
  /** ISO weekday, Monday 1 … Sunday 7. */
  const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
  const gridStart = addDays(first, 1 - weekday(first));
  const gridEnd = addDays(last, 7 - weekday(last));
  const days = new Map<string, Day<E>>();
  const weeks: Array<Array<Day<E>>> = [];
  for (let date = gridStart, index = 0; date <= gridEnd; date = addDays(date, 1), index++) {
    if (index % 7 === 0) weeks.push([]);
    const entry: Day<E> = {
      date,
      dayOfMonth: Number(date.slice(8, 10)),
      inMonth: date >= first && date <= last,
      label: dayLabel(date),
      entries: [],
    };
    weeks[weeks.length - 1].push(entry);
    if (entry.inMonth) days.set(entry.date, entry);
  }
  for (const event of events) {
    const firstDay = event.startLocal.slice(0, 10);
    const finalDay = event.allDay ? event.endLocal.slice(0, 10) : lastDay(event.startLocal, event.endLocal);
    for (const day of days.values()) {
      if (day.date < firstDay || day.date > finalDay) continue;
      const continued = day.date > firstDay;
      const timed = !continued && !event.allDay;
      day.entries.push({
        event,
        label: continued ? 'continued' : event.allDay ? 'All day' : event.startLocal.slice(11, 16),
        zone: timed ? event.zone : undefined,
        continued,
        continues: day.date < finalDay,
      });
    }
  }
  return weeks;
}
