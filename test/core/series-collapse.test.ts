// D25: which form finds the firsts of a list that collapses series (core/events/series-collapse.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probesEachSeries, seriesCollapseOf } from '../../src/core/events/series-collapse.ts';

const window = { collapseSeries: true, order: 'start' } as const;

describe('seriesCollapseOf', () => {
  it('leaves a list that keeps every occurrence alone', () => {
    assert.equal(seriesCollapseOf({ ...window, collapseSeries: false }), 'none');
    assert.equal(seriesCollapseOf({ ...window, collapseSeries: false, categoryIds: [3] }), 'none');
  });

  it('probes each series where no index narrows the list', () => {
    assert.equal(seriesCollapseOf(window), 'per-series');
  });

  it('ranks where an index narrows the list to few occurrences, or where the order is not by start', () => {
    const narrowing = [
      { searchTerms: ['jazz'] },
      { include: [1, 2] },
      { categoryIds: [3] },
      { tagIds: [4] },
      { venueIds: [5] },
      { organizerIds: [6] },
      { near: { lat: 48.85, lng: 2.35, radiusKm: 25 } },
      { categoryIds: [] },
    ];
    for (const filter of narrowing)
      assert.equal(seriesCollapseOf({ ...window, ...filter }), 'ranked', JSON.stringify(filter));
    assert.equal(seriesCollapseOf({ ...window, order: 'publication' }), 'ranked');
  });
});

describe('probesEachSeries', () => {
  it('probes where the filter keeps most of the window, ranks where it keeps little or nothing', () => {
    assert.equal(probesEachSeries({ matches: 100_100, windowRows: 110_000 }), true);
    assert.equal(probesEachSeries({ matches: 60, windowRows: 100 }), true);
    assert.equal(probesEachSeries({ matches: 50, windowRows: 100 }), false, 'as many left out as kept: ranked');
    assert.equal(probesEachSeries({ matches: 3_650, windowRows: 110_000 }), false);
    assert.equal(probesEachSeries({ matches: 0, windowRows: 0 }), false);
  });
});
