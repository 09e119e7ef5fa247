// Deep pages by keyset: the remembered page ends (core/events/page-seeks.ts), without a database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listSignature, PageSeeks, SEEK_FROM_ROWS, type ListPosition } from '../../src/core/events/page-seeks.ts';
import type { EventListPlan } from '../../src/core/events/list-query.ts';

const position = (id: number): ListPosition => ({
  start: `2030-01-01 10:00:${String(id % 60).padStart(2, '0')}`,
  published: '2029-01-01 00:00:00',
  id,
});
const AT = '2029-06-01 12:00:00';

const plan = (overrides: Partial<EventListPlan> = {}): EventListPlan => ({
  page: 60,
  perPage: 10,
  dates: [{ param: 'start_date', column: 'start', operator: '>=', value: '2029-06-01 00:00:00' }],
  statuses: ['publish'],
  collapseSeries: false,
  order: 'start',
  echo: [],
  ...overrides,
});

describe('page seeks: where a deep page starts', () => {
  it('starts a page after the nearest earlier page whose end is known, skipping the pages between', () => {
    const seeks = new PageSeeks();
    assert.equal(seeks.startOf('list', 'v1', 61, 10), undefined, 'nothing known yet');
    seeks.remember('list', 'v1', 60, position(600), AT);
    assert.deepEqual(seeks.startOf('list', 'v1', 61, 10), { after: position(600), skip: 0, readAt: AT });
    assert.deepEqual(seeks.startOf('list', 'v1', 64, 10), { after: position(600), skip: 30, readAt: AT });
    assert.equal(seeks.startOf('list', 'v1', 60, 10), undefined, 'a page never starts after its own end');
    seeks.remember('list', 'v1', 62, position(620), AT);
    assert.equal(seeks.startOf('list', 'v1', 64, 10)?.skip, 10, 'the nearest end wins');
    assert.equal(seeks.startOf('list', 'v1', 62, 10)?.after.id, 600);
    assert.equal(seeks.startOf('other list', 'v1', 61, 10), undefined, 'lists do not share ends');
  });

  it('forgets a list when the data version moved, or when asked to', () => {
    const seeks = new PageSeeks();
    seeks.remember('list', 'v1', 60, position(600), AT);
    assert.equal(seeks.startOf('list', 'v2', 61, 10), undefined, 'a write since: every row after may have moved');
    assert.equal(seeks.startOf('list', 'v1', 61, 10), undefined, 'and the old version is gone for good');
    seeks.remember('list', 'v2', 60, position(600), AT);
    seeks.remember('list', 'v3', 61, position(610), AT);
    assert.equal(seeks.startOf('list', 'v3', 62, 10)?.after.id, 610);
    assert.equal(seeks.startOf('list', 'v3', 61, 10), undefined, "page 60's end, read at v2, was dropped with v2");
    seeks.forget('list');
    assert.equal(seeks.size, 0);
  });

  it('keeps a bounded number of lists, the least recently read going first', () => {
    const seeks = new PageSeeks();
    for (let list = 0; list < 1000; list++) seeks.remember(`list ${list}`, 'v', 60, position(list), AT);
    seeks.remember('list 0', 'v', 61, position(1), AT);
    seeks.remember('one more', 'v', 60, position(1), AT);
    assert.equal(seeks.size, 1000);
    assert.ok(seeks.startOf('list 0', 'v', 62, 10), 'read again: kept');
    assert.equal(seeks.startOf('list 1', 'v', 61, 10), undefined, 'the oldest went');
  });
});

describe('page seeks: which lists', () => {
  it('pages by position only lists by start whose page starts past the first rows', () => {
    const seeks = new PageSeeks();
    const firstDeep = SEEK_FROM_ROWS / 10 + 1;
    assert.equal(seeks.covers(plan({ page: firstDeep })), true);
    assert.equal(seeks.covers(plan({ page: firstDeep - 1 })), false);
    assert.equal(seeks.covers(plan({ page: firstDeep, order: 'publication' })), false);
    assert.equal(new PageSeeks(0).covers(plan({ page: 2 })), true);
    assert.equal(new PageSeeks(0).covers(plan({ page: 1 })), false, 'the first page starts at the start');
  });

  it('names a list by its filters and its reader, not its page', () => {
    const anonymous = listSignature(plan(), null);
    assert.equal(listSignature(plan({ page: 2 }), null), anonymous);
    assert.notEqual(listSignature(plan({ categoryIds: [3] }), null), anonymous);
    assert.notEqual(listSignature(plan({ perPage: 20 }), null), anonymous);
    assert.notEqual(listSignature(plan(), { id: 1, role: 'author' }), anonymous);
    assert.notEqual(listSignature(plan(), { id: 1, role: 'author' }), listSignature(plan(), { id: 2, role: 'author' }));
    assert.doesNotMatch(listSignature(plan({ searchPassword: 'secret words' }), null), /secret/);
  });
});
