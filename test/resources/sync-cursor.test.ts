// D24 cursors and page shape: the pure rules of src/core/sync/cursor.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  appendRefs,
  changesPerPage,
  coalesceRows,
  cursorAt,
  decodeCursor,
  encodeCursor,
  LAST_ID,
  START_CURSOR,
} from '../../src/core/sync/cursor.ts';

describe('sync cursors', () => {
  it('round-trip, and are opaque base64url', () => {
    for (const cursor of [
      START_CURSOR,
      cursorAt(0, '2030-01-01 00:00:00'),
      { seq: 9_007_199_254_740_991, dueAt: '9999-12-31 23:59:59', dueId: LAST_ID },
      { seq: 42, dueAt: '2024-02-29 12:34:56', dueId: 7 },
    ]) {
      const text = encodeCursor(cursor);
      assert.match(text, /^[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeCursor(text), cursor);
    }
  });

  it('decode only what this service writes: anything else is null', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const good = encodeCursor({ seq: 5, dueAt: '2030-01-01 00:00:00', dueId: 3 });
    for (const text of [
      '',
      ' ',
      'x',
      '====',
      `${good}=`,
      `${good} `,
      good.toUpperCase(),
      'a'.repeat(500),
      b64('1.5.20300101000000'),
      b64('2.5.20300101000000.3'),
      b64('1.05.20300101000000.3'),
      b64('1.-5.20300101000000.3'),
      b64('1.5.20300101000000.03'),
      b64('1.5.20300231000000.3'),
      b64('1.5.20302401000000.3'),
      b64('1.5.20300101240000.3'),
      b64(`1.5.20300101000000.${LAST_ID + 1}`),
      b64('1.9007199254740993.20300101000000.3'),
      b64(' 1.5.20300101000000.3'),
      b64('1.5.20300101000000.3\n'),
      Buffer.from('1.5.20300101000000.3').toString('base64'),
    ]) {
      assert.equal(decodeCursor(text), null, JSON.stringify(text));
    }
  });

  it('refuse to encode what is not a position', () => {
    assert.throws(() => encodeCursor({ seq: -1, dueAt: '2030-01-01 00:00:00', dueId: 0 }), RangeError);
    assert.throws(() => encodeCursor({ seq: 1, dueAt: '2030-02-30 00:00:00', dueId: 0 }), RangeError);
    assert.throws(() => encodeCursor({ seq: 1, dueAt: '2030-01-01 00:00:00', dueId: LAST_ID + 1 }), RangeError);
  });
});

describe('a page of changes', () => {
  it('names each item once, at the place of its latest row', () => {
    const rows = [
      { seq: 1, type: 'event' as const, id: 1 },
      { seq: 2, type: 'venue' as const, id: 1 },
      { seq: 3, type: 'event' as const, id: 2 },
      { seq: 4, type: 'event' as const, id: 1 },
      { seq: 5, type: 'category' as const, id: 1 },
    ];
    assert.deepEqual(coalesceRows(rows), [
      { type: 'venue', id: 1 },
      { type: 'event', id: 2 },
      { type: 'event', id: 1 },
      { type: 'category', id: 1 },
    ]);
  });

  it('appends items that came due, an item named twice kept at its later place', () => {
    assert.deepEqual(
      appendRefs(
        [
          { type: 'event', id: 1 },
          { type: 'venue', id: 2 },
        ],
        [
          { type: 'event', id: 1 },
          { type: 'event', id: 3 },
        ],
      ),
      [
        { type: 'venue', id: 2 },
        { type: 'event', id: 1 },
        { type: 'event', id: 3 },
      ],
    );
  });

  it('per_page: 100 by default, at most 1,000', () => {
    assert.equal(changesPerPage(undefined), 100);
    assert.equal(changesPerPage(7), 7);
    assert.equal(changesPerPage(1000), 1000);
    assert.equal(changesPerPage(1_000_000), 1000);
  });
});
