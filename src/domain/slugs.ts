// Slugs for events, venues, organizers and terms (reference §3.1 `slug`, §5.2, §7.2, §9.3; D2): WordPress's
// `sanitize_title`, `wp_unique_post_slug` and the `__trashed` suffix.
import slugifyText from '@sindresorhus/slugify';

/** WordPress's `post_name` column is `varchar(200)`. */
export const MAX_SLUG_LENGTH = 200;

const TRASHED_SUFFIX = '__trashed';

/**
 * `@sindresorhus/slugify` options that bring it close to WordPress's `sanitize_title`:
 * - `&` is dropped, as WordPress drops it (the library would spell it `and`);
 * - German umlauts lose their accent (`Ü` → `u`), as WordPress's `remove_accents` does for every locale but German
 *   (the library would spell them `ue`);
 * - `fooBar` stays one word (`foobar`), and underscores are kept, as in WordPress.
 */
const SLUGIFY_OPTIONS = {
  decamelize: false,
  preserveCharacters: ['_'],
  customReplacements: [
    ['&', ''],
    ['Ä', 'A'],
    ['Ö', 'O'],
    ['Ü', 'U'],
    ['ä', 'a'],
    ['ö', 'o'],
    ['ü', 'u'],
  ],
} satisfies Parameters<typeof slugifyText>[1];

/**
 * A URL slug: lowercase ASCII letters, digits, `-` and `_`, accents transliterated (`Café Ü` → `cafe-u`), other
 * characters turned into single dashes, at most 200 characters. `""` when nothing usable is left (whitespace,
 * symbols, or scripts that cannot be transliterated such as Chinese): callers then fall back, e.g. to the id.
 */
export function slugify(input: string): string {
  return truncateSlug(slugifyText(input, SLUGIFY_OPTIONS), MAX_SLUG_LENGTH);
}

/**
 * `base` (a non-empty slug) if no other item uses it, else the first free one of `base-2`, `base-3`, … (WordPress
 * `wp_unique_post_slug`).
 */
export function uniqueSlug(base: string, isTaken: (candidate: string) => boolean): string {
  let candidate = base;
  for (let number = 2; isTaken(candidate); number++) candidate = numberedSlug(base, number);
  return candidate;
}

/** {@link uniqueSlug} with an asynchronous check. */
export async function uniqueSlugAsync(base: string, isTaken: (candidate: string) => Promise<boolean>): Promise<string> {
  let candidate = base;
  for (let number = 2; await isTaken(candidate); number++) candidate = numberedSlug(base, number);
  return candidate;
}

/**
 * Slugs for new items (one or many at once), in order: each the first of `base`, `base-2`, … not in `taken` (the slugs
 * in use that are a base or a numbered form of one; for a base longer than 197 characters, with the base shortened as
 * in {@link uniqueSlug}) nor picked for an earlier item. The search for a repeated base resumes after its previous
 * pick, so a thousand items of one title cost a thousand look-ups, not half a million.
 */
export function assignUniqueSlugs(bases: readonly string[], taken: ReadonlySet<string>): string[] {
  const used = new Set(taken);
  const resumeAt = new Map<string, number>();
  return bases.map((base) => {
    let number = resumeAt.get(base) ?? 2;
    let candidate = base;
    while (used.has(candidate)) candidate = numberedSlug(base, number++);
    resumeAt.set(base, number);
    used.add(candidate);
    return candidate;
  });
}

/**
 * The slug of a trashed item: `<slug>__trashed`, the slug shortened first so that the result still fits in 200
 * characters (WordPress `wp_add_trashed_suffix_to_post_name_for_post`). An already trashed slug is returned as is.
 */
export function trashedSlug(slug: string): string {
  if (slug.endsWith(TRASHED_SUFFIX)) return slug;
  return truncateSlug(slug, MAX_SLUG_LENGTH - TRASHED_SUFFIX.length) + TRASHED_SUFFIX;
}

/**
 * The slug without its `__trashed` suffix (the caller then makes it unique again). Slugs are unique, so a second
 * trashed `party` is `party__trashed-2`: that number goes with the suffix.
 */
export function untrashedSlug(slug: string): string {
  const match = /__trashed(?:-\d+)?$/.exec(slug);
  return match ? slug.slice(0, match.index) : slug;
}

/** `base-<number>`, the base shortened so that the result fits in 200 characters. */
/** The first `count` candidates for `base`: `base`, `base-2`, `base-3`… */
export function slugCandidates(base: string, count: number): string[] {
  return [base, ...Array.from({ length: count - 1 }, (_, index) => numberedSlug(base, index + 2))];
}

function numberedSlug(base: string, number: number): string {
  const tail = `-${number}`;
  return truncateSlug(base, MAX_SLUG_LENGTH - tail.length) + tail;
}

/** WordPress `_truncate_post_slug`: cut to `length` characters and drop the dashes the cut leaves at the end. */
function truncateSlug(slug: string, length: number): string {
  return slug.length > length ? slug.slice(0, length).replace(/-+$/, '') : slug;
}
