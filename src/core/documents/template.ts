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

/** How JSON.stringify writes the start of a token: a string's quote, then the lone surrogate escaped. */
const TOKEN_START = '"\\ud800';

const isNameChar = (code: number) => (code >= 0x61 && code <= 0x7a) || code === 0x2d; // a-z, -
const isKeyChar = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x40; // A-Z, a-z, @

/**
 * Where the token starting at `at` ends (the index after its closing quote) and its part's name; undefined when the
 * text there is no token (a name of `[a-z-]+`, then a quote).
 */
function tokenAt(template: string, at: number): { end: number; name: string } | undefined {
  const from = at + TOKEN_START.length;
  let index = from;
  while (index < template.length && isNameChar(template.charCodeAt(index))) index++;
  if (index === from || template.charCodeAt(index) !== 0x22) return undefined;
  return { end: index + 1, name: template.slice(from, index) };
}

/**
 * Where the key written before the token at `at` starts (its comma), when the token is the value of an optional key
 * (`,"location":`); -1 when it is not. (Such a key never reaches back into the token before it: that one ends with a
 * name character and a quote, where a key would need a comma and a quote.)
 */
function optionalKeyAt(template: string, at: number): number {
  // `,"` then a key of [A-Za-z@]+ then `":`, ending right before the token.
  if (template.charCodeAt(at - 1) !== 0x3a || template.charCodeAt(at - 2) !== 0x22) return -1;
  let index = at - 3;
  while (index >= 0 && isKeyChar(template.charCodeAt(index))) index--;
  if (index === at - 3) return -1;
  return template.charCodeAt(index) === 0x22 && template.charCodeAt(index - 1) === 0x2c ? index - 1 : -1;
}

/**
 * The document with each token replaced by its part's JSON text; an optional key (written with its key, e.g.
 * `"location":`) whose part is undefined is left out, with its comma. The text between tokens is copied as it is: one
 * scan for the tokens' fixed start, no regular expression (a list's answer fills ten of these).
 */
export function fillTemplate(template: string, parts: Readonly<Partial<Record<Part, string>>>): string {
  let filled = '';
  // The end of the text already written to `filled` (or left out).
  let copied = 0;
  for (
    let at = template.indexOf(TOKEN_START);
    at !== -1;
    at = template.indexOf(TOKEN_START, Math.max(at + 1, copied))
  ) {
    const found = tokenAt(template, at);
    if (found === undefined) continue;
    // Own keys only: a name like `constructor` is no part, whatever the object inherits.
    const value = Object.hasOwn(parts, found.name) ? parts[found.name as Part] : undefined;
    if (value === undefined) {
      const key = optionalKeyAt(template, at);
      if (key === -1) throw new Error(`fillTemplate: no text for the required part "${found.name}"`);
      filled += template.slice(copied, key);
    } else {
      filled += template.slice(copied, at) + value;
    }
    copied = found.end;
  }
  return copied === 0 ? template : filled + template.slice(copied);
}

/** A JSON array of items already encoded. */
export const jsonArray = (items: readonly string[]) => `[${items.join(',')}]`;
