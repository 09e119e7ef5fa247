import { ApiError, invalidJson } from './errors.ts';
import { emptyParams, parseQueryString } from './params.ts';
import type { ParamMap } from '../core/input/params.ts';

/** The largest request body accepted (413 `rest_request_too_large` beyond). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** PHP's json_decode gives up at 512 levels; nothing this API accepts comes close to 64. */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a JSON text, stopping early once past `limit` (so a 10,000-level body costs nothing). */
export function exceedsDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 92 /* \ */) index++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 123 /* { */ || char === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (char === 125 || char === 93) depth--;
  }
  return false;
}

export function parseJsonBody(text: string): ParamMap {
  if (text.trim() === '') return emptyParams();
  if (exceedsDepth(text, MAX_JSON_DEPTH)) throw invalidJson(1, 'Maximum stack depth exceeded');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson(4, 'Syntax error');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.', {
      json_error_code: 0,
      json_error_message: 'The JSON body must be an object.',
    });
  }
  // Rebuild without a prototype so a `__proto__` key stays an ordinary, ignorable key.
  return Object.assign(emptyParams(), value);
}

export const parseFormBody = (text: string): ParamMap => parseQueryString(text);
