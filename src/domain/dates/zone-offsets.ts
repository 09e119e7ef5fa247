import type { Zone } from 'luxon';

/**
 * `zone.offset(ms)` asks Intl, which costs about 15 µs a call; event writes, list windows and imports call it
 * millions of times. The offsets of a zone change only at its transitions, so each (zone, UTC year) is probed once:
 * monthly samples find the months with a change, a binary search finds the exact second, and later look-ups
 * are a scan of a handful of transitions.
 */

interface YearTable {
  /** The year's bounds, UTC milliseconds: its first instant, and the next year's. */
  from: number;
  to: number;
  /** UTC milliseconds at which a new offset starts, ascending, with the offset from then on. */
  starts: number[];
  offsets: number[];
}

interface ZoneTables {
  years: Map<number, YearTable>;
  /** The table the last look-up used: most look-ups in a row are of one year (a write's dates, a list's window). */
  last: YearTable | undefined;
}

/** By zone name, then UTC year: no key string to build and hash on each look-up. */
const zoneTables = new Map<string, ZoneTables>();
let tableCount = 0;
const MAX_TABLES = 5000;

/**
 * UTC milliseconds of `year`-`month`(0-based, may overflow into the next year)-01 00:00. Not `Date.UTC`, which reads
 * the years 0–99 as 1900–1999 (issue 17 item 7: a table probed for 1950 under the key of the year 50 gave the year
 * 50 a 1950 offset, and the abbreviation cache keyed by that offset then held the year 50's "GMT+0:09:21").
 */
export function utcMonthStart(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 1);
  return date.getTime();
}

function probeYear(zone: Zone, year: number): YearTable {
  const yearStart = utcMonthStart(year, 0);
  const starts = [yearStart];
  const offsets = [zone.offset(yearStart)];
  let previous = yearStart;
  for (let month = 1; month <= 12; month++) {
    const sample = utcMonthStart(year, month);
    const offset = zone.offset(sample);
    if (offset !== offsets[offsets.length - 1]) {
      let low = previous;
      let high = sample;
      while (high - low > 1000) {
        const middle = low + Math.floor((high - low) / 2000) * 1000;
        if (zone.offset(middle) === offset) high = middle;
        else low = middle;
      }
      starts.push(high);
      offsets.push(offset);
    }
    previous = sample;
  }
  return { from: yearStart, to: utcMonthStart(year + 1, 0), starts, offsets };
}

/** The zone's UTC offset in minutes at `ms` (UTC milliseconds), exactly as `zone.offset(ms)` gives it. */
export function offsetAt(zone: Zone, ms: number): number {
  if (zone.isUniversal) return zone.offset(ms);
  let tables = zoneTables.get(zone.name);
  if (tables === undefined) {
    tables = { years: new Map(), last: undefined };
    zoneTables.set(zone.name, tables);
  }
  let table = tables.last;
  if (table === undefined || ms < table.from || ms >= table.to) {
    const year = new Date(ms).getUTCFullYear();
    table = tables.years.get(year);
    if (table === undefined) {
      if (tableCount >= MAX_TABLES) {
        zoneTables.clear();
        tableCount = 0;
        return offsetAt(zone, ms);
      }
      table = probeYear(zone, year);
      tables.years.set(year, table);
      tableCount++;
    }
    tables.last = table;
  }
  let index = table.starts.length - 1;
  while (index > 0 && table.starts[index] > ms) index--;
  return table.offsets[index];
}
