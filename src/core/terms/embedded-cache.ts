// The term objects events embed (§3.5), kept per process. A site has few terms and every event read embeds some, but
// each embedded term carries its count, which needs a query over the scheduled posts whose date has come. A snapshot
// is exact: it holds for the data version it was read at (any process's commit moves it), and only until the next
// scheduled post's publication time, when counts change without a write. A new snapshot starts empty; a term read
// into it again keeps its previous object when neither its row nor its count changed, so that answers built from
// those objects (the item cache's) can tell, by identity, whether their embedded terms are still current.
import type { Actor } from '../../domain/actor.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { outsideTransaction, type Db, type Store } from '../../store/store.ts';
import { serializeEmbeddedTerm } from './serialize.ts';
import { publishedEventCounts, type TermRow } from './store.ts';
import { TAXONOMIES } from './taxonomies.ts';

export interface EmbeddedTerm {
  row: TermRow;
  count: number;
  /** The §3.5 object, shared by every event that embeds the term: never modified. */
  object: Record<string, unknown>;
}

interface Snapshot {
  version: string;
  /** The publication times (UTC, stored form) between which no scheduled post becomes due: counts hold. */
  from: string;
  until: string | null;
  terms: Map<number, EmbeddedTerm>;
  /** The terms of earlier snapshots not read into this one yet, whose objects a term read unchanged keeps. */
  earlier: Map<number, EmbeddedTerm>;
}

/** Terms a snapshot holds at most; a site that reads more starts a snapshot over when it is full. */
const MAX_TERMS = 2_000;

const snapshots = new WeakMap<Store, Snapshot>();
/** The refresh under way per store, shared by the readers that found the same data version. */
const refreshing = new WeakMap<Store, { version: string; snapshot: Promise<Snapshot> }>();

type Reader = Pick<Actor, 'now' | 'config'>;

/** The embedded objects of `ids` (those that name a term); from the snapshot when `db` reads outside a transaction. */
export async function embeddedTerms(db: Db, reader: Reader, ids: readonly number[]): Promise<Map<number, EmbeddedTerm>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const nowUtc = formatWp(reader.now);
  const store = outsideTransaction(db);
  const snapshot = store && await currentSnapshot(store, nowUtc);
  // A request whose time the snapshot does not cover (it started before the snapshot, or a scheduled post came due
  // while it was read) reads for itself.
  if (!snapshot || !holdsAt(snapshot, nowUtc)) return loadEmbeddedTerms(db, reader, wanted, nowUtc);
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

/** Whether these embedded term objects (from {@link embeddedTerms}) are the current ones: each term and its count unchanged. */
export async function embeddedTermsCurrent(store: Store, reader: Reader, objects: readonly Record<string, unknown>[]): Promise<boolean> {
  if (objects.length === 0) return true;
  const current = await embeddedTerms(store.db, reader, objects.map((object) => object.id as number));
  return objects.every((object) => current.get(object.id as number)?.object === object);
}

const holdsAt = (snapshot: Snapshot, nowUtc: string) => snapshot.from <= nowUtc && (snapshot.until === null || nowUtc < snapshot.until);

async function currentSnapshot(store: Store, nowUtc: string): Promise<Snapshot> {
  const version = await store.dataVersion();
  const kept = snapshots.get(store);
  if (kept && kept.version === version && holdsAt(kept, nowUtc)) return kept;
  // A refresh started at another version may hold rows older than a commit this reader must see: not shared.
  const pending = refreshing.get(store);
  if (pending?.version === version) return pending.snapshot;
  const started = { version, snapshot: refresh(store, kept, version, nowUtc) };
  refreshing.set(store, started);
  started.snapshot.finally(() => {
    if (refreshing.get(store) === started) refreshing.delete(store);
  }).catch(() => {});
  return started.snapshot;
}

async function refresh(store: Store, previous: Snapshot | undefined, version: string, nowUtc: string): Promise<Snapshot> {
  // Read after the version: a commit meanwhile only makes this snapshot newer than its version says, never older.
  const next = await store.db.selectFrom('posts').select('date_utc as due')
    .where('status', '=', 'future').where('date_utc', '>', nowUtc)
    .orderBy('status').orderBy('date_utc').limit(1)
    .executeTakeFirst();
  const earlier = new Map([...(previous?.earlier ?? []), ...(previous?.terms ?? [])]);
  const snapshot: Snapshot = { version, from: nowUtc, until: next?.due ?? null, terms: new Map(), earlier: earlier.size > MAX_TERMS ? new Map() : earlier };
  snapshots.set(store, snapshot);
  return snapshot;
}

const sameTerm = (a: EmbeddedTerm, b: EmbeddedTerm) =>
  a.count === b.count && (Object.keys(a.row) as (keyof TermRow)[]).every((column) => a.row[column] === b.row[column]);

async function loadEmbeddedTerms(db: Db, reader: Pick<Actor, 'config'>, ids: readonly number[], nowUtc: string): Promise<Map<number, EmbeddedTerm>> {
  if (ids.length === 0) return new Map();
  const [rows, counts] = await Promise.all([
    db.selectFrom('terms').selectAll().where('id', 'in', ids).execute(),
    publishedEventCounts(db, ids, nowUtc),
  ]);
  return new Map(rows.map((row) => {
    const count = counts.get(row.id) ?? 0;
    return [row.id, { row, count, object: serializeEmbeddedTerm(reader.config, TAXONOMIES[row.taxonomy], row, count) }];
  }));
}
