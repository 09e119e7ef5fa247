import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';

/**
 * D30: keyword search served by an FTS5 index with the trigram tokenizer. The index holds the Unicode lower-cased
 * (unicode_lower, the very function containsText compares with) title, excerpt and content of every event, kept by
 * triggers on `posts` in the write's own transaction, so that every path that writes posts (the post lifecycle, the
 * bulk import, deletions and their cascades) keeps it exact without knowing of it. Contentless (the text is in
 * `posts` already), with deletes by rowid.
 *
 * The index only narrows the candidates: a term of three characters or more must occur in one of the three columns,
 * which every match of containsText satisfies; the exact conditions (containsText on each column, D33's protected
 * content) still decide, so results are exactly those of the scan.
 */
const LOWERED = (row: string) =>
  `${row}.id, unicode_lower(${row}.title), unicode_lower(${row}.excerpt), unicode_lower(${row}.content)`;

/**
 * D31: indexing runs inside the write's statement, synchronously; an event of the longest allowed description and
 * excerpt (512 KiB of text) would take 40–180 ms to index (measured). Longer texts than this are not indexed but listed
 * in `posts_search_unindexed`, and every search takes them as candidates (the exact conditions then read them).
 */
export const MAX_INDEXED_CHARACTERS = 65_536;
const LONG = (row: string) =>
  `length(${row}.title) + length(${row}.excerpt) + length(${row}.content) > ${MAX_INDEXED_CHARACTERS}`;

// CROSS JOIN keeps the pending rows first: by `p.type = 'event'` SQLite would otherwise read every event's row.
const INDEX_PENDING_ROWS = `
  insert into posts_search (rowid, title, excerpt, content) select ${LOWERED('p')}
    from posts_search_pending as q cross join posts as p on p.id = q.id
    where p.type = 'event' and not (${LONG('p')});
  insert into posts_search_unindexed (id) select p.id from posts_search_pending as q cross join posts as p on p.id = q.id
    where p.type = 'event' and ${LONG('p')};`;
const UNINDEX_ROW = (row: 'old') => `
  delete from posts_search where rowid = ${row}.id;
  delete from posts_search_unindexed where id = ${row}.id;
  delete from posts_search_pending where id = ${row}.id;`;

/**
 * A write does not index its event's text itself: it lists the event in `posts_search_pending`, which every search
 * takes as candidates (as it takes the unindexed ones), and the write that brings the list to this length indexes
 * them all at once. FTS5 tokenises an event's text into many trigrams, and writes a new segment of the index (and
 * merges older ones) at the end of every transaction that changed it: one segment per 64 events instead of one per
 * event took a create from 6.33 to 5.58 million instructions (docs/performance.md). What it costs a search: at most
 * this many more candidates to check with the exact conditions.
 */
export const PENDING_SEARCH_ROWS = 64;
const PENDING = 'select id from posts_search_pending';

/**
 * A bulk load goes without the insert trigger (one pending row per event; bulk-load.ts): it is created again at the
 * load's end, and {@link backfillSearchIndex} then adds the loaded events in one statement.
 */
export const SEARCH_INSERT_TRIGGER = 'posts_search_insert';
const SEARCH_TRIGGERS = {
  [SEARCH_INSERT_TRIGGER]: `after insert on posts when new.type = 'event' begin
    insert or ignore into posts_search_pending (id) values (new.id); end`,
  // An event's text changed, or a post became or stopped being an event: what the index holds of it is out of date.
  posts_search_update: `after update of title, excerpt, content, type on posts
    when new.type = 'event' or old.type = 'event' begin
    insert or ignore into posts_search_pending (id) values (new.id); end`,
  posts_search_delete: `after delete on posts begin${UNINDEX_ROW('old')} end`,
  posts_search_index_pending: `after insert on posts_search_pending
    when (select count(*) from posts_search_pending) >= ${PENDING_SEARCH_ROWS} begin
    delete from posts_search where rowid in (${PENDING});
    delete from posts_search_unindexed where id in (${PENDING});${INDEX_PENDING_ROWS}
    delete from posts_search_pending; end`,
};

/**
 * The search index's triggers as they are now (migration 0012 on a new database, 0023 on one from before pending
 * rows): dropped if there, then created.
 */
export async function installSearchTriggers(db: Kysely<any>): Promise<void> {
  await sql.raw('create table if not exists posts_search_pending (id integer primary key)').execute(db);
  for (const [name, body] of Object.entries(SEARCH_TRIGGERS)) {
    await sql.raw(`drop trigger if exists ${name}`).execute(db);
    await sql.raw(`create trigger ${name} ${body}`).execute(db);
  }
}

/** The last event the index has seen (ids only grow): a bulk load without the insert trigger adds those after it. */
const LAST_SEEN = `select max(coalesce((select rowid from posts_search order by rowid desc limit 1), 0),
  coalesce((select max(id) from posts_search_unindexed), 0), coalesce((select max(id) from posts_search_pending), 0))
  as "last"`;
const BACKFILL = (after: number) => [
  `insert into posts_search_unindexed (id) select id from posts
    where type = 'event' and id > ${after} and length(title) + length(excerpt) + length(content) > ${MAX_INDEXED_CHARACTERS}`,
  `insert into posts_search (rowid, title, excerpt, content)
    select id, unicode_lower(title), unicode_lower(excerpt), unicode_lower(content) from posts
    where type = 'event' and id > ${after} and length(title) + length(excerpt) + length(content) <= ${MAX_INDEXED_CHARACTERS} order by id`,
];

export async function createSearchIndex(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`create virtual table posts_search using fts5(title, excerpt, content, content='', contentless_delete=1,
    tokenize='trigram case_sensitive 1')`)
    .execute(db);
  await sql.raw('create table posts_search_unindexed (id integer primary key)').execute(db);
  await installSearchTriggers(db);
  await backfillSearchIndex(db);
}

export async function backfillSearchIndex(db: Kysely<any>): Promise<void> {
  const last = Number((await sql.raw<{ last: number }>(LAST_SEEN).execute(db)).rows[0].last);
  for (const statement of BACKFILL(last)) await sql.raw(statement).execute(db);
}

/** Trigram: a term shorter than three characters has no trigram to look up, and is left to the scan. */
const MIN_INDEXED_LENGTH = 3;

/**
 * The events whose title, excerpt or content may contain every indexed term, as `id in (…)`; undefined when no term is
 * long enough to be looked up. Terms are matched as FTS5 phrases of trigrams, that is as substrings.
 */
export function searchIndexFilter(
  id: Expression<number> | RawBuilder<unknown>,
  terms: readonly string[],
): RawBuilder<SqlBool> | undefined {
  const indexed = terms.map((term) => term.toLowerCase()).filter((term) => [...term].length >= MIN_INDEXED_LENGTH);
  if (indexed.length === 0) return undefined;
  const query = indexed.map((term) => `"${term.replaceAll('"', '""')}"`).join(' AND ');
  return sql<SqlBool>`${id} in (select rowid from posts_search where posts_search match ${query} union all select id from posts_search_unindexed union all ${sql.raw(PENDING)})`;
}
