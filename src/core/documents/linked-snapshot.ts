// The stored documents of venues and organizers (D34) that events' documents embed, kept per process for one data
// version. A read of events' documents spent more than half of its statement finding and reading them (a page of ten
// events: 100 µs of SQLite's time with them, 35 without; docs/performance.md): a site has far fewer venues and
// organizers than events, and each is embedded by many. A snapshot is exact: it holds for the data version it was
// read at, and any commit, of any process, moves the version and starts a new one, but for a commit of this process
// that wrote no venue's or organizer's document (an event's new title, a create linking a venue by id: their one
// writer says so, documents/store.ts), which moves the snapshot's version with it. Only where reads run in turn on
// the process's own connection (SQLite): a venue or organizer the snapshot lacks costs a statement of its own, which
// on PostgreSQL would be a round trip more than reading them with the events.
// The process makes one LinkedDocumentSnapshots at start (src/caches.ts); readers bring it (`DocumentReader.caches`).
import { outsideTransaction, type Db, type Store } from '../../store/store.ts';
import { readLinkedDocumentRows, type DocumentPartRow } from './store.ts';

/**
 * Characters of stored text a snapshot holds at most (about 16 MB as JavaScript strings): a site whose events embed
 * more, read within one data version, starts the snapshot over when it is full. The benchmark's 10,000 events embed
 * 1,000 venues and organizers of about 1,500 characters each.
 */
export const MAX_SNAPSHOT_CHARACTERS = 8 * 1024 * 1024;

interface Snapshot {
  version: string;
  /** Each venue or organizer read at this version: its document, or null where it has none (a draft). */
  rows: Map<number, DocumentPartRow | null>;
  characters: number;
}

const charactersOf = (row: DocumentPartRow) => row.item.length + row.entry.length + row.extra.length;

export class LinkedDocumentSnapshots {
  readonly store: Store;
  readonly #enabled: boolean;
  readonly #maxCharacters: number;
  #kept: Snapshot | undefined;

  /**
   * Off (LINKED_SNAPSHOT=0), or where the store's reads run at once on a pool of connections (PostgreSQL): readers
   * read the linked documents with the events', in the same statement.
   */
  constructor(store: Store, enabled = true, maxCharacters = MAX_SNAPSHOT_CHARACTERS) {
    this.store = store;
    this.#enabled = enabled && store.readers === 'one';
    this.#maxCharacters = maxCharacters;
    store.onOwnCommit(({ before, after, leftAlone }) => {
      const kept = this.#kept;
      if (leftAlone.has('linked documents') && kept?.version === before) kept.version = after;
    });
  }

  /** Whether a read through `db` at a known data version takes the linked documents from here. */
  serves(db: Db): boolean {
    return this.#enabled && outsideTransaction(db) === this.store;
  }

  /**
   * The documents of venues and organizers `ids` as of data version `version` (or later: a statement run after the
   * version was read sees any commit since, never an earlier state), read once per version; those without one are
   * left out.
   */
  async rows(version: string, ids: readonly number[]): Promise<Map<number, DocumentPartRow>> {
    let snapshot = this.#kept;
    if (snapshot?.version !== version) {
      snapshot = { version, rows: new Map(), characters: 0 };
      this.#kept = snapshot;
    }
    const missing = [...new Set(ids)].filter((id) => !snapshot.rows.has(id));
    if (missing.length > 0) {
      const read = new Map((await readLinkedDocumentRows(this.store.db, missing)).map((row) => [Number(row.id), row]));
      // Into the snapshot this read began with: another version's reader may have started a newer one meanwhile.
      for (const id of missing) {
        const row = read.get(id) ?? null;
        const characters = row === null ? 0 : charactersOf(row);
        if (snapshot.characters + characters > this.#maxCharacters) {
          snapshot.rows.clear();
          snapshot.characters = 0;
        }
        snapshot.rows.set(id, row);
        snapshot.characters += characters;
      }
      return pick(ids, (id) => snapshot.rows.get(id) ?? read.get(id));
    }
    return pick(ids, (id) => snapshot.rows.get(id));
  }
}

function pick(ids: readonly number[], rowOf: (id: number) => DocumentPartRow | null | undefined) {
  const found = new Map<number, DocumentPartRow>();
  for (const id of ids) {
    const row = rowOf(id);
    if (row) found.set(id, row);
  }
  return found;
}
