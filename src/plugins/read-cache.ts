import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { queryNamesPassword } from '../http/event-passwords.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import type { Store } from '../store/store.ts';
import type { EncodedReply } from './reply.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * An anonymous read's answer from the cache while the data and the clock allow (http/response-cache.ts), else the
     * one `compute` gives, which is then kept. Authenticated reads, and reads that send an event password, always
     * compute and are never kept.
     */
    readThrough(
      request: FastifyRequest,
      compute: () => Promise<EncodedReply>,
      options?: ReadThroughOptions,
    ): Promise<EncodedReply>;
  }
}

export interface ReadThroughOptions {
  /**
   * `compute` sets `request.ctx.dataVersion` no later than its first read, from that read's own statement (a read by
   * id: core/documents/read.ts readEventDocumentsWithVersion). When the cache holds no answer for the request, none
   * is read before computing: the answer is kept under the version it reports, or not kept if it reports none.
   */
  reportsDataVersion?: boolean;
  /**
   * Reads the data version for the cache instead of the store's own statement, with what the request reads first
   * anyway (a list's sync cursor): one statement for both.
   */
  readsDataVersion?: () => Promise<string>;
}

export interface ReadCacheOptions {
  store: Store;
  /** The process's (src/caches.ts), bounded by READ_CACHE_BYTES. */
  cache: ResponseCache;
}

/**
 * Request headers an anonymous answer may depend on besides the URL: a conditional GET's validators (one caller
 * gets 304, the next, without them, the full answer). Whatever else a handler reads must be in the URL.
 */
const VARYING_REQUEST_HEADERS = ['if-none-match', 'if-modified-since'] as const;

/** The URL, then each varying header that was sent (a URL never holds a line break, so the parts cannot collide). */
export function cacheKey(request: Pick<FastifyRequest, 'url' | 'headers'>): string {
  let key = request.url;
  for (const name of VARYING_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) key += `\n${name}: ${value}`;
  }
  return key;
}

/**
 * D29: an answer to a request that sends an event password depends on more than its URL: on how many wrong ones the
 * client's address sent (429 past the limit), and every such request must be counted. It is never cached.
 */
const sendsPassword = (request: Pick<FastifyRequest, 'query'>) => queryNamesPassword(request.query);

export default fp<ReadCacheOptions>(
  async (app, { store, cache }) => {
    app.decorate(
      'readThrough',
      async (
        request: FastifyRequest,
        compute: () => Promise<EncodedReply>,
        options: ReadThroughOptions = {},
      ): Promise<EncodedReply> => {
        if (request.ctx.viewer !== null || sendsPassword(request)) return compute();
        const key = cacheKey(request);
        const nowMs = request.ctx.now.toMillis();
        // A read of a URL the cache holds nothing for (a read by a random id): its first statement reads the version
        // too. Simultaneous first reads of one URL are not merged into one then, as they are once an answer is kept.
        if (options.reportsDataVersion && !cache.holds(key, nowMs)) {
          const answer = await compute();
          const version = request.ctx.dataVersion;
          if (version !== undefined) cache.set(key, version, nowMs, answer);
          return answer;
        }
        const version = await (options.readsDataVersion?.() ?? store.dataVersion());
        // An anonymous read writes nothing its answer depends on: everything it reads is checked at this version.
        request.ctx.dataVersion = version;
        return cache.answer(key, version, nowMs, compute);
      },
    );
  },
  { name: 'read-cache', fastify: '5.x', dependencies: ['auth'] },
);
