/**
 * Request parameters as WordPress reads them: query string, form body and JSON body merged, later sources winning
 * (query < form < JSON), path parameters above all. Maps have no prototype, so keys such as `__proto__` are plain keys.
 */
import { RepeatedValues, type ParamMap } from '../core/input/params.ts';

// `__proto__` in a literal sets the prototype: no own key, so the map starts empty.
export const emptyParams = (): ParamMap => ({ __proto__: null });

const MAX_PARAMETERS = 1000;

/** A UTF-16 surrogate written as UTF-8 bytes (WTF-8/CESU-8: ED A0–BF 80–BF), which is not valid UTF-8. */
const ENCODED_SURROGATE = /(%ED%[AB][0-9A-F]%[89AB][0-9A-F])/i;

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function decode(component: string): string {
  const text = component.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(text);
  } catch {
    if (!ENCODED_SURROGATE.test(text)) return component;
    // D33: an encoded surrogate is read as the code unit it names, so that the argument check refuses it (400 naming
    // the parameter) instead of the escapes passing as text or becoming U+FFFD.
    return text
      .split(ENCODED_SURROGATE)
      .map((piece, index) => {
        if (index % 2 === 0) return decodeOrKeep(piece);
        const bytes = piece
          .split('%')
          .slice(1)
          .map((hex) => Number.parseInt(hex, 16));
        return String.fromCharCode(0xd000 | ((bytes[1] & 0x3f) << 6) | (bytes[2] & 0x3f));
      })
      .join('');
  }
}

/** A value a map can be read from: an object, not a list (a RepeatedValues counts, its keys set beside its values). */
const isMap = (value: unknown): value is ParamMap =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `a=1&b[]=2&b[]=3&c[x]=4`: PHP-style brackets build lists (`b`) and maps (`c`); a repeated plain key (`d=1&d=2`) keeps
 * all its values (RepeatedValues), which a list argument takes whole and any other argument as its last value.
 * Only one level of brackets is read; deeper ones are part of the key's last segment, which no argument declares.
 */
export function parseQueryString(input: string): ParamMap {
  const params = emptyParams();
  if (input === '') return params;
  const pairs = input.split('&');
  for (const pair of pairs.slice(0, MAX_PARAMETERS)) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const key = decode(separator === -1 ? pair : pair.slice(0, separator));
    const value = separator === -1 ? '' : decode(pair.slice(separator + 1));
    const bracket = key.indexOf('[');
    if (bracket <= 0 || !key.endsWith(']')) {
      const earlier = params[key];
      if (earlier instanceof RepeatedValues) earlier.values.push(value);
      else if (typeof earlier === 'string') params[key] = new RepeatedValues([earlier, value]);
      else params[key] = value;
      continue;
    }
    const name = key.slice(0, bracket);
    const inner = key.slice(bracket + 1, -1);
    if (inner === '' || /^\d+$/.test(inner)) {
      const existing = params[name];
      if (Array.isArray(existing)) existing.push(value);
      else params[name] = [value];
    } else {
      const existing = params[name];
      const map = isMap(existing) ? existing : emptyParams();
      map[inner] = value;
      params[name] = map;
    }
  }
  return params;
}

export function mergeParams(...sources: Array<ParamMap | undefined>): ParamMap {
  const merged = emptyParams();
  for (const source of sources) {
    if (!source) continue;
    for (const key of Object.keys(source)) merged[key] = source[key];
  }
  return merged;
}
