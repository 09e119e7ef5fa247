import { sanitizeTitle } from '../../domain/html.ts';
import { arg } from '../../http/args.ts';
import { stringOrEmpty, urlOrEmpty } from '../../http/validators.ts';

/** A free-text field: a string (or number, e.g. a zip code) or `""` to clear it. */
export const textField = (description: string) => arg.any({ description, validate: stringOrEmpty, schema: undefined });

export const websiteField = (description: string) =>
  arg.any({ description, validate: (value, ctx, name) => typeof value === 'string' && urlOrEmpty(value, ctx, name) === true });

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
