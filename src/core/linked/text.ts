// The text of venue and organizer fields as stored: plain text (tags removed, whitespace collapsed), since these fields
// end up on HTML pages, and e-mail addresses obfuscated as WordPress does inside JSON-LD.
import { sanitizeTitle } from '../../domain/html.ts';

/** Plain text, as names are: tags removed, whitespace trimmed and collapsed (these fields end up on HTML pages). */
export const asText = (value: unknown) => (value === undefined ? undefined : sanitizeTitle(String(value)));

/** Picks the sent text fields, as plain text, as meta columns. */
export function sentText(sent: Record<string, unknown>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (sent[name] !== undefined) out[name] = asText(sent[name])!;
  return out;
}

/** HTML-entity encoding of every character, as WordPress's antispambot does (deterministically here). */
export const obfuscateEmail = (email: string) => [...email].map((char) => `&#${char.codePointAt(0)};`).join('');
