import fp from 'fastify-plugin';
import { requestActivity } from '../core/background/activity.ts';

/**
 * Counts the requests in flight (core/background/activity.ts) from their arrival until the answer is sent (`finish`) or the
 * connection is gone (`close`, which an abandoned request gets instead), once each, so the count cannot leak.
 */
export default fp(
  async (app) => {
    app.addHook('onRequest', (_request, reply, done) => {
      requestActivity.begin();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        requestActivity.end();
      };
      reply.raw.once('finish', end);
      reply.raw.once('close', end);
      done();
    });
  },
  { name: 'activity', fastify: '5.x' },
);
