// A sync client (D24) for the tests: a full list of every kind, then following /changes, the way the README tells
// clients to do it. Only the HTTP surface is used.
import assert from 'node:assert/strict';
import type { Credentials, Harness } from '../helpers/harness.ts';

export const KINDS = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
export type Kind = (typeof KINDS)[number];

export const COLLECTION: Record<Kind, string> = {
  event: 'events',
  venue: 'venues',
  organizer: 'organizers',
  category: 'categories',
  tag: 'tags',
};

/** What a full list of a kind is: events without a date window, terms with empty ones, the default statuses. */
export const FULL_LIST_QUERY: Record<Kind, Record<string, string>> = {
  event: { start_date: '1970-01-01', end_date: '2100-12-31' },
  venue: {},
  organizer: {},
  category: { hide_empty: 'false' },
  tag: { hide_empty: 'false' },
};

export type Copy = Record<Kind, Map<number, Record<string, unknown>>>;

export const emptyCopy = (): Copy => ({
  event: new Map(),
  venue: new Map(),
  organizer: new Map(),
  category: new Map(),
  tag: new Map(),
});

/**
 * Every page of every list, as `as` sees it, and the X-Sync-Cursor of the first answer (the earliest: every later
 * page read data at least as new).
 */
export async function fullList(
  h: Harness,
  as: Credentials | null,
  perPage = 100,
): Promise<{ copy: Copy; cursor: string }> {
  const copy = emptyCopy();
  let cursor: string | undefined;
  for (const kind of KINDS) {
    for (let page = 1; ; page++) {
      const response = await h.request('GET', `/${COLLECTION[kind]}`, {
        as,
        query: { ...FULL_LIST_QUERY[kind], per_page: perPage, page },
      });
      if (response.statusCode === 404 && page > 1) break;
      assert.equal(response.statusCode, 200, `list ${kind} page ${page}: ${response.body}`);
      const header = response.headers['x-sync-cursor'];
      assert.equal(typeof header, 'string', `list ${kind} sends X-Sync-Cursor`);
      cursor ??= header as string;
      const body = response.json();
      for (const item of body[COLLECTION[kind]] as Array<Record<string, unknown>>)
        copy[kind].set(item.id as number, item);
      if (page >= body.total_pages) break;
    }
  }
  return { copy, cursor: cursor! };
}

export interface ChangeEntry {
  type: Kind;
  id: number;
  action: 'upsert' | 'remove';
  item?: Record<string, unknown>;
}

/** One GET /changes: its entries applied to `copy`; answers the page. */
export async function followOnce(h: Harness, as: Credentials | null, copy: Copy, since: string, perPage: number) {
  const response = await h.request('GET', '/changes', { as, query: { since, per_page: perPage } });
  assert.equal(response.statusCode, 200, `GET /changes: ${response.body}`);
  const body = response.json() as { changes: ChangeEntry[]; next_cursor: string; has_more: boolean };
  const seen = new Set<string>();
  for (const entry of body.changes) {
    const key = `${entry.type}:${entry.id}`;
    assert.ok(!seen.has(key), `one entry per item in an answer (${key})`);
    seen.add(key);
    if (entry.action === 'upsert') copy[entry.type].set(entry.id, entry.item!);
    else copy[entry.type].delete(entry.id);
  }
  assert.ok(body.changes.length <= perPage, 'at most per_page entries');
  return body;
}

/** Follows /changes until has_more is false; answers the last cursor and every entry seen. */
export async function drain(h: Harness, as: Credentials | null, copy: Copy, since: string, perPage = 100) {
  let cursor = since;
  const entries: ChangeEntry[] = [];
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 10_000, 'drain ends');
    const body = await followOnce(h, as, copy, cursor, perPage);
    entries.push(...body.changes);
    cursor = body.next_cursor;
    if (!body.has_more) return { cursor, entries };
  }
}

/**
 * What may legitimately differ between the copy and a fresh list: `json_ld` (single reads carry it, list items do
 * not), and the `count` of categories and tags, a derived total that D21 keeps out of the change log.
 */
export function comparable(kind: Kind, item: Record<string, unknown>): unknown {
  const strip = (value: unknown, inTerm: boolean): unknown => {
    if (Array.isArray(value)) return value.map((element) => strip(element, inTerm));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (key === 'json_ld') continue;
      if (key === 'count' && inTerm) continue;
      out[key] = strip(field, inTerm || key === 'categories' || key === 'tags');
    }
    return out;
  };
  return strip(item, kind === 'category' || kind === 'tag');
}

/** The copy equals the fresh list: same ids per kind, same fields. */
export function assertSameCopy(actual: Copy, expected: Copy, label: string): void {
  for (const kind of KINDS) {
    const have = [...actual[kind].keys()].sort((a, b) => a - b);
    const want = [...expected[kind].keys()].sort((a, b) => a - b);
    assert.deepEqual(have, want, `${label}: the ${kind} ids`);
    for (const id of want) {
      assert.deepEqual(
        comparable(kind, actual[kind].get(id)!),
        comparable(kind, expected[kind].get(id)!),
        `${label}: ${kind} ${id}`,
      );
    }
  }
}
