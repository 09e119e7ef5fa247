import { MAX_SLUG_LENGTH, uniqueSlug } from '../../domain/slugs.ts';

const fit = (slug: string) =>
  slug.length > MAX_SLUG_LENGTH ? slug.slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '') : slug;

/**
 * WordPress `wp_unique_term_slug`: `base` when free; for a child category, then `base-<parent>`,
 * `base-<parent>-<grandparent>`, …; then the last of those numbered `-2`, `-3`, … `ancestorSlugs` is nearest first.
 */
export function uniqueTermSlug(base: string, ancestorSlugs: readonly string[], taken: ReadonlySet<string>): string {
  let candidate = base;
  if (!taken.has(candidate)) return candidate;
  for (const ancestor of ancestorSlugs) {
    candidate = fit(`${candidate}-${ancestor}`);
    if (!taken.has(candidate)) return candidate;
  }
  return uniqueSlug(candidate, (slug) => taken.has(slug));
}
