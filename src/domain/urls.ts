/**
 * Control characters (C0 and DEL). The WHATWG URL parser silently strips TAB, CR and LF before it checks a URL, so a
 * value that parses can still carry line breaks into every format it is later written to (an iCalendar line, a
 * header): such a value is refused rather than stored.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this pattern finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** A `%` that does not start an escape of two hex digits: no URI has one (RFC 3986), though the WHATWG parser keeps it. */
const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** An absolute http(s) URL with a host, without control characters or broken percent-escapes. */
export function isAbsoluteUrl(value: string): boolean {
  if (CONTROL_CHARACTER.test(value) || BROKEN_ESCAPE.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
