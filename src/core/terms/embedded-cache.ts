// The term objects events embed (§3.5), kept per process. A site has few terms and every event read embeds some, but
// each embedded term carries its count, which needs a query over the scheduled posts whose date has come. A snapshot
// is exact: it holds for the data version it was read at (any process's commit moves it, but for one of this process
// that said it left the terms alone), and only until the next scheduled post's publication time, when counts change
// without a write. A new snapshot starts empty; a term read
// into it again keeps its previous object when neither its row nor its count changed, so that answers built from
// those objects (the item cache's) can tell, by identity, whether their embedded terms are still current.
// The process makes one EmbeddedTermSnapshots at start (src/caches.ts) and readers bring it (`TermReader.caches`).
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import { outsideTransaction, type Db, type Store } from '../../store/store.ts';
import { resolveFilterRefs, termTable, type TermTable } from './filter-table.ts';
import { serializeEmbeddedTerm } from './serialize.ts';
import { publishedEventCounts, type TermRow } from './store.ts';
import { TAXONOMIES, type Taxonomy } from './taxonomies.ts';

export interface EmbeddedTerm {
  row: TermRow;
  count: number;
  /** The §3.5 object, shared by every event that embeds the term: never modified. */
  object: Record<string, unknown>;
}

interface Snapshot {
  version: string;
  /** The configuration its term objects were serialised for (their URLs). */
  config: TermReader['config'];
  /** The publication times (UTC, stored form) between which no scheduled post becomes due: counts hold. */
  from: string;
  until: string | null;
  terms: Map<number, EmbeddedTerm>;
  /** The terms of earlier snapshots not read into this one yet, whose objects a term read unchanged keeps. */
  earlier: Map<number, EmbeddedTerm>;
  /**
   * Per taxonomy, its terms' ids, slugs and parents, read the first time a list's filter asks (undefined: more than
   * {@link MAX_TERMS}, not kept). Term rows move only with writes that say nothing of leaving the terms alone, which
   * start a new snapshot.
   */
  tables: Map<Taxonomy, Promise<TermTable | undefined>>;
}

/** Terms a snapshot holds at most; a site that reads more starts a snapshot over when it is full. */
const MAX_TERMS = 2_000;

/** Who reads embedded terms: the time and configuration they are read for, and the process's snapshot if it has one. */
export interface TermReader extends Pick<Actor, 'now' | 'config'> {
  /** Made once per process (src/caches.ts); a reader without it reads the terms itself. */
  caches?: { embeddedTerms: EmbeddedTermSnapshots };
  /**
   * The store's data version this read is answered at, when its caller already read it (the read cache of anonymous
   * GETs, which write nothing): the snapshot is checked against it instead of reading it again (a round trip on
   * PostgreSQL).
   */
  dataVersion?: string;
}

/** The embedded objects of `ids` (those that name a term); from the snapshot when `db` reads outside a transaction. */
export async function embeddedTerms(
  db: Db,
  reader: TermReader,
  ids: readonly number[],
): Promise<Map<number, EmbeddedTerm>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const snapshots = reader.caches?.embeddedTerms;
  // Reads inside a transaction must see its own writes; and a snapshot answers only for its own store's database.
  if (snapshots && outsideTransaction(db) === snapshots.store) return snapshots.read(reader, wanted);
  return loadEmbeddedTerms(db, reader, wanted, formatWp(reader.now));
}

/** The process's snapshots of embedded terms for one store, each replaced when the data version or the clock moves on. */
export class EmbeddedTermSnapshots {
  readonly store: Store;
  #kept: Snapshot | undefined;
  /** The refresh under way, shared by the readers that found the same data version. */
  #refreshing: { version: string; snapshot: Promise<Snapshot> } | undefined;

  /** Off (TERM_SNAPSHOT=0): every read loads the terms and their counts, as a reader without a snapshot does. */
  readonly #enabled: boolean;

  constructor(store: Store, enabled = true) {
    this.store = store;
    this.#enabled = enabled;
    // A commit of this process that left the terms alone (an event's new title) moves the version, not what is kept;
    // one that only moved some counts (a new event's terms) moves those counts by as much.
    store.onOwnCommit(({ before, after, leftAlone, termCountDeltas }) => {
      const kept = this.#kept;
      if (!leftAlone.has('terms') || kept?.version !== before) return;
      for (const [id, delta] of termCountDeltas) {
        const term = kept.terms.get(id);
        if (term !== undefined) kept.terms.set(id, embeddedTerm(kept.config, term.row, term.count + delta));
      }
      kept.version = after;
    });
  }

  /** The embedded objects of `wanted` (distinct ids). */
  async read(reader: Omit<TermReader, 'caches'>, wanted: readonly number[]): Promise<Map<number, EmbeddedTerm>> {
    const db = this.store.db;
    const nowUtc = formatWp(reader.now);
    if (!this.#enabled) return loadEmbeddedTerms(db, reader, wanted, nowUtc);
    const snapshot = await this.#current(reader.config, nowUtc, reader.dataVersion);
    // A request whose time the snapshot does not cover (it started before the snapshot, or a scheduled post came due
    // while it was read) reads for itself.
    if (!holdsAt(snapshot, nowUtc)) return loadEmbeddedTerms(db, reader, wanted, nowUtc);
    const missing = wanted.filter((id) => !snapshot.terms.has(id));
    if (missing.length > 0) {
      if (snapshot.terms.size + missing.length > MAX_TERMS) snapshot.terms.clear();
      for (const [id, term] of await loadEmbeddedTerms(db, reader, missing, nowUtc)) {
        // The object another reader put here meanwhile, or the one of an earlier snapshot.
        const before = snapshot.terms.get(id) ?? snapshot.earlier.get(id);
        snapshot.terms.set(id, before && sameTerm(before, term) ? before : term);
        snapshot.earlier.delete(id);
      }
    }
    const found = new Map<number, EmbeddedTerm>();
    for (const id of wanted) {
      const term = snapshot.terms.get(id);
      if (term) found.set(id, term);
    }
    return found;
  }

  /**
   * The ids a list's `categories` or `tags` filter names (resolveTermsForFilter's answer: null when a value names no
   * term), from the snapshot at the version the reader's request already read: no statement while the snapshot holds,
   * where the filter took two (the terms, then a category's descendants), a round trip each on PostgreSQL. Undefined
   * where the snapshot cannot answer (off, no version read yet, a taxonomy of more terms than it keeps): the caller
   * reads them.
   */
  async filterIds(
    reader: Omit<TermReader, 'caches'>,
    taxonomy: Taxonomy,
    refs: readonly string[],
  ): Promise<number[] | null | undefined> {
    if (!this.#enabled || reader.dataVersion === undefined) return undefined;
    const nowUtc = formatWp(reader.now);
    const snapshot = await this.#current(reader.config, nowUtc, reader.dataVersion);
    if (!holdsAt(snapshot, nowUtc)) return undefined;
    let table = snapshot.tables.get(taxonomy);
    if (table === undefined) {
      table = readTable(this.store.db, taxonomy);
      snapshot.tables.set(taxonomy, table);
      // A failed read is not kept: the next list reads again.
      table.catch(() => snapshot.tables.delete(taxonomy));
    }
    const held = await table;
    return held === undefined ? undefined : resolveFilterRefs(held, refs, TAXONOMIES[taxonomy].hierarchical);
  }

  /** Whether these embedded term objects (from {@link read}) are the current ones: each term and its count unchanged. */
  async current(reader: Pick<Actor, 'now' | 'config'>, objects: readonly Record<string, unknown>[]): Promise<boolean> {
    if (objects.length === 0) return true;
    const ids = objects.map((object) => object.id);
    // An object read() gave carries its term's numeric id: one without is no current one.
    if (!ids.every((id) => typeof id === 'number')) return false;
    const current = await this.read(reader, [...new Set(ids)]);
    return objects.every((object, index) => current.get(ids[index])?.object === object);
  }

  async #current(config: TermReader['config'], nowUtc: string, readVersion: string | undefined): Promise<Snapshot> {
    const version = readVersion ?? (await this.store.dataVersion());
    const kept = this.#kept;
    if (kept && kept.version === version && holdsAt(kept, nowUtc)) return kept;
    // A refresh started at another version may hold rows older than a commit this reader must see: not shared.
    const pending = this.#refreshing;
    if (pending?.version === version) return pending.snapshot;
    const started = { version, snapshot: this.#refresh(config, kept, version, nowUtc) };
    this.#refreshing = started;
    started.snapshot
      .finally(() => {
        if (this.#refreshing === started) this.#refreshing = undefined;
      })
      .catch(() => {});
    return started.snapshot;
  }

  async #refresh(
    config: TermReader['config'],
    previous: Snapshot | undefined,
    version: string,
    nowUtc: string,
  ): Promise<Snapshot> {
    // Read after the version: a commit meanwhile only makes this snapshot newer than its version says, never older.
    const next = await nextDue.first(this.store.db, nowUtc);
    const earlier = new Map([...(previous?.earlier ?? []), ...(previous?.terms ?? [])]);
    const snapshot: Snapshot = {
      version,
      config,
      from: nowUtc,
      until: next?.due ?? null,
      terms: new Map(),
      earlier: earlier.size > MAX_TERMS ? new Map() : earlier,
      tables: new Map(),
    };
    this.#kept = snapshot;
    return snapshot;
  }
}

/** When the next scheduled post is due: the snapshot's counts hold until then. */
const nextDue = preparedQuery((db, nowUtc: string) =>
  db
    .selectFrom('posts')
    .select('date_utc as due')
    .where('status', '=', 'future')
    .where('date_utc', '>', nowUtc)
    .orderBy('status')
    .orderBy('date_utc')
    .limit(1),
);

/** A taxonomy's terms as a filter reads them, up to {@link MAX_TERMS} (undefined past that). */
async function readTable(db: Db, taxonomy: Taxonomy): Promise<TermTable | undefined> {
  const rows = await taxonomyTerms.rows(db, taxonomy);
  return rows.length > MAX_TERMS ? undefined : termTable(rows);
}

const taxonomyTerms = preparedQuery((db, taxonomy: Taxonomy) =>
  db
    .selectFrom('terms')
    .select(['id', 'slug', 'parent_id'])
    .where('taxonomy', '=', taxonomy)
    .limit(MAX_TERMS + 1),
);

const holdsAt = (snapshot: Snapshot, nowUtc: string) =>
  snapshot.from <= nowUtc && (snapshot.until === null || nowUtc < snapshot.until);

/** Whether two rows of one table hold the same values, column by column. */
const sameRow = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  Object.keys(a).every((column) => a[column] === b[column]);

const sameTerm = (a: EmbeddedTerm, b: EmbeddedTerm) => a.count === b.count && sameRow(a.row, b.row);

const termsByIds = preparedQuery((db, ids: readonly number[]) =>
  db.selectFrom('terms').selectAll().where('id', 'in', ids),
);

async function loadEmbeddedTerms(
  db: Db,
  reader: Pick<Actor, 'config'>,
  ids: readonly number[],
  nowUtc: string,
): Promise<Map<number, EmbeddedTerm>> {
  if (ids.length === 0) return new Map();
  const [rows, counts] = await Promise.all([termsByIds.rows(db, ids), publishedEventCounts(db, ids, nowUtc)]);
  return new Map(rows.map((row) => [row.id, embeddedTerm(reader.config, row, counts.get(row.id) ?? 0)]));
}

const embeddedTerm = (config: TermReader['config'], row: TermRow, count: number): EmbeddedTerm => ({
  row,
  count,
  object: serializeEmbeddedTerm(config, TAXONOMIES[row.taxonomy], row, count),
});
