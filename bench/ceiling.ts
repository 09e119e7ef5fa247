import cluster from 'node:cluster';
import Fastify from 'fastify';

/**
 * The machine's ceiling: a bare Fastify route answering a fixed body of the given size. With WORKERS above 1, served
 * by as many node:cluster workers as the service has (`npm run bench -- --workers N`), so that ratios stay fair.
 */
const size = Number(process.env.BODY_SIZE ?? 2000);
const port = Number(process.env.PORT ?? 8090);
const workers = Number(process.env.WORKERS ?? 1);

if (cluster.isPrimary && workers > 1) {
  for (let index = 0; index < workers; index++) cluster.fork();
  let exited = 0;
  cluster.on('exit', () => {
    if (++exited === workers) process.exit(0);
  });
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
} else {
  const body = JSON.stringify({ padding: 'x'.repeat(Math.max(0, size - 14)) });
  const app = Fastify({ logger: false });
  app.get('/fixed', async (_request, reply) => reply.type('application/json; charset=UTF-8').send(body));
  await app.listen({ port, host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
