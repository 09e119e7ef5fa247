import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';

export interface InFlightHandlersOptions {
  /** The longest a close waits for the handlers under way (the request deadline: none should run longer). */
  maxWaitMs: number;
}

/**
 * A close waits for the route handlers under way before anything stops. Node's server waits for the connections it
 * holds, but a client that hung up in the middle of a request leaves no connection behind while its handler still
 * runs: without this, the app's onClose hooks would stop the writes' followers (a write then committing without its
 * stored documents) and the store would close under it. Every route's handler is counted from its call to its end
 * (`onRoute`, so this plugin is registered before any route); `preClose` runs once the app refuses new requests.
 * Not activity.ts's count: that one ends when the connection closes, which is exactly when such a handler goes on.
 */
export default fp<InFlightHandlersOptions>(
  async (app, { maxWaitMs }) => {
    let running = 0;
    let idle: Array<() => void> = [];
    app.addHook('onRoute', (route) => {
      const handler = route.handler as (this: FastifyInstance, ...args: Parameters<RouteHandlerMethod>) => unknown;
      route.handler = async function (this: FastifyInstance, request, reply) {
        running++;
        try {
          return await handler.call(this, request, reply);
        } finally {
          running--;
          if (running === 0) {
            for (const resolve of idle) resolve();
            idle = [];
          }
        }
      };
    });
    app.addHook('preClose', async () => {
      if (running === 0) return;
      await new Promise<void>((resolve) => {
        idle.push(resolve);
        setTimeout(resolve, maxWaitMs).unref();
      });
    });
  },
  { name: 'in-flight-handlers', fastify: '5.x' },
);
