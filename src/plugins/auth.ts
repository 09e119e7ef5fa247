import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { formatWp } from '../domain/dates/stored-format.ts';
import { sendsCredentials, type Authenticator } from '../http/auth.ts';
import { queryNamesPassword } from '../http/event-passwords.ts';
import { createRequestContext, type AppDeps, type RequestContext } from '../http/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking and when: set by the authentication hook before anything else runs. */
    ctx: RequestContext;
  }
}

const isPlainRead = (request: FastifyRequest) =>
  (request.method === 'GET' || request.method === 'HEAD') && !queryNamesPassword(request.query);

export interface AuthOptions {
  deps: AppDeps;
  /** The process's (src/caches.ts): it remembers verified credentials between requests. */
  authenticator: Authenticator;
}

/**
 * D15: credentials are checked before anything else, on every route (unknown ones included). A bad credential is
 * 401 (or 429) at once, through the error handler; a good one or none gives `request.ctx`.
 */
export default fp<AuthOptions>(
  async (app, { deps, authenticator }) => {
    // Null until the hook below sets it (Fastify's overload for a placeholder value, hence the empty dependencies).
    app.decorateRequest('ctx', null, []);
    // A request without credentials (most reads) goes on at once, without waiting for a promise.
    app.addHook('onRequest', (request, _reply, done) => {
      // One instant for the credential's check and the whole request (a read of the clock costs a few µs).
      const now = deps.clock();
      const header = request.headers.authorization;
      if (!sendsCredentials(header)) {
        request.ctx = createRequestContext(deps, null, request.log, request.ip, now);
        return done();
      }
      const seen: { dataVersion?: string } = {};
      const authenticated = authenticator.authenticate(header, request.ip, formatWp(now), seen).then((viewer) => {
        request.ctx = createRequestContext(deps, viewer, request.log, request.ip, now);
        // A read writes nothing its answer depends on: the data version the credential's check read is the one the
        // process's snapshots check it against (a round trip fewer on PostgreSQL), as the read cache's is for
        // anonymous reads. Not for a read that sends a password (it counts a guess, a write), nor for anything else.
        if (seen.dataVersion !== undefined && isPlainRead(request)) request.ctx.dataVersion = seen.dataVersion;
      });
      // A refused credential (401, 429) goes to the error handler.
      authenticated.then(() => done(), done);
    });
  },
  { name: 'auth', fastify: '5.x', dependencies: ['errors'] },
);
