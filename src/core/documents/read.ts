// Reads events' stored documents (D34): one statement for the events and the venues and organizers they embed, the
// embedded terms from the process's term snapshot (their counts move with every event write and with the clock, so
// they are never stored in an event's document), then string concatenation. An event is answered from its document
// only when everything it embeds has a current document too; otherwise (a draft venue, a document not rendered yet
// or rendered under another configuration) it is left out of the answer and the caller renders it live.
import { isRowId, type Db, type Store } from '../../store/store.ts';
import { embeddedTerms, type TermReader } from '../terms/embedded-cache.ts';
import { byName } from '../terms/serialize.ts';
import { TAXONOMIES } from '../terms/taxonomies.ts';
import { documentFingerprint } from './fingerprint.ts';
import { readDocuments, readDocumentsWithVersion, type DocumentForm, type DocumentPartRow } from './store.ts';
import { fillTemplate, jsonArray, type Part } from './template.ts';

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
  reader: TermReader,
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
  reader: TermReader,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<Record<DocumentForm, Map<number, EventDocument>>> {
  if (eventIds.length === 0 || !reader.config.storedDocuments) return noDocuments();
  // D31: an id beyond 32 bits names no event (and PostgreSQL would refuse to compare it with an integer column).
  const ids = eventIds.filter(isRowId);
  if (ids.length === 0) return noDocuments();
  return assembleDocuments(db, reader, await readDocuments(db, ids, forms), forms);
}

/**
 * {@link readEventDocuments}, and the data version they were read at, from one statement: a read by id that its
 * caller keeps under that version (the read cache) needs no read of the version before it (one round trip fewer on
 * PostgreSQL). The embedded terms are checked against that version too.
 */
export async function readEventDocumentsWithVersion(
  store: Store,
  reader: TermReader,
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
  reader: TermReader,
  eventIds: readonly number[],
  forms: readonly DocumentForm[],
): Promise<{ documents: Record<DocumentForm, Map<number, EventDocument>>; dataVersion: string }> {
  const ids = eventIds.filter(isRowId);
  if (ids.length === 0 || !reader.config.storedDocuments)
    return { documents: noDocuments(), dataVersion: await store.dataVersion() };
  const { version, rows } = await readDocumentsWithVersion(store.db, ids, forms, store.dataVersionColumn);
  const documents = await assembleDocuments(store.db, { ...reader, dataVersion: version }, rows, forms);
  return { documents, dataVersion: version };
}

const noDocuments = (): Record<DocumentForm, Map<number, EventDocument>> => ({ item: new Map(), entry: new Map() });

/** The events of `rows` that can be answered from their documents, in each of `forms`. */
async function assembleDocuments(
  db: Db,
  reader: TermReader,
  rows: readonly DocumentPartRow[],
  forms: readonly DocumentForm[],
): Promise<Record<DocumentForm, Map<number, EventDocument>>> {
  const out = noDocuments();
  const fingerprint = documentFingerprint(reader.config);
  const events: DocumentPartRow[] = [];
  const linked = new Map<number, DocumentPartRow>();
  for (const row of rows) {
    if (row.fingerprint !== fingerprint) continue;
    if (Number(row.part) === 0) events.push(row);
    else linked.set(Number(row.id), row);
  }
  const termIds = new Map(events.map((row) => [Number(row.id), idList(row.term_ids)]));
  const terms = await embeddedTerms(db, reader, [...termIds.values()].flat());
  for (const row of events) {
    const id = Number(row.id);
    const venue = row.venue_id === null ? undefined : linked.get(Number(row.venue_id));
    if (row.venue_id !== null && venue === undefined) continue;
    const organizers = idList(row.extra).map((organizerId) => linked.get(organizerId));
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
