// How a page of a list filtered by one category or tag is found, from how many rows each way would read. Pure.
//
// Two ways: start from the term's events (every one of them, whatever the window, then sort those in the window), or
// walk the list's index in list order and keep the term's events until the page is full. The first reads all the
// term's events: cheap for a rare term, a hundred thousand lookups and a sort for a popular one at a million events.
// The second reads about (rows before the page's end) × (rows in the window) / (the term's rows in the window): a few
// hundred for a popular term, the whole window for a rare one, or for a short window, however many the term has in
// all. The counts come from the occurrence counts, so the choice costs sums of the ledger, not a count of rows.

export interface TermListShape {
  /** The term's events in the window (the list's total). */
  matches: number;
  /** Every event in the window, whatever its terms. */
  windowRows: number;
  /** Rows up to the end of the page asked for: (page - 1) × per_page + per_page. */
  rowsNeeded: number;
  /**
   * The term's rows whatever the window: what starting from the term's events reads (all of them, before the window
   * narrows them). When unknown, the matches stand for it, which is exact for a list without a window.
   */
  termRows?: number;
}

/** Whether walking the list in order reads fewer rows than starting from the term's events. */
export function walkInListOrder({ matches, windowRows, rowsNeeded, termRows }: TermListShape): boolean {
  if (matches <= 0) return false;
  const walked = Math.min(windowRows, (Math.min(rowsNeeded, matches) * windowRows) / matches);
  return walked < Math.max(matches, termRows ?? matches);
}
