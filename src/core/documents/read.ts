// Reads events' stored documents (D34): one statement for the events and the venues and organizers they embed (or,
// where the process keeps those for the data version, linked-snapshot.ts, for the events alone), the embedded terms
// from the process's term snapshot (their counts move with every event write and with the clock, so they are never
// stored in an event's document), then string concatenation. An event is answered from its document only when
// everything it embeds has a current document too; otherwise (a draft venue, a document not rendered yet or rendered
// under another configuration) it is left out of the answer and the caller renders it live.
import { isRowId, type Db, type Store } from '../../store/store.ts';
import { embeddedTerms, type TermReader } from '../terms/embedded-cache.ts';
import { byName } from '../terms/serialize.ts';
import { TAXONOMIES } from '../terms/taxonomies.ts';
import { documentFingerprint } from './fingerprint.ts';
import type { LinkedDocumentSnapshots } from './linked-snapshot.ts';
import {
  readDocuments,
  readDocumentsWithVersion,
  readEventDocumentRows,
  type DocumentForm,
  type DocumentPartRow,
} from './store.ts';
import { fillTemplate, jsonArray, type Part } from './template.ts';

/** Who reads events' documents: a term reader, with the process's snapshot of linked documents if it has one. */
export interface DocumentReader extends TermReader {
  caches?: TermReader['caches'] & { linkedDocuments?: LinkedDocumentSnapshots };
}

export interface EventDocument {
  /** The stored text, with tokens where the parts go. */
  template: string;
  parts: Readonly<Partial<Record<Part, string>>>;
  modifiedUtc: string;
  /** The term objects it embeds (the snapshot's): what a cache of the answer checks is still current. */
  terms: readonly Record<string, unknown>[];
}

/**
 * The event's JSON as GET by id (`item`) or a list (`entry`) answers it. Filled when asked, one event at a time: a
 * list's items are filled as its answer is written, with turns of the event loop between them (D31).
 */
export const documentJson = (document: EventDocument): string => fillTemplate(document.template, document.parts);

/** Each embedded term object's JSON, encoded once (the snapshot shares one object per term and count). */
const encodedTerms = new WeakMap<object, string>();

function encodedTerm(object: Record<string, unknown>): string {
  let json = encodedTerms.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    encodedTerms.set(object, json);
  }
  return json;
}

const isIdList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((id) => Number.isSafeInteger(id));

function idList(json: string): number[] {
  const parsed: unknown = JSON.parse(json);
  if (!isIdList(parsed)) throw new Error(`a stored document lists ${json} as ids`);
  return parsed;
}

/** The documents of those of `eventIds` that can be answered from them, in `form`. */
export async function readEventDocuments(
  db: Db,
  reader: DocumentReader,
  eventIds: readonly number[],
  form: DocumentForm,
): Promise<Map<number, EventDocument>> {
  return (await readEventDocumentForms(db, reader, eventIds, [form]))[form];
}

/**
 * {@link readEventDocuments} in each of `forms`, from one statement: what a write answers (the list form, and the
 * tag of the form GET by id gives). An event is in every form's map or in none.
 */
export async function readEventDocumentForms(
  db: Db,
  reader: DocumentReader,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<Record<DocumentForm, Map<number, EventDocument>>> {
  if (eventIds.length === 0 || !reader.config.storedDocuments) return noDocuments();
  // D31: an id beyond 32 bits names no event (and PostgreSQL would refuse to compare it with an integer column).
  const ids = eventIds.filter(isRowId);
  if (ids.length === 0) return noDocuments();
  const snapshots = reader.dataVersion === undefined ? undefined : snapshotFor(db, reader);
  const rows = snapshots ? await readEventDocumentRows(db, ids, forms) : await readDocuments(db, ids, forms);
  return assembleRead(db, reader, rows, forms, snapshots, reader.dataVersion ?? '');
}

/**
 * {@link readEventDocuments}, and the data version they were read at, from one statement: a read by id that its
 * caller keeps under that version (the read cache) needs no read of the version before it (one round trip fewer on
 * PostgreSQL). The embedded terms are checked against that version too.
 */
export async function readEventDocumentsWithVersion(
  store: Store,
  reader: DocumentReader,
  eventIds: readonly number[],
  form: DocumentForm,
): Promise<{ documents: Map<number, EventDocument>; dataVersion: string }> {
  const { documents, dataVersion } = await readEventDocumentFormsWithVersion(store, reader, eventIds, [form]);
  return { documents: documents[form], dataVersion };
}

/**
 * {@link readEventDocumentForms} and the data version they were read at, from one statement: a write's answer, read
 * after its commit, checks the term snapshot against that version (at least the write's own) instead of reading it
 * again (a round trip on PostgreSQL).
 */
export async function readEventDocumentFormsWithVersion(
  store: Store,
  reader: DocumentReader,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<{ documents: Record<DocumentForm, Map<number, EventDocument>>; dataVersion: string }> {
  const ids = eventIds.filter(isRowId);
  if (ids.length === 0 || !reader.config.storedDocuments)
    return { documents: noDocuments(), dataVersion: await store.dataVersion() };
  const snapshots = snapshotFor(store.db, reader);
  const { version, rows } = await readDocumentsWithVersion(store.db, ids, forms, store.dataVersionColumn, !snapshots);
  const documents = await assembleRead(store.db, { ...reader, dataVersion: version }, rows, forms, snapshots, version);
  return { documents, dataVersion: version };
}

/** The process's snapshot of linked documents, where a read through `db` takes them from it (linked-snapshot.ts). */
function snapshotFor(db: Db, reader: DocumentReader): LinkedDocumentSnapshots | undefined {
  const snapshots = reader.caches?.linkedDocuments;
  return snapshots?.serves(db) ? snapshots : undefined;
}

/**
 * The documents of `rows`: read with their linked documents (no snapshot), or apart from them, which then come from
 * the snapshot at `version`.
 */
async function assembleRead(
  db: Db,
  reader: DocumentReader,
  rows: readonly DocumentPartRow[],
  forms: readonly DocumentForm[],
  snapshots: LinkedDocumentSnapshots | undefined,
  version: string,
): Promise<Record<DocumentForm, Map<number, EventDocument>>> {
  if (snapshots === undefined) return assembleDocuments(db, reader, ...eventsAndLinked(rows), forms);
  return assembleDocuments(db, reader, rows, await linkedFromSnapshot(snapshots, reader, version, rows), forms);
}

/** The events' rows (`part` 0) of a statement that read them with their linked documents, and those by id. */
function eventsAndLinked(rows: readonly DocumentPartRow[]): [DocumentPartRow[], Map<number, DocumentPartRow>] {
  const events: DocumentPartRow[] = [];
  const linked = new Map<number, DocumentPartRow>();
  for (const row of rows) {
    if (Number(row.part) === 0) events.push(row);
    else linked.set(Number(row.id), row);
  }
  return [events, linked];
}

/**
 * The linked documents the current ones of `events` name (their venue and organizers, written with each document in
 * the transaction that changed the event's links), from the snapshot at the reader's data version.
 */
function linkedFromSnapshot(
  snapshots: LinkedDocumentSnapshots,
  reader: Pick<DocumentReader, 'config'>,
  version: string,
  events: readonly DocumentPartRow[],
): Promise<Map<number, DocumentPartRow>> {
  const fingerprint = documentFingerprint(reader.config);
  const ids: number[] = [];
  for (const row of events) {
    if (row.fingerprint !== fingerprint) continue;
    if (row.venue_id !== null) ids.push(Number(row.venue_id));
    ids.push(...idList(row.extra));
  }
  return snapshots.rows(version, ids);
}

const noDocuments = (): Record<DocumentForm, Map<number, EventDocument>> => ({ item: new Map(), entry: new Map() });

/**
 * The events of `rows` (their documents, `part` 0) that can be answered from their documents, in each of `forms`,
 * with `linkedRows`, the documents of the venues and organizers they embed, by id.
 */
async function assembleDocuments(
  db: Db,
  reader: TermReader,
  rows: readonly DocumentPartRow[],
  linkedRows: ReadonlyMap<number, DocumentPartRow>,
  forms: readonly DocumentForm[],
): Promise<Record<DocumentForm, Map<number, EventDocument>>> {
  const out = noDocuments();
  const fingerprint = documentFingerprint(reader.config);
  const events = rows.filter((row) => row.fingerprint === fingerprint);
  const current = (id: number) => {
    const row = linkedRows.get(id);
    return row?.fingerprint === fingerprint ? row : undefined;
  };
  const termIds = new Map(events.map((row) => [Number(row.id), idList(row.term_ids)]));
  const terms = await embeddedTerms(db, reader, [...termIds.values()].flat());
  for (const row of events) {
    const id = Number(row.id);
    const venue = row.venue_id === null ? undefined : current(Number(row.venue_id));
    if (row.venue_id !== null && venue === undefined) continue;
    const organizers = idList(row.extra).map(current);
    if (!organizers.every((organizer) => organizer !== undefined)) continue;
    const embedded = termIds
      .get(id)!
      .flatMap((termId) => terms.get(termId) ?? [])
      .sort((a, b) => byName(a.row, b.row));
    const collection = (name: 'categories' | 'tags') =>
      jsonArray(
        embedded
          .filter((term) => TAXONOMIES[term.row.taxonomy].collection === name)
          .map((term) => encodedTerm(term.object)),
      );
    const people = organizers.flatMap((organizer) => (organizer.extra === '' ? [] : [organizer.extra]));
    const shared: Partial<Record<Part, string>> = {
      categories: collection('categories'),
      tags: collection('tags'),
      'ld-location': venue === undefined || venue.extra === '' ? undefined : venue.extra,
      'ld-organizer': people.length === 0 ? undefined : people.length === 1 ? people[0] : jsonArray(people),
    };
    for (const form of forms)
      out[form].set(id, {
        template: row[form],
        parts: {
          ...shared,
          venue: venue?.[form],
          organizer: jsonArray(organizers.map((organizer) => organizer[form])),
        },
        modifiedUtc: row.modified_utc,
        terms: embedded.map((term) => term.object),
      });
  }
  return out;
}
