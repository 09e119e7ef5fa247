// D22 for the iCalendar feeds: the entity tag each feed last had, so that a subscriber polling with If-None-Match is
// answered 304 without the feed being written again (a feed of 10,000 events is about 0.4 s of CPU to write, and
// calendar apps poll theirs every few minutes). A tag stays good while the data version it was written at is current
// and the clock has moved nothing the feed shows (ical/feed.ts feedClockMovedBetween); its key is everything else the
// feed depends on: the reader, the parameters and the window they give. One per process (src/caches.ts), bounded in
// entries, the least recently used dropped first.
import type { DateTime } from 'luxon';

export interface FeedTag {
  /** The strong ETag of the feed's bytes, as the conditional plugin gives it. */
  tag: string;
  /** The store's data version read before the feed was selected. */
  version: string;
  /** The request's clock when it was written. */
  at: DateTime;
  /** Whether it was cut short (X-Truncated), which its 304 says again. */
  truncated: boolean;
}

export const FEED_TAGS_MAX = 1000;

export class FeedTags {
  readonly #tags = new Map<string, FeedTag>();
  readonly maxEntries: number;

  constructor(maxEntries = FEED_TAGS_MAX) {
    this.maxEntries = maxEntries;
  }

  get(key: string): FeedTag | undefined {
    const known = this.#tags.get(key);
    if (known === undefined) return undefined;
    // Most recently used last.
    this.#tags.delete(key);
    this.#tags.set(key, known);
    return known;
  }

  remember(key: string, tag: FeedTag): void {
    if (this.maxEntries <= 0) return;
    this.#tags.delete(key);
    this.#tags.set(key, tag);
    while (this.#tags.size > this.maxEntries) this.#tags.delete(this.#tags.keys().next().value as string);
  }

  get size(): number {
    return this.#tags.size;
  }
}
