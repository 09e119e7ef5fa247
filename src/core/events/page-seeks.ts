// Deep pages by keyset, inside the service. `GET /events?page=N` is defined as the rows after the first
// (N-1)×per_page of the list, and the database finds them by counting off every row before them: at a million events
// page 10,000 of a plain list reads a hundred thousand index entries. A client walking the pages in order (a sync
// client listing everything, a crawler) would cost the square of the list's length. So, for each list a process has
// answered deep pages of, it remembers where each of those pages ended (the last row's sort key); the next page of the
// same list starts right after it, and a page further on skips only the pages between. Clients keep sending page
// numbers: nothing of this shows in the API.
//
// A position is only reused while the list it was read from is the same list: the same filters, reader and day
// window (the list's signature), the same data version (no process has written since), and no scheduled event has
// come due since it was read (the caller checks that, `dueSince`): a write or a publication time passing can move
// every row after it.
import { createHash } from 'node:crypto';
import type { Viewer } from '../../domain/access.ts';
import type { EventListPlan } from './list-query.ts';

/** Where a row sits in the order of a list by start: its start, its publication time, its event's id. */
export interface ListPosition {
  start: string;
  published: string;
  id: number;
}

/** Where a page starts: after the row at `after`, skipping `skip` rows more. */
export interface PageStart {
  after: ListPosition;
  skip: number;
  /** The UTC time the position was read at (`YYYY-MM-DD HH:MM:SS`): scheduled events due since then move rows. */
  readAt: string;
}

/** Offsets below this are left to the database: counting off a few hundred index entries costs less than remembering. */
export const SEEK_FROM_ROWS = 500;
/** Lists remembered per process, and pages per list: positions are 60 bytes or so, so a few megabytes at most. */
const MAX_LISTS = 1000;
const MAX_PAGES_PER_LIST = 2000;

interface RememberedList {
  version: string;
  /** The page numbers whose last row is known, and where that row sits. */
  ends: Map<number, { position: ListPosition; readAt: string }>;
}

/**
 * What makes two requests the same list: every filter of the plan but the page, and who reads (visibility depends on
 * the reader). A digest, so that a search password sent with the list is not kept in memory.
 */
export function listSignature(plan: EventListPlan, viewer: Viewer): string {
  const { page: _page, echo: _echo, ...filters } = plan;
  const reader = viewer === null ? 'anonymous' : `${viewer.role}:${viewer.id}`;
  return createHash('sha256')
    .update(JSON.stringify([reader, filters]))
    .digest('base64url');
}

/** The process's remembered page ends (src/caches.ts). */
export class PageSeeks {
  readonly #lists = new Map<string, RememberedList>();
  readonly #fromRows: number;

  /** `fromRows`: the offset from which pages are read by position (tests page small lists with 0). */
  constructor(fromRows = SEEK_FROM_ROWS) {
    this.#fromRows = fromRows;
  }

  /**
   * Whether a page of this list is read by position: a list by start (lists by publication date are `include` lists,
   * short) whose page starts past the first rows.
   */
  covers(plan: Pick<EventListPlan, 'order' | 'page' | 'perPage'>): boolean {
    return plan.order === 'start' && plan.page > 1 && (plan.page - 1) * plan.perPage >= this.#fromRows;
  }

  /** Where page `page` (of `perPage` rows) of this list starts, from the nearest earlier page whose end is known. */
  startOf(signature: string, version: string, page: number, perPage: number): PageStart | undefined {
    const list = this.#lists.get(signature);
    if (list === undefined) return undefined;
    if (list.version !== version) {
      this.#lists.delete(signature);
      return undefined;
    }
    let nearest: number | undefined;
    for (const ended of list.ends.keys())
      if (ended < page && (nearest === undefined || ended > nearest)) nearest = ended;
    if (nearest === undefined) return undefined;
    const end = list.ends.get(nearest)!;
    return { after: end.position, skip: (page - 1 - nearest) * perPage, readAt: end.readAt };
  }

  /** Remembers where page `page` of this list ended, as read at `version` and `readAt`. */
  remember(signature: string, version: string, page: number, last: ListPosition, readAt: string): void {
    let list = this.#lists.get(signature);
    if (list !== undefined && list.version !== version) {
      this.#lists.delete(signature);
      list = undefined;
    }
    if (list === undefined) {
      // Oldest first out: a Map iterates in insertion order, and a list read again is moved to the end below.
      if (this.#lists.size >= MAX_LISTS) this.#lists.delete(this.#lists.keys().next().value!);
      list = { version, ends: new Map() };
    } else {
      this.#lists.delete(signature);
    }
    this.#lists.set(signature, list);
    if (list.ends.size >= MAX_PAGES_PER_LIST && !list.ends.has(page)) list.ends.clear();
    list.ends.set(page, { position: last, readAt });
  }

  /** Forgets a list (a scheduled event came due since its positions were read). */
  forget(signature: string): void {
    this.#lists.delete(signature);
  }

  /** How many lists are remembered (tests and diagnostics). */
  get size(): number {
    return this.#lists.size;
  }
}
