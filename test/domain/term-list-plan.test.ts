import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { walkInListOrder } from '../../src/domain/term-list-plan.ts';

describe('term lists: which way a page is found', () => {
  it('walks the list for a popular term, starts from the term for a rare one', () => {
    // A category on 10 % of 287,000 events in the window: a first page reads about 100 rows walking.
    assert.equal(walkInListOrder({ matches: 28_700, windowRows: 287_000, rowsNeeded: 10 }), true);
    // 50 of them: walking would read 57,400 rows to fill ten; the term has 50.
    assert.equal(walkInListOrder({ matches: 50, windowRows: 287_000, rowsNeeded: 10 }), false);
    assert.equal(walkInListOrder({ matches: 0, windowRows: 287_000, rowsNeeded: 10 }), false, 'an empty list');
  });

  it('starts from the term for a deep page of a popular term once walking would read more', () => {
    assert.equal(walkInListOrder({ matches: 28_700, windowRows: 287_000, rowsNeeded: 2_000 }), true);
    assert.equal(walkInListOrder({ matches: 28_700, windowRows: 287_000, rowsNeeded: 5_000 }), false);
  });

  it('never estimates more rows walked than the window holds, nor past the last match', () => {
    for (let matches = 1; matches <= 1_000; matches += 37)
      for (const windowRows of [matches, matches * 2, matches * 50])
        for (const rowsNeeded of [1, 10, 100, 10_000]) {
          const walk = walkInListOrder({ matches, windowRows, rowsNeeded });
          // When every row of the window is a match, walking reads just what it needs: never worse.
          if (windowRows === matches && rowsNeeded < matches) assert.equal(walk, true, `${matches}/${rowsNeeded}`);
          // Walking reads at least the matches it keeps: a page past them all is never found faster by walking.
          if (rowsNeeded >= matches) assert.equal(walk, false, `${matches}, ${windowRows}, ${rowsNeeded}`);
        }
  });

  it("walks a short window of a term that has many more events outside it, where the term's events would all be read", () => {
    // 30 of a category's 3,000 events in a window of 200: walking reads the window (66 rows for a first page), starting
    // from the category reads its 3,000.
    assert.equal(walkInListOrder({ matches: 30, windowRows: 200, rowsNeeded: 10 }), false, 'without the term in all');
    assert.equal(walkInListOrder({ matches: 30, windowRows: 200, rowsNeeded: 10, termRows: 3_000 }), true);
    // A page past the window's matches: the whole window (200 rows) against the term's 3,000.
    assert.equal(walkInListOrder({ matches: 30, windowRows: 200, rowsNeeded: 40, termRows: 3_000 }), true);
    // A long window of a rare term: its 40 events in all are fewer than the window walked.
    assert.equal(walkInListOrder({ matches: 30, windowRows: 20_000, rowsNeeded: 10, termRows: 40 }), false);
    // The term in all never counts for less than its matches.
    assert.equal(
      walkInListOrder({ matches: 30, windowRows: 200, rowsNeeded: 10, termRows: 5 }),
      walkInListOrder({ matches: 30, windowRows: 200, rowsNeeded: 10 }),
    );
  });
});
