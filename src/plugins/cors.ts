import fp from 'fastify-plugin';
import type { Config } from '../config.ts';
import { applyCors } from '../http/cors.ts';

export interface CorsOptions {
  config: Config;
}

/**
 * D12b on every answer, errors included: `*` by default, or the request's origin when CORS_ORIGINS lists it. The
 * preflight's own headers belong to the OPTIONS routes (api-routes.ts), which know the route exists.
 */
export default fp<CorsOptions>(
  async (app, { config }) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      applyCors(config, request, reply);
      done(null, payload);
    });
  },
  { name: 'cors', fastify: '5.x' },
);
