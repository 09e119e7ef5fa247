// D24 sync cursors and the shape of one page of changes: pure, so the format and the coalescing rules are unit-tested.
//
// A cursor says how far a client has followed two streams:
// - the change log (D21): every committed write, by `seq`; the client has seen everything up to `seq`;
// - scheduled items coming due (D17): a `future` event, venue or organizer whose publication date passes becomes
//   `publish` without any write, hence without a log row. The client has seen every item that came due up to the
//   position `(dueAt, dueId)` (publication date in UTC, then id), exclusive of anything after it.
// On the wire a cursor is opaque: base64url of `1.<seq>.<dueAt as 14 digits>.<dueId>`. Only the canonical form of a
// well-formed value decodes; anything else is not one of ours.

/** How far a client has followed the change log and the scheduled items that came due. */
export interface SyncCursor {
  /** The last change-log seq the client has seen (0: none). */
  seq: number;
  /** UTC `YYYY-MM-DD HH:MM:SS`: scheduled items published at or before this instant were seen… */
  dueAt: string;
  /** …those published exactly at `dueAt` only up to this id. */
  dueId: number;
}

/** Ids are 32-bit (D31): a cursor with this `dueId` has seen every item due at its `dueAt`. */
export const LAST_ID = 2_147_483_647;

const VERSION = '1';
/** Generous: a canonical cursor is about 50 characters. */
export const MAX_CURSOR_LENGTH = 200;

const WP_DATE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const BODY = /^1\.(0|[1-9]\d{0,15})\.(\d{14})\.(0|[1-9]\d{0,9})$/;

/** The cursor of someone who has read the data as it stood at `nowUtc` after the log reached `seq` (list answers). */
export const cursorAt = (seq: number, nowUtc: string): SyncCursor => ({ seq, dueAt: nowUtc, dueId: LAST_ID });

/** A client that has seen nothing yet: the whole retained log, and every scheduled item that came due. */
export const START_CURSOR: SyncCursor = { seq: 0, dueAt: '1970-01-01 00:00:00', dueId: 0 };

function isValidDate(text: string): boolean {
  const match = WP_DATE.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  // Not Date.UTC, which reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

export function encodeCursor(cursor: SyncCursor): string {
  if (!Number.isSafeInteger(cursor.seq) || cursor.seq < 0) throw new RangeError(`encodeCursor: bad seq ${cursor.seq}`);
  if (!Number.isSafeInteger(cursor.dueId) || cursor.dueId < 0 || cursor.dueId > LAST_ID)
    throw new RangeError(`encodeCursor: bad id ${cursor.dueId}`);
  if (!isValidDate(cursor.dueAt)) throw new RangeError(`encodeCursor: bad date ${cursor.dueAt}`);
  return Buffer.from(`${VERSION}.${cursor.seq}.${cursor.dueAt.replace(/\D/g, '')}.${cursor.dueId}`).toString(
    'base64url',
  );
}

/** The cursor `text` stands for; null when it is not a cursor this service wrote (malformed, altered, another version). */
export function decodeCursor(text: string): SyncCursor | null {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const body = Buffer.from(text, 'base64url').toString('latin1');
  const match = BODY.exec(body);
  if (!match) return null;
  const seq = Number(match[1]);
  const digits = match[2];
  const dueAt = `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)} ${digits.slice(8, 10)}:${digits.slice(10, 12)}:${digits.slice(12, 14)}`;
  const dueId = Number(match[3]);
  if (!Number.isSafeInteger(seq) || dueId > LAST_ID || !isValidDate(dueAt)) return null;
  const cursor = { seq, dueAt, dueId };
  // Base64 has several spellings of one byte string (trailing bits): only the one we write is ours.
  return encodeCursor(cursor) === text ? cursor : null;
}

// ---------------------------------------------------------------------------------------------------------------------
// One page: which items it names, in what order.

export type SyncType = 'event' | 'venue' | 'organizer' | 'category' | 'tag';

export interface ItemRef {
  type: SyncType;
  id: number;
}

/**
 * The items a run of log rows (in seq order) names, one entry per item at the place of its latest row: a client
 * applies entries in order, and each carries the item's current state (or its removal), so only the last matters.
 */
export function coalesceRows(rows: ReadonlyArray<ItemRef & { seq: number }>): ItemRef[] {
  const latest = new Map<string, { ref: ItemRef; seq: number }>();
  for (const row of rows) latest.set(`${row.type}:${row.id}`, { ref: { type: row.type, id: row.id }, seq: row.seq });
  return [...latest.values()].sort((a, b) => a.seq - b.seq).map((entry) => entry.ref);
}

/** `refs` then `more`, an item named by both kept once, at its later place. */
export function appendRefs(refs: readonly ItemRef[], more: readonly ItemRef[]): ItemRef[] {
  const later = new Set(more.map((ref) => `${ref.type}:${ref.id}`));
  return [...refs.filter((ref) => !later.has(`${ref.type}:${ref.id}`)), ...more];
}

/** `per_page` of `/changes`: 100 when not sent, larger values lowered to 1,000 (as lists lower theirs, D10). */
export const CHANGES_PER_PAGE_DEFAULT = 100;
export const CHANGES_PER_PAGE_MAX = 1000;
export const changesPerPage = (requested: number | undefined) =>
  Math.min(requested ?? CHANGES_PER_PAGE_DEFAULT, CHANGES_PER_PAGE_MAX);
