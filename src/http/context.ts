import type { DateTime } from 'luxon';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { LinkedDocumentSnapshots } from '../core/documents/linked-snapshot.ts';
import type { EventItemCache } from '../core/events/item-cache.ts';
import type { PageSeeks } from '../core/events/page-seeks.ts';
import type { EmbeddedTermSnapshots } from '../core/terms/embedded-cache.ts';
import type { SyncCursor } from '../core/sync/cursor.ts';
import type { Viewer } from '../domain/access.ts';
import { commandContext, type CommandContext } from '../core/input/context.ts';
import type { Store } from '../store/store.ts';
import type { FailureLimiter } from './auth.ts';
import type { TagCondition } from './etag.ts';

/** What the application is built from; tests swap the clock. */
export interface AppSetup {
  config: Config;
  store: Store;
  /** The current instant, in UTC. */
  clock: () => DateTime;
}

/**
 * The process's caches a request may reach, made once at start from the Config (src/caches.ts, docs/caches.md): no
 * handler makes one of its own.
 */
export interface RequestCaches {
  /** Public events' GET /events/{id} answers and pages (ITEM_CACHE_BYTES). */
  eventItems: EventItemCache;
  /** The term objects events embed; the core reads it through the actor it is given (`TermReader`). */
  embeddedTerms: EmbeddedTermSnapshots;
  /** The venues' and organizers' documents events embed (SQLite); read through the actor as `embeddedTerms` is. */
  linkedDocuments: LinkedDocumentSnapshots;
  /** D29: event-password guesses (http/event-passwords.ts). */
  passwordGuesses: FailureLimiter;
  /** Where deep pages of the lists answered lately ended, so that the next page seeks there (core/events/page-seeks.ts). */
  pageSeeks: PageSeeks;
}

/** What the plugins and every request are given: the setup, and the caches buildApp made from it. */
export interface AppDeps extends AppSetup {
  caches: RequestCaches;
}

/** Everything a validator, permission rule or handler may need for one request: a command's context, and more. */
export interface RequestContext extends AppDeps, CommandContext {
  viewer: Viewer;
  /** Fixed for the whole request, so every check sees the same "now". */
  now: DateTime;
  log: FastifyBaseLogger;
  /**
   * The client's address (request.ip, which TRUST_PROXY makes the forwarded one), under which failed secrets are
   * counted (D29); `''` outside an HTTP request.
   */
  clientAddress: string;
  /**
   * D22: the request's `If-Match`, parsed (plugins/conditional.ts; a malformed one never reaches a handler). Item
   * writes turn it into their transaction's precondition (http/etag.ts `ifMatchPrecondition`).
   */
  ifMatch?: TagCondition;
  /** D22: the request's `If-None-Match`, parsed, for a handler that can tell a 304 without writing its answer (feeds). */
  ifNoneMatch?: TagCondition;
  /**
   * The store's data version an anonymous read is answered at, set by the read cache (plugins/read-cache.ts) before
   * the handler runs: the process's snapshots check it instead of reading it again. Unset for anything that may write.
   */
  dataVersion?: string;
  /**
   * D24: a list's sync cursor, when the read cache read it with the data version, in one statement, before anything
   * else of the request (api/changes/header.ts `readSyncCursor`).
   */
  syncCursor?: SyncCursor;
  /** Request-scoped memo: a record a validator loaded is not loaded again by the handler. */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** A request's context: the command context of its caller (core/input/context.ts, with its memo), and the request's own. */
export function createRequestContext(
  deps: AppDeps,
  viewer: Viewer,
  log: FastifyBaseLogger,
  clientAddress = '',
  now: DateTime = deps.clock(),
): RequestContext {
  return {
    ...deps,
    ...commandContext(deps.store, { viewer, now, config: deps.config }),
    log,
    clientAddress,
  };
}
