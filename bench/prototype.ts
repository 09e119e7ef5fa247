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
 * - GET /events?page=N answers a page of the default list (events from yesterday to two years ahead, ten a page), or
 *   of the window `start_date` to `end_date` (whole days), with three statements on the benchmark's database: the
 *   page's ids from the occurrences' list index, their stored list entries (`event_documents.entry`), and the total
 *   summed from the occurrence counts (the window's whole months by month, its first and last months by day), joined
 *   into the list's JSON by string concatenation. Published events only, no credentials, no entity tag, no read cache,
 *   no embedded terms, venues or organizers filled in.
 * - POST /events stores a new event in one transaction, on a database of its own (WRITE_DATABASE_URL, migrated and
 *   empty): its post row, its event row and its stored document (the event's JSON as sent), three inserts, as a
 *   durable commit, with what the tables' own triggers and indexes keep (SQLite's search index among them). No
 *   validation beyond parsing JSON, no slug search, no occurrences, terms, counts, change log or hooks: the service's
 *   create adds those.
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
const PAGE_SIZE = 10;
const PAGE = `select event_id from occurrences where start_local >= $1 and start_local <= $2 and end_local <= $2
  and hidden = 0 and status = 'publish' order by start_local, published_utc, event_id limit ${PAGE_SIZE} offset $3`;
const ENTRIES = `select event_id, entry from event_documents where event_id in (${Array.from({ length: PAGE_SIZE }, (_, index) => `$${index + 1}`).join(', ')})`;
// The window's first and last months by day, the months between by month (dimension '' is every event, 'm:' its months).
const RANGE = (dimension: string, from: number) =>
  `select sum(count) as total from occurrence_counts where dimension = '${dimension}' and status = 'publish'
    and start_day >= $${from} and start_day <= $${from + 1} and end_day <= $7`;
const TOTAL = `select coalesce(sum(total), 0) as total from (${RANGE('', 1)} union all ${RANGE('m:', 3)} union all ${RANGE('', 5)}) as sums`;

/** A day `offset` days (and `years` years) from today, UTC. */
function today(offset: number, years = 0): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() + years, date.getUTCMonth(), date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

const shiftMonth = (month: string, by: number) => {
  const date = new Date(`${month}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + by);
  return date.toISOString().slice(0, 7);
};

/**
 * A list's window of whole days (`start_date`, `end_date`; by default yesterday to two years ahead, the default list's),
 * and the values of its total's statement: the first month's days, the whole months between, the last month's days,
 * and the window's last day, which bounds every range's end. A window within one month is one range of days (the
 * other two select nothing).
 */
function listWindow(first = today(-1), last = today(0, 2)) {
  const [firstMonth, lastMonth] = [first.slice(0, 7), last.slice(0, 7)];
  const ranges =
    firstMonth === lastMonth
      ? [first, last, 'none', '', 'none', '', last]
      : [
          first,
          `${firstMonth}-31`,
          shiftMonth(firstMonth, 1),
          shiftMonth(lastMonth, -1),
          `${lastMonth}-01`,
          last,
          last,
        ];
  return { from: `${first} 00:00:00`, to: `${last} 23:59:59`, ranges };
}

const pagesOf = (total: number) => Math.ceil(total / PAGE_SIZE);

/** The list's JSON from its entries in page order: the stored text joined, nothing parsed. */
function listJson(ids: readonly number[], entries: ReadonlyMap<number, string>, total: number): string {
  const items = ids.flatMap((id) => entries.get(id) ?? []);
  return `{"events":[${items.join(',')}],"total":${total},"total_pages":${pagesOf(total)}}`;
}
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
let pageOf: (page: number, window: ReturnType<typeof listWindow>) => Promise<{ json: string; total: number }>;
let createEvent: ((event: NewEvent, json: string) => Promise<number>) | undefined;
// better-sqlite3 binds `?` in order (its numbered ?1 wants an object): a value used twice is passed twice.
const positional = (text: string) => text.replace(/\$\d+/g, '?');

if (url.startsWith('postgres')) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  itemOf = async (id) =>
    (await pool.query<{ item: string }>({ name: 'prototype-item', text: READ, values: [id] })).rows[0]?.item;
  pageOf = async (page, { from, to, ranges }) => {
    // The total's statement and the page's at once, on two connections; then the entries: two round trips.
    const [sum, rows] = await Promise.all([
      pool.query<{ total: string }>({ name: 'prototype-total', text: TOTAL, values: ranges }),
      pool.query<{ event_id: number }>({
        name: 'prototype-page',
        text: PAGE,
        values: [from, to, (page - 1) * PAGE_SIZE],
      }),
    ]);
    const ids = rows.rows.map((row) => row.event_id);
    const found = await pool.query<{ event_id: number; entry: string }>({
      name: 'prototype-entries',
      text: ENTRIES,
      values: Array.from({ length: PAGE_SIZE }, (_, index) => ids[index] ?? 0),
    });
    const total = Number(sum.rows[0].total);
    return { json: listJson(ids, new Map(found.rows.map((row) => [row.event_id, row.entry])), total), total };
  };
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
  const pageIds = database.prepare<unknown[], number>(positional(PAGE)).pluck();
  const entries = database.prepare<unknown[], { event_id: number; entry: string }>(positional(ENTRIES));
  const totalOf = database.prepare<unknown[], number>(positional(TOTAL)).pluck();
  pageOf = async (page, { from, to, ranges }) => {
    // Positional: the window's end is the page statement's second and third value.
    const ids = pageIds.all(from, to, to, (page - 1) * PAGE_SIZE);
    const found = entries.all(...Array.from({ length: PAGE_SIZE }, (_, index) => ids[index] ?? 0));
    // The last range's end is the end_day bound of every range: positional, it is passed once per range.
    const [fromA, toA, fromM, toM, fromB, toB, endDay] = ranges;
    const total = totalOf.get(fromA, toA, endDay, fromM, toM, endDay, fromB, toB, endDay)!;
    return { json: listJson(ids, new Map(found.map((row) => [row.event_id, row.entry])), total), total };
  };
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
const DAY = /^\d{4}-\d{2}-\d{2}$/;
app.get<{ Querystring: { page?: string; start_date?: string; end_date?: string } }>(
  '/events',
  async (request, reply) => {
    const { page: asked, start_date: first, end_date: last } = request.query;
    const page = Math.max(1, Number(asked ?? 1) || 1);
    const window = first && last && DAY.test(first) && DAY.test(last) ? listWindow(first, last) : listWindow();
    const { json, total } = await pageOf(page, window);
    return reply
      .type('application/json; charset=UTF-8')
      .header('X-WP-Total', String(total))
      .header('X-WP-TotalPages', String(pagesOf(total)))
      .send(json);
  },
);
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
