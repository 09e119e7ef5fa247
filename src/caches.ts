// Every cache the service keeps in a process's memory, made here once, when the process starts (buildApp), each
// sized by its setting in the Config: no handler, page or feed makes one, and none is shared by whoever else uses
// the same store. docs/caches.md lists them: what each keeps, its bound, what invalidates it, and why it stays
// correct with several processes on one database.
//
// What is left at module level are pure memo tables, whose keys are their whole input, so an entry can never be
// stale: the rendered descriptions (domain/html.ts renderContent, keyed by the text), renders kept with their row
// object (core/posts/store.ts), VTIMEZONE blocks and zone tables (keyed by zone name: the IANA data a process loaded
// does not change), compiled response schemas (keyed by the schema object); and the page-unlock key per store
// (pages/unlock.ts), a value its database never changes.
import type { Config } from './config.ts';
import { LinkedDocumentSnapshots } from './core/documents/linked-snapshot.ts';
import { EventItemCache } from './core/events/item-cache.ts';
import { PageSeeks } from './core/events/page-seeks.ts';
import { EmbeddedTermSnapshots } from './core/terms/embedded-cache.ts';
import { Authenticator, FailureLimiter } from './http/auth.ts';
import type { RequestCaches } from './http/context.ts';
import { ResponseCache } from './http/response-cache.ts';
import { FeedTags } from './ical/feed-tags.ts';
import { WrittenEntries } from './ical/write.ts';
import type { Store } from './store/store.ts';

/** The process's caches: those a request reaches (`ctx.caches`), and those only their plugin or route uses. */
export interface AppCaches extends RequestCaches {
  /** Anonymous GET answers for up to a second (plugins/read-cache.ts; READ_CACHE_BYTES). */
  responses: ResponseCache;
  /** Verified credentials (plugins/auth.ts; a fixed bound of entries). */
  credentials: Authenticator;
  /** VEVENT texts of the iCalendar feeds (api/events/feed-routes.ts; ICAL_CACHE_BYTES). */
  icalEntries: WrittenEntries;
  /** The entity tag each feed last had, to answer a subscriber's poll 304 unwritten (ical/feed-tags.ts; 1,000). */
  feedTags: FeedTags;
}

export function createCaches(config: Config, store: Store): AppCaches {
  const embeddedTerms = new EmbeddedTermSnapshots(store, config.termSnapshot);
  return {
    embeddedTerms,
    linkedDocuments: new LinkedDocumentSnapshots(store, config.linkedSnapshot),
    eventItems: new EventItemCache(store, config.itemCacheBytes, embeddedTerms),
    passwordGuesses: new FailureLimiter(store.db, config.authFailures),
    pageSeeks: new PageSeeks(),
    responses: new ResponseCache(config.readCacheBytes),
    credentials: new Authenticator(store.db, { ...config.authFailures, ownCommits: store }),
    icalEntries: new WrittenEntries(config.icalCacheBytes),
    feedTags: new FeedTags(),
  };
}
