import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import Database from 'better-sqlite3';
import pg from 'pg';
import { registerTextFunctions } from '../src/store/sqlite/text.ts';

/**
 * What the stack can do at best on this machine, measured beside the ceiling in the same run (issue 24: a target out
 * of physical reach is shown by a minimal prototype, whose figure is then the bar):
 * - GET /events/:id answers the stored text of an event's document (`event_documents.item`) by id with one statement
 *   on the benchmark's database (SQLite: one prepared statement; PostgreSQL: one named prepared statement, one round
 *   trip). No credentials, no entity tag, no read cache, no embedded terms filled in: the service's answer adds those.
 * - POST /events stores a new event in one transaction, on a database of its own (WRITE_DATABASE_URL, migrated and
 *   empty): its post row, its event row and its stored document (the event's JSON as sent), three inserts, as a
 *   durable commit, with what the tables' own triggers and indexes keep (SQLite's search index among them). No validation beyond parsing JSON, no slug search, no occurrences, terms, counts, change log or
 *   hooks: the service's create adds those.
 */
const port = Number(process.env.PORT ?? 8091);
const url = process.env.DATABASE_URL ?? 'bench/data/bench.db';
const writeUrl = process.env.WRITE_DATABASE_URL;
const NOW = '2026-01-01 00:00:00';

interface NewEvent {
  title?: string;
  start_date?: string;
  end_date?: string;
}

const READ = 'select item from event_documents where event_id = $1';
const POST = `insert into posts (type, author_id, status, slug, title, date_local, date_utc, modified_local, modified_utc)
  values ('event', 1, 'publish', $1, $2, '${NOW}', '${NOW}', '${NOW}', '${NOW}') returning id`;
const EVENT = `insert into events (id, timezone, timezone_abbr, all_day, start_local, end_local, start_utc, end_utc,
  cost_values, currency_symbol, currency_position, website, show_map, show_map_link, hide_from_listings, sticky,
  featured, venue_id) values ($1, 'UTC', 'UTC', 0, $2, $3, $2, $3, '[]', '', '', null, 1, 1, 0, 0, 0, null)`;
const DOCUMENT = `insert into event_documents (event_id, fingerprint, item, entry, venue_id, organizer_ids, term_ids,
  modified_utc) values ($1, 'prototype', $2, $2, null, '[]', '[]', '${NOW}')`;

const slugOf = (title: string) =>
  `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomBytes(6).toString('hex')}`;

let itemOf: (id: number) => Promise<string | undefined>;
let createEvent: ((event: NewEvent, json: string) => Promise<number>) | undefined;
// better-sqlite3 binds `?` in order (its numbered ?1 wants an object): a value used twice is passed twice.
const positional = (text: string) => text.replace(/\$\d/g, '?');

if (url.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  itemOf = async (id) =>
    (await pool.query<{ item: string }>({ name: 'prototype-item', text: READ, values: [id] })).rows[0]?.item;
  if (writeUrl) {
    const writes = new pg.Pool({ connectionString: writeUrl, max: 10 });
    createEvent = async (event, json) => {
      const client = await writes.connect();
      try {
        await client.query('begin');
        const title = event.title ?? 'Untitled';
        const { rows } = await client.query<{ id: number }>({
          name: 'prototype-post',
          text: POST,
          values: [slugOf(title), title],
        });
        const id = rows[0].id;
        await client.query({ name: 'prototype-event', text: EVENT, values: [id, event.start_date, event.end_date] });
        await client.query({ name: 'prototype-document', text: DOCUMENT, values: [id, json] });
        await client.query('commit');
        return id;
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    };
  }
} else {
  const database = new Database(url, { readonly: true, fileMustExist: true });
  const statement = database.prepare<[number], string>(positional(READ)).pluck();
  itemOf = async (id) => statement.get(id);
  if (writeUrl) {
    // As the service's store opens SQLite: the log, NORMAL synchronisation (durable at each checkpoint).
    const writes = new Database(writeUrl, { fileMustExist: true });
    // Its tables' triggers keep the search index with the function every connection of the service has.
    registerTextFunctions(writes);
    writes.pragma('journal_mode = WAL');
    writes.pragma('synchronous = NORMAL');
    const post = writes.prepare<[string, string], number>(positional(POST)).pluck();
    const row = writes.prepare(positional(EVENT));
    const document = writes.prepare(positional(DOCUMENT));
    const create = writes.transaction((event: NewEvent, json: string) => {
      const title = event.title ?? 'Untitled';
      const id = post.get(slugOf(title), title)!;
      row.run(id, event.start_date, event.end_date, event.start_date, event.end_date);
      document.run(id, json, json);
      return id;
    });
    createEvent = async (event, json) => create(event, json);
  }
}

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/events/:id', async (request, reply) => {
  const item = await itemOf(Number(request.params.id));
  if (item === undefined) return reply.code(404).send();
  return reply.type('application/json; charset=UTF-8').send(item);
});
if (createEvent) {
  const create = createEvent;
  app.post<{ Body: NewEvent }>('/events', async (request, reply) => {
    const json = JSON.stringify(request.body);
    const id = await create(request.body, json);
    return reply.code(201).type('application/json; charset=UTF-8').send(`{"id":${id}}`);
  });
}
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
