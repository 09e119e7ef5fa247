// The read-only half of an event write's terms (terms/service.ts resolveTermsForWrite) for many event writes in one
// transaction (the batch import): each reference is looked up once, with the others of the batch, instead of twice per
// write. What it answers for a write is what resolveTermsForWrite would, up to the point where that writes: the ids,
// a refusal with the same name, or "some are new" (the caller then runs resolveTermsForWrite itself, which creates them).
import type { Actor } from '../../domain/actor.ts';
import { sanitizeTitle } from '../../domain/html.ts';
import { isRowId, type Store, type Trx } from '../../store/store.ts';
import { findTermsByNames, findTermsByRefs, type TermRow } from './store.ts';
import { TAXONOMIES, type Taxonomy } from './taxonomies.ts';

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * The references of a write's values (resolveTermsForWrite, terms/service.ts, reads them so too). Numbers and numeric
 * strings are ids, as in the reference (`is_numeric`): kept as canonical digits when they can name a term, dropped
 * otherwise (an unknown id is skipped anyway). Anything else is a slug or a name; blanks are dropped.
 */
export function termRefs(values: ReadonlyArray<string | number>): string[] {
  const refs: string[] = [];
  for (const value of values) {
    const text = String(value).trim();
    if (text === '') continue;
    if (typeof value !== 'number' && !NUMERIC.test(text)) refs.push(text);
    else if (isRowId(Number(text))) refs.push(String(Number(text)));
  }
  return refs;
}

const isId = (ref: string) => /^\d+$/.test(ref);

export type TermLookupResult =
  /** Every name is a term: their ids, as resolveTermsForWrite answers them. */
  | { ids: number[] }
  /** resolveTermsForWrite would refuse the write, naming this value. */
  | { refused: string }
  /** Some names are new and the actor may create them: resolveTermsForWrite must write this one. */
  | { create: true };

/**
 * Terms of the references of many writes in one transaction, read a batch at a time and kept for the transaction's
 * length (a term that a write of the batch creates is forgotten first: {@link TermLookup.forget}).
 */
export class TermLookup {
  /** Per taxonomy, by reference (an id or a slug): the term, or null for none. */
  readonly #byRef = new Map<Taxonomy, Map<string, TermRow | null>>();
  /** Per taxonomy, by lower-cased name: the term, or null for none. */
  readonly #byName = new Map<Taxonomy, Map<string, TermRow | null>>();
  readonly #trx: Trx;
  readonly #store: Pick<Store, 'lower'>;

  constructor(trx: Trx, store: Pick<Store, 'lower'>) {
    this.#trx = trx;
    this.#store = store;
  }

  #maps(taxonomy: Taxonomy) {
    let byRef = this.#byRef.get(taxonomy);
    let byName = this.#byName.get(taxonomy);
    if (!byRef || !byName) {
      byRef = new Map();
      byName = new Map();
      this.#byRef.set(taxonomy, byRef);
      this.#byName.set(taxonomy, byName);
    }
    return { byRef, byName };
  }

  /** Reads, in two queries, every reference of `valueLists` not read yet (a batch's writes ask for them next). */
  async prefetch(taxonomy: Taxonomy, valueLists: ReadonlyArray<ReadonlyArray<string | number>>): Promise<void> {
    const { byRef, byName } = this.#maps(taxonomy);
    const refs = [...new Set(valueLists.flatMap((values) => termRefs(values)))];
    const unread = refs.filter((ref) => !byRef.has(ref));
    if (unread.length > 0) {
      const found = await findTermsByRefs(this.#trx, taxonomy, unread);
      for (const ref of unread) byRef.set(ref, found.get(ref) ?? null);
    }
    const names = [
      ...new Set(refs.filter((ref) => byRef.get(ref) === null && !isId(ref)).map((ref) => ref.toLowerCase())),
    ].filter((name) => !byName.has(name));
    if (names.length > 0) {
      const found = await findTermsByNames(this.#store, this.#trx, taxonomy, names);
      for (const name of names) byName.set(name, found.get(name) ?? null);
    }
  }

  /** What resolveTermsForWrite would do with `values` of a write by `actor`, without writing. */
  async resolve(actor: Actor, taxonomy: Taxonomy, values: ReadonlyArray<string | number>): Promise<TermLookupResult> {
    await this.prefetch(taxonomy, [values]);
    const { byRef, byName } = this.#maps(taxonomy);
    const refs = termRefs(values);
    const termOf = (ref: string) => byRef.get(ref) ?? (isId(ref) ? null : byName.get(ref.toLowerCase())) ?? null;
    const unresolved = refs.filter((ref) => !isId(ref) && termOf(ref) === null);
    if (unresolved.length > 0) {
      if (!TAXONOMIES[taxonomy].canManage(actor.viewer)) return { refused: unresolved[0] };
      const blank = unresolved.find((ref) => sanitizeTitle(ref) === '');
      return blank === undefined ? { create: true } : { refused: blank };
    }
    const ids = refs.map((ref) => termOf(ref)?.id).filter((id): id is number => id !== undefined);
    return { ids: [...new Set(ids)] };
  }

  /** Reads the references of `values` again when next asked: a write has just created terms for some of them. */
  forget(taxonomy: Taxonomy, values: ReadonlyArray<string | number>): void {
    const { byRef, byName } = this.#maps(taxonomy);
    for (const ref of termRefs(values)) {
      byRef.delete(ref);
      byName.delete(ref.toLowerCase());
    }
  }
}
