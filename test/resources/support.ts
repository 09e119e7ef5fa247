// Helpers shared by the venue, organizer and post-layer suites: reading the recorded examples, and creating items
// through the HTTP surface (never through the store).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Credentials, Harness } from '../helpers/harness.ts';

/**
 * The recorded examples of the contract the tests use, copied byte for byte into `test/fixtures/contract-examples/`
 * so the repository's tests stand alone. CONTRACT_EXAMPLES points them at another copy (e.g. a newer recording).
 */
export const EXAMPLES_DIRECTORY =
  process.env.CONTRACT_EXAMPLES ?? fileURLToPath(new URL('../fixtures/contract-examples', import.meta.url));

export interface RecordedExample {
  request: { method: string; path: string; body: Record<string, unknown> | null };
  response: { status: number; headers: Record<string, string>; body: any };
}

export function readExample(name: string): RecordedExample {
  return JSON.parse(readFileSync(`${EXAMPLES_DIRECTORY}/${name}`, 'utf8')) as RecordedExample;
}

const WP_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const VOLATILE_DATES = ['date', 'date_utc', 'modified', 'modified_utc'];

/**
 * A venue or organizer object with what legitimately differs between two installs replaced by placeholders: ids
 * (and the global ids built from them), the author id and the clock. Everything else, key order included, must match.
 */
export function comparable(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'id') out[key] = typeof value === 'number' ? '<id>' : value;
    else if (key === 'author') out[key] = typeof value === 'string' && /^\d+$/.test(value) ? '<author>' : value;
    else if (VOLATILE_DATES.includes(key))
      out[key] = typeof value === 'string' && WP_DATE.test(value) ? '<date>' : value;
    else if (key === 'global_id') out[key] = String(value).replace(/\?id=\d+$/, '?id=<id>');
    else if (key === 'global_id_lineage')
      out[key] = (value as string[]).map((item) => item.replace(/\?id=\d+$/, '?id=<id>'));
    else out[key] = value;
  }
  return out;
}

export const keysOf = (object: Record<string, unknown>) => Object.keys(object);

/** The keys a venue or organizer starts with, in the reference's order; its name's key follows. */
export const LEADING_KEYS = ['id', 'author', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url'];

/** Creates a venue or organizer and returns its body, failing the test unless the answer is 201. */
export async function createLinked(
  h: Harness,
  collection: 'venues' | 'organizers',
  body: Record<string, unknown>,
  as: Credentials = h.users.editor,
): Promise<Record<string, any>> {
  const response = await h.request('POST', `/${collection}`, { as, body });
  assert.equal(response.statusCode, 201, `create ${collection}: ${response.body}`);
  return response.json();
}

/** The ids of a list page, in order. */
export const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id);

/** `rest_invalid_param` naming exactly these parameters. */
export function assertInvalidParams(response: { statusCode: number; json(): any }, names: string[]): void {
  assert.equal(response.statusCode, 400);
  const body = response.json();
  assert.equal(body.code, 'rest_invalid_param');
  assert.equal(body.message, `Invalid parameter(s): ${names.join(', ')}`);
  assert.deepEqual(Object.keys(body.data.params), names);
  assert.equal(body.data.status, 400);
}

/** The query string of a URL as ordered name/value pairs (decoded). */
export function queryPairs(url: string): Array<[string, string]> {
  return [...new URL(url).searchParams.entries()];
}
