import fp from 'fastify-plugin';
import { allowedMethods } from '../http/routes.ts';
import { JSON_TYPE } from '../http/content-types.ts';
import { isBodiless } from './reply.ts';

const NO_STORE = 'no-cache, must-revalidate, max-age=0, no-store, private';

/**
 * The headers every answer carries, as WordPress sends them:
 * - JSON answers are `application/json; charset=UTF-8` (and an answer with a body but no type is JSON); answers of
 *   another type keep it (the documentation's pages, iCalendar, HTML), answers without a body get none;
 * - `X-Content-Type-Options: nosniff`, `X-Robots-Tag: noindex`;
 * - `Allow`: the methods of the matched API route this caller may use;
 * - `Cache-Control: no-store` whenever credentials were sent, so no shared cache keeps a private answer.
 */
export default fp(
  async (app) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!isBodiless(reply.statusCode)) {
        const type = reply.getHeader('content-type');
        if (type === undefined || String(type).startsWith('application/json')) reply.header('Content-Type', JSON_TYPE);
      }
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('X-Robots-Tag', 'noindex');
      const group = request.routeOptions.config.group;
      if (group && request.ctx) reply.header('Allow', allowedMethods(group, request.ctx).join(', '));
      if (request.headers.authorization) reply.header('Cache-Control', NO_STORE);
      done(null, payload);
    });
  },
  { name: 'headers', fastify: '5.x', dependencies: ['auth'] },
);
