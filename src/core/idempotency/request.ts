// D23: what makes two creates "the same request" and which keys are accepted. Pure functions.
import { createHash } from 'node:crypto';

/** 1–255 visible ASCII characters (0x21–0x7E): no space, no control character, nothing beyond ASCII. */
const KEY_GRAMMAR = /^[\x21-\x7E]{1,255}$/;

export const MAX_KEY_LENGTH = 255;

export const isValidIdempotencyKey = (value: string): boolean => KEY_GRAMMAR.test(value);

/**
 * JSON with every object's keys in code-unit order and no whitespace: two values that parse alike (whatever their key
 * order, spacing or escapes) have the same text. Array order counts.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The fingerprint a key is bound to: SHA-256 of the parsed query and body, canonicalised. A missing body counts as
 * an empty one; a JSON body and a form body that parse to the same parameters are the same request.
 */
export function requestFingerprint(query: unknown, body: unknown): string {
  const text = canonicalJson({ query: query ?? {}, body: body ?? {} });
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
