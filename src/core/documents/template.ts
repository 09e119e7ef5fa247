// A stored document is JSON text with tokens where the parts that other items own go: the venue, the organizers, the
// categories and tags (kept by their own owners, so that a venue's edit renders the venue, not its thousands of
// events), and the event's json_ld keys that embed the venue's and organizers' json_ld. A token is a JSON string
// holding a lone UTF-16 surrogate, which JSON.stringify writes as `"\ud800…"`: text read from the database never
// holds one (both drivers decode UTF-8, where a lone surrogate cannot be written), and a literal backslash in any
// value is written as `\\`, so a value can never produce a token.
const MARK = '\ud800';

export type Part = 'venue' | 'organizer' | 'categories' | 'tags' | 'ld-location' | 'ld-organizer';

/** The value to put in an object being rendered, where part `name` goes. */
export const token = (name: Part): string => `${MARK}${name}`;

/** A token as JSON.stringify wrote it, with the key before it when it is an optional key of an object. */
const TOKENS = /(,"[A-Za-z@]+":)?"\\ud800([a-z-]+)"/g;

/**
 * The document with each token replaced by its part's JSON text; an optional key (written with its key, e.g.
 * `"location":`) whose part is undefined is left out, with its comma.
 */
export function fillTemplate(template: string, parts: Readonly<Partial<Record<Part, string>>>): string {
  return template.replace(TOKENS, (_match, key: string | undefined, name: Part) => {
    const value = parts[name];
    if (value === undefined) {
      if (key === undefined) throw new Error(`fillTemplate: no text for the required part "${name}"`);
      return '';
    }
    return (key ?? '') + value;
  });
}

/** A JSON array of items already encoded. */
export const jsonArray = (items: readonly string[]) => `[${items.join(',')}]`;
