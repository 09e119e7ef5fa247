import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../http/errors.ts';
import type { Store } from '../store/store.ts';
import { sendError } from './errors.ts';
import { encodeReply, sendReply } from './reply.ts';

export interface HealthOptions {
  store: Store;
}

/** `GET /health`, outside the namespace: 200 `{status: "ok"}` while the database answers, 503 otherwise. */
const health: FastifyPluginAsync<HealthOptions> = async (app, { store }) => {
  app.get('/health', async (_request, reply) => {
    if (await store.ping()) return sendReply(reply, encodeReply({ body: { status: 'ok' } }));
    return sendError(new ApiError(503, 'database_unavailable', 'The database does not answer.'), reply);
  });
};

export default health;
