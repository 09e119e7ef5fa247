import fp from 'fastify-plugin';
import { formatWp } from '../domain/dates/stored-format.ts';
import type { Authenticator } from '../http/auth.ts';
import { createRequestContext, type AppDeps, type RequestContext } from '../http/context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking and when: set by the authentication hook before anything else runs. */
    ctx: RequestContext;
  }
}

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
    app.addHook('onRequest', async (request) => {
      const viewer = await authenticator.authenticate(
        request.headers.authorization,
        request.ip,
        formatWp(deps.clock()),
      );
      request.ctx = createRequestContext(deps, viewer, request.log, request.ip);
    });
  },
  { name: 'auth', fastify: '5.x', dependencies: ['errors'] },
);
