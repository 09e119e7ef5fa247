// Totals without scans: the keys under which a listed occurrence is counted, and what a change of an event does to
// the counts. Pure; core/occurrences/counts.ts reads the rows and writes the ledger. Every change is counted twice:
// under its day key, and under the key of its month (`monthKey`), so that a window of two years adds up some thirty
// rows per key instead of seven hundred days' (domain/counted-ranges.ts says which rows a window adds up).

/** An occurrence as the counts see it. */
export interface CountedOccurrence {
  status: string;
  /** The publication time (UTC): kept in the key of a scheduled (`future`) row, which lists show once it is due. */
  publishedUtc: string;
  startLocal: string;
  endLocal: string;
  hidden: boolean;
}

/** The dimension of every event, and those of the events carrying a term, at a venue or with an organizer. */
export const ALL_EVENTS = '';
export const termDimension = (termId: number) => `t${termId}`;
export const venueDimension = (venueId: number) => `v${venueId}`;
export const organizerDimension = (organizerId: number) => `o${organizerId}`;

/**
 * The dimension under which a dimension's occurrences are counted by start month: its own with a prefix no day
 * dimension has (those are empty or start with `t`, `v` or `o`), so that no sum of days ever adds up a month row.
 */
export const monthDimension = (dimension: string) => `m:${dimension}`;

/** What an event links to, as the counts see it. */
export interface CountedLinks {
  termIds: readonly number[];
  venueId: number | null;
  organizerIds: readonly number[];
}

/** The dimensions an event is counted in beside all events: each of its terms, its venue and each of its organizers. */
export function eventDimensions(links: CountedLinks): string[] {
  return [
    ...new Set([
      ...links.termIds.map(termDimension),
      ...(links.venueId === null ? [] : [venueDimension(links.venueId)]),
      ...links.organizerIds.map(organizerDimension),
    ]),
  ];
}

/**
 * A key: dimension, stored status, start day and end day (local, `YYYY-MM-DD`), and for a scheduled row its
 * publication time (otherwise ''), joined by `|`.
 */
export function countKey(dimension: string, status: string, startDay: string, endDay: string, published = ''): string {
  return `${dimension}|${status}|${startDay}|${endDay}|${published}`;
}

export function splitKey(key: string): {
  dimension: string;
  status: string;
  startDay: string;
  endDay: string;
  published: string;
} {
  const [dimension, status, startDay, endDay, published] = key.split('|');
  return { dimension, status, startDay, endDay, published };
}

/** The keys one event is counted under: each of its listed occurrences, for all events and in each of its dimensions. */
export function contributionKeys(occurrences: readonly CountedOccurrence[], links: CountedLinks): string[] {
  const dimensions = [ALL_EVENTS, ...eventDimensions(links)];
  const keys: string[] = [];
  for (const occurrence of occurrences) {
    if (occurrence.hidden) continue;
    const startDay = occurrence.startLocal.slice(0, 10);
    const endDay = occurrence.endLocal.slice(0, 10);
    const published = occurrence.status === 'future' ? occurrence.publishedUtc : '';
    for (const dimension of dimensions) keys.push(countKey(dimension, occurrence.status, startDay, endDay, published));
  }
  return keys.sort();
}

/**
 * The month key of a day key: the month dimension, the start month (`YYYY-MM`) as its start day, and as its end day
 * the start month again when the occurrence ends in the month it starts in, else its exact end day. Compared as text
 * with a window's last day, that end is exact whenever the start month ends before the window's last day: a
 * `YYYY-MM` is smaller than every day of a later month and of its own, and an exact end compares exactly.
 */
export function monthKey(dayKey: string): string {
  const { dimension, status, startDay, endDay, published } = splitKey(dayKey);
  const startMonth = startDay.slice(0, 7);
  const end = endDay.slice(0, 7) === startMonth ? startMonth : endDay;
  return countKey(monthDimension(dimension), status, startMonth, end, published);
}

/** `delta` (day keys) with what it adds to each month key beside it (keys whose changes cancel are left out). */
export function withMonthKeys(delta: ReadonlyMap<string, number>): Map<string, number> {
  const both = new Map(delta);
  for (const [key, change] of delta) {
    const month = monthKey(key);
    both.set(month, (both.get(month) ?? 0) + change);
  }
  for (const [key, change] of both) if (change === 0) both.delete(key);
  return both;
}

/** What moving from `before` to `after` adds to each key (only the keys that change). */
export function countDelta(before: readonly string[], after: readonly string[]): Map<string, number> {
  const delta = new Map<string, number>();
  for (const key of before) delta.set(key, (delta.get(key) ?? 0) - 1);
  for (const key of after) delta.set(key, (delta.get(key) ?? 0) + 1);
  for (const [key, change] of delta) if (change === 0) delta.delete(key);
  return delta;
}
