// The stored documents (D34): all SQL of `event_documents` and `linked_documents`. Written only by the renderer
// (render.ts), inside the transaction whose changes it follows; read by one statement per set of events.
import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { EventDocumentsTable, LinkedDocumentsTable } from '../../store/schema.ts';
import { chunks } from '../../store/chunks.ts';
import { preparedQuery, preparedQueryPer, type PreparedQuery } from '../../store/prepared-query.ts';
import { beforeCommit, leaveAlone, type Db, type Trx } from '../../store/store.ts';

export type EventDocumentRow = Insertable<EventDocumentsTable>;
export type LinkedDocumentRow = Insertable<LinkedDocumentsTable>;

/** Up to 16 rows (a write's) compiled once per number of rows; more (a render of many) built per statement. */
const upsertEventDocuments = preparedQuery((db, rows: readonly EventDocumentRow[]) =>
  db
    .insertInto('event_documents')
    .values(rows)
    .onConflict((conflict) =>
      conflict.column('event_id').doUpdateSet((eb) => ({
        fingerprint: eb.ref('excluded.fingerprint'),
        item: eb.ref('excluded.item'),
        entry: eb.ref('excluded.entry'),
        venue_id: eb.ref('excluded.venue_id'),
        organizer_ids: eb.ref('excluded.organizer_ids'),
        term_ids: eb.ref('excluded.term_ids'),
        modified_utc: eb.ref('excluded.modified_utc'),
      })),
    ),
);

/** One statement per 100 documents: a new row is inserted, an existing one replaced. */
export async function writeEventDocuments(trx: Trx, rows: readonly EventDocumentRow[]): Promise<void> {
  for (const part of chunks(rows, 100)) await upsertEventDocuments.affected(trx, part);
}

export async function deleteEventDocuments(trx: Trx, ids: readonly number[]): Promise<void> {
  for (const chunk of chunks(ids)) await trx.deleteFrom('event_documents').where('event_id', 'in', chunk).execute();
}

/** The transactions that wrote or deleted a linked document. */
const linkedWrites = new WeakSet<Trx>();

/** {@link writeEventDocuments} for venues and organizers. */
export async function writeLinkedDocuments(trx: Trx, rows: readonly LinkedDocumentRow[]): Promise<void> {
  linkedWrites.add(trx);
  for (const part of chunks(rows, 100)) await upsertLinkedDocuments.affected(trx, part);
}

/** The transactions already told of by {@link leaveLinkedAloneUnlessWritten}. */
const watched = new WeakSet<Trx>();

/**
 * As the one writer of `linked_documents`: if `trx` (a transaction of Store.transaction) writes none by the time it
 * commits, it says so (`leaveAlone`), so that the process's snapshot of them outlives the commit (an event's new title,
 * a create linking a venue by id). Checked before the commit, after every write of the transaction's work and its
 * followers, which render the documents.
 */
export function leaveLinkedAloneUnlessWritten(trx: Trx): void {
  if (watched.has(trx)) return;
  watched.add(trx);
  beforeCommit(trx, async () => {
    if (!linkedWrites.has(trx)) leaveAlone(trx, 'linked documents');
  });
}

const upsertLinkedDocuments = preparedQuery((db, rows: readonly LinkedDocumentRow[]) =>
  db
    .insertInto('linked_documents')
    .values(rows)
    .onConflict((conflict) =>
      conflict.column('post_id').doUpdateSet((eb) => ({
        fingerprint: eb.ref('excluded.fingerprint'),
        item: eb.ref('excluded.item'),
        entry: eb.ref('excluded.entry'),
        json_ld: eb.ref('excluded.json_ld'),
      })),
    ),
);

export async function deleteLinkedDocuments(trx: Trx, ids: readonly number[]): Promise<void> {
  linkedWrites.add(trx);
  for (const chunk of chunks(ids)) await trx.deleteFrom('linked_documents').where('post_id', 'in', chunk).execute();
}

/** A row of {@link readDocuments}: an event's document (`part` 0) or one its documents embed (`part` 1). */
export interface DocumentPartRow {
  id: number;
  part: number;
  /** The document in each form asked for (the other's column is '' when only one was). */
  item: string;
  entry: string;
  fingerprint: string;
  venue_id: number | null;
  /** Part 0: the organizer ids (JSON); part 1: the linked item's json_ld ('' for none). */
  extra: string;
  term_ids: string;
  modified_utc: string;
}

export type DocumentForm = 'item' | 'entry';

/**
 * In one statement (one round trip), the documents of `eventIds` in `forms` and those of the venues and organizers
 * they link. The linked ones are found through the events' current rows (a document that names a venue or organizer
 * another way is caught by the reader's check of its ids).
 */
export async function readDocuments(
  db: Db,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<DocumentPartRow[]> {
  // Bound values, not literals: the statement's text depends only on how many ids there are, so it is prepared once.
  return await documentsOf(forms, WITH_LINKED).rows(db, eventIds);
}

/**
 * The documents of `eventIds` in `forms`, without those of the venues and organizers they link: for a reader that
 * keeps those apart (linked-snapshot.ts), finding them by the ids each document names.
 */
export async function readEventDocumentRows(
  db: Db,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<DocumentPartRow[]> {
  return await documentsOf(forms, EVENTS_ONLY).rows(db, eventIds);
}

/** The stored documents of venues and organizers `ids` (`part` 1), in both forms. */
export async function readLinkedDocumentRows(db: Db, ids: readonly number[]): Promise<DocumentPartRow[]> {
  const rows: DocumentPartRow[] = [];
  for (const chunk of chunks(ids)) rows.push(...(await linkedDocumentsById.rows(db, chunk)));
  return rows;
}

/** Compiled once per number of ids up to a page of ten events' venues and organizers (and a few more). */
const linkedDocumentsById = preparedQuery(
  (_db, ids: readonly number[]) =>
    sql<DocumentPartRow>`
    select post_id as id, 1 as part, item, entry, fingerprint, null as venue_id, json_ld as extra, '' as term_ids,
      '' as modified_utc
    from linked_documents where post_id in (${sql.join(ids)})`,
  { longestList: 32 },
);

/** Whether a documents statement also reads the venues' and organizers' documents the events link. */
type Linked = typeof WITH_LINKED | typeof EVENTS_ONLY;
const WITH_LINKED = 'with linked';
const EVENTS_ONLY = 'events only';

/** The statement of {@link readDocuments}, compiled once per set of forms and number of ids (a page's, a read by id's). */
const documentQueries = new Map<string, PreparedQuery<[ids: readonly number[]], DocumentPartRow>>();

function documentsOf(forms: readonly DocumentForm[], linked: Linked) {
  const key = `${forms.join()};${linked}`;
  let query = documentQueries.get(key);
  if (query === undefined) {
    query = preparedQuery((_db, ids: readonly number[]) => documentsStatement(sql.join(ids), forms, linked));
    documentQueries.set(key, query);
  }
  return query;
}

/** A row of {@link readDocumentsWithVersion}'s statement: a document's (`version` null), or the version's (`part` 2). */
type VersionedPartRow = DocumentPartRow & { version: string | number | null };

/** The `part` of the one row that carries the version. */
const VERSION_PART = 2;

/**
 * {@link readDocuments} (with `linked`, else {@link readEventDocumentRows}), and the data version they were read at,
 * in one statement (`version`: the store's dataVersionColumn): a read that keeps its answer under that version (the
 * read cache of a read by id) then reads no version before it. The version comes from the statement's own snapshot,
 * so it is exactly that of the documents.
 */
export async function readDocumentsWithVersion(
  db: Db,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
  version: RawBuilder<string>,
  linked: boolean,
): Promise<{ version: string; rows: DocumentPartRow[] }> {
  const rows = await versionedDocumentsOf(forms, linked ? WITH_LINKED : EVENTS_ONLY, version).rows(db, eventIds);
  const carrier = rows.find((row) => Number(row.part) === VERSION_PART);
  if (carrier === undefined || carrier.version === null) throw new Error('the documents were read without a version');
  return { version: String(carrier.version), rows: rows.filter((row) => row !== carrier) };
}

/** Per set of forms and linked documents or not, then per version expression (one per store). */
const versionedQueries = new Map<
  string,
  (version: RawBuilder<string>) => PreparedQuery<[ids: readonly number[]], VersionedPartRow>
>();

function versionedDocumentsOf(forms: readonly DocumentForm[], linked: Linked, version: RawBuilder<string>) {
  const key = `${forms.join()};${linked}`;
  let perVersion = versionedQueries.get(key);
  if (perVersion === undefined) {
    perVersion = preparedQueryPer(
      (column: RawBuilder<string>) => (_db, ids: readonly number[]) =>
        documentsStatement<VersionedPartRow>(sql.join(ids), forms, linked, column),
    );
    versionedQueries.set(key, perVersion);
  }
  return perVersion(version);
}

/**
 * The documents' statement; with `version`, every row has a `version` column, null but in one more row (`part` 2)
 * that carries it: a union branch rather than a join, so that SQLite streams the documents instead of copying them
 * into a temporary table first.
 */
function documentsStatement<Row = DocumentPartRow>(
  ids: RawBuilder<unknown>,
  forms: readonly DocumentForm[],
  linked: Linked,
  version?: RawBuilder<string>,
) {
  const column = (form: DocumentForm) => (forms.includes(form) ? sql.ref(form) : sql.lit(''));
  const [item, entry] = [column('item'), column('entry')];
  const none = version === undefined ? sql`` : sql`, null as version`;
  const carrier =
    version === undefined
      ? sql``
      : sql`
    union all
    select null, ${sql.lit(VERSION_PART)}, '', '', '', null, '', '', '', ${version}`;
  const linkedDocuments =
    linked === EVENTS_ONLY
      ? sql``
      : sql`
    union all
    select post_id, 1, ${item}, ${entry}, fingerprint, null, json_ld, '', ''${version === undefined ? sql`` : sql`, null`}
    from linked_documents where post_id in (
      select venue_id from events where id in (${ids}) and venue_id is not null
      union select organizer_id from event_organizers where event_id in (${ids}))`;
  return sql<Row>`
    select event_id as id, 0 as part, ${item} as item, ${entry} as entry, fingerprint, venue_id,
      organizer_ids as extra, term_ids, modified_utc${none}
    from event_documents where event_id in (${ids})${linkedDocuments}${carrier}`;
}

/** Published posts whose stored document is missing or of another fingerprint: events to render, venues and organizers. */
export interface StalePosts {
  events: number[];
  linked: Array<{ id: number; type: 'venue' | 'organizer' }>;
}

/** Posts of one range of ids (or one list of ids) that {@link stalePostsInRange} checks at a time. */
export const STALE_CHECK_SPAN = 500;

/** Which posts {@link stalePosts} checks: a range of ids (`afterId` excluded, `throughId` included), or a list. */
type StaleCandidates = { afterId: number; throughId: number } | { ids: readonly number[] };

/**
 * The posts among `candidates` that should have a stored document and whose is missing or was rendered under another
 * fingerprint: published events without a password, and published venues and organizers. Status and type are
 * compared as `column || ''`, which no index serves: SQLite would otherwise walk the status or type index, every
 * published post of the database, for a range of a few hundred ids (the start of a service holding a million events
 * spent 13.9 s in one such statement); this way it reads that range of the primary key alone.
 */
async function stalePosts(db: Db, fingerprint: string, candidates: StaleCandidates): Promise<StalePosts> {
  const text = (column: 'posts.status' | 'posts.type') => sql<string>`(${sql.ref(column)} || '')`;
  let query = db
    .selectFrom('posts')
    .leftJoin('event_documents as ed', 'ed.event_id', 'posts.id')
    .leftJoin('linked_documents as ld', 'ld.post_id', 'posts.id')
    .select(['posts.id', 'posts.type'])
    .where(text('posts.status'), '=', 'publish')
    .where((eb) =>
      eb.or([
        eb.and([
          eb(text('posts.type'), '=', 'event'),
          eb('posts.password', '=', ''),
          eb.or([eb('ed.fingerprint', 'is', null), eb('ed.fingerprint', '!=', fingerprint)]),
        ]),
        eb.and([
          eb(text('posts.type'), 'in', ['venue', 'organizer']),
          eb.or([eb('ld.fingerprint', 'is', null), eb('ld.fingerprint', '!=', fingerprint)]),
        ]),
      ]),
    );
  query =
    'ids' in candidates
      ? query.where('posts.id', 'in', candidates.ids)
      : query.where('posts.id', '>', candidates.afterId).where('posts.id', '<=', candidates.throughId);
  const stale: StalePosts = { events: [], linked: [] };
  for (const row of await query.orderBy('posts.id').execute()) {
    if (row.type === 'event') stale.events.push(row.id);
    else if (row.type === 'venue' || row.type === 'organizer') stale.linked.push({ id: row.id, type: row.type });
  }
  return stale;
}

/** {@link stalePosts} with ids in (`afterId`, `throughId`]: one statement reading that range of the posts' key. */
export function stalePostsInRange(
  db: Db,
  fingerprint: string,
  afterId: number,
  throughId: number,
): Promise<StalePosts> {
  return stalePosts(db, fingerprint, { afterId, throughId });
}

/** {@link stalePosts} among `ids` (at most {@link STALE_CHECK_SPAN}). */
export async function stalePostsAmong(db: Db, fingerprint: string, ids: readonly number[]): Promise<StalePosts> {
  return ids.length === 0 ? { events: [], linked: [] } : stalePosts(db, fingerprint, { ids });
}
