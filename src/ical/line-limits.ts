// The shape of an .ics file's lines, checked in one linear pass before ical.js parses it. ical.js reads a property's
// parameters in time that grows faster than their number (one property with a million parameters, a 4 MB file, takes
// most of a minute), so a file whose lines could make it work that hard is refused before it gets the chance.

/** The longest content line an import reads, unfolded (RFC 5545 lines are folded at 75 octets; this is a whole one). */
export const MAX_UNFOLDED_LINE = 1024 * 1024;
/** The most parameters one property may have (real files have a handful: TZID, VALUE, CN, ROLE…). */
export const MAX_PARAMETERS = 100;

/** A line of the file that the import will not parse, with its (1-based, physical) line number. */
export class LineLimitError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

const SEMICOLON = 0x3b;
const COLON = 0x3a;
const QUOTE = 0x22;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Walks the text once: unfolds content lines (a line starting with a space or a tab continues the one before, CRLF,
 * LF or CR ends a line), and counts each property's length and its parameters (the `;` before the first `:` outside
 * double quotes). Throws LineLimitError at the first line over either limit; answers how many content lines it read.
 */
export function checkLineLimits(
  text: string,
  limits: { maxLine: number; maxParameters: number } = { maxLine: MAX_UNFOLDED_LINE, maxParameters: MAX_PARAMETERS },
): number {
  let physical = 0;
  let logical = 0;
  let startLine = 0;
  let length = 0;
  let parameters = 0;
  let inValue = false;
  let quoted = false;
  let at = 0;
  while (at <= text.length) {
    const end = nextBreak(text, at);
    physical += 1;
    const continues = end > at && (text.charCodeAt(at) === SPACE || text.charCodeAt(at) === TAB) && logical > 0;
    if (!continues) {
      if (end > at) logical += 1;
      startLine = physical;
      length = 0;
      parameters = 0;
      inValue = false;
      quoted = false;
    }
    const from = continues ? at + 1 : at;
    length += end - from;
    if (length > limits.maxLine) {
      throw new LineLimitError(
        startLine,
        `line ${startLine} is longer than ${limits.maxLine} characters once unfolded`,
      );
    }
    for (let index = from; index < end && !inValue; index++) {
      const code = text.charCodeAt(index);
      if (code === QUOTE) quoted = !quoted;
      else if (!quoted && code === COLON) inValue = true;
      else if (!quoted && code === SEMICOLON && ++parameters > limits.maxParameters) {
        throw new LineLimitError(startLine, `line ${startLine} has more than ${limits.maxParameters} parameters`);
      }
    }
    at = end + breakLength(text, end);
    if (end >= text.length) break;
  }
  return logical;
}

/** Where the line starting at `from` ends (the index of its CR or LF, or the end of the text). */
function nextBreak(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || code === 0x0d) return index;
  }
  return text.length;
}

const breakLength = (text: string, at: number) =>
  text.charCodeAt(at) === 0x0d && text.charCodeAt(at + 1) === 0x0a ? 2 : 1;
