import Fastify from 'fastify';
import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * What a read by id could cost at best on this machine: a bare Fastify route answering the stored text of an event's
 * document (`event_documents.item`) by id, with one statement on the benchmark's own database (SQLite: one prepared
 * statement; PostgreSQL: one named prepared statement, one round trip). No credentials, no entity tag, no read cache,
 * no embedded terms filled in: the service's answer adds those. Measured beside the ceiling, so that the distance
 * between the service and a single lookup of stored text is a figure of the same run.
 */
const port = Number(process.env.PORT ?? 8091);
const url = process.env.DATABASE_URL ?? 'bench/data/bench.db';
const TEXT = 'select item from event_documents where event_id = $1';

let itemOf: (id: number) => Promise<string | undefined>;
if (url.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  itemOf = async (id) =>
    (await pool.query<{ item: string }>({ name: 'prototype-item', text: TEXT, values: [id] })).rows[0]?.item;
} else {
  const database = new Database(url, { readonly: true, fileMustExist: true });
  const statement = database.prepare<[number], string>(TEXT.replace('$1', '?')).pluck();
  itemOf = async (id) => statement.get(id);
}

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/events/:id', async (request, reply) => {
  const item = await itemOf(Number(request.params.id));
  if (item === undefined) return reply.code(404).send();
  return reply.type('application/json; charset=UTF-8').send(item);
});
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
