import Fastify from 'fastify';

/** The machine's ceiling: a bare Fastify route answering a fixed body of the given size. */
const size = Number(process.env.BODY_SIZE ?? 2000);
const port = Number(process.env.PORT ?? 8090);
const body = JSON.stringify({ padding: 'x'.repeat(Math.max(0, size - 14)) });
const app = Fastify({ logger: false });
app.get('/fixed', async (_request, reply) => reply.type('application/json; charset=UTF-8').send(body));
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
