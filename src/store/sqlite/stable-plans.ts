/**
 * A statement's text as SQLite should prepare it: every anonymous placeholder (`?`) written `+?`, which binds the
 * same value (a unary plus changes no value) but is an expression rather than a bare placeholder.
 *
 * Why: SQLite (3.54 as better-sqlite3 builds it) looks at the value bound to a bare placeholder while it plans some
 * statements (a `LIMIT ?`, an equality such as `hidden = ?` or `status = ?` on an indexed column), and then marks the
 * statement to be prepared again whenever a new value is bound to it: at every execution, since every execution binds
 * its values anew. Preparing costs about as much as running a small statement, and far more for a list's page (its
 * filters, subqueries and window function): measured on the benchmark's database, a list page's statement 111 → 44 µs,
 * a total's sum over the counts 87 → 20 µs, a list of terms 221 → 75 µs, a read by primary key unchanged. The plans
 * stay the same (`EXPLAIN QUERY PLAN` of every list page the benchmark asks for, with its values written in and with
 * `+?`, in `docs/performance.md`): without statistics (the service never runs `ANALYZE`), a value can move a plan
 * only through a LIMIT, a LIKE prefix or a partial index's condition, and none of ours did. (A database someone has
 * analysed loses STAT4's estimates by value, as under SQLite's own switch for this, SQLITE_DBCONFIG_ENABLE_QPSG, which
 * better-sqlite3 does not reach.)
 *
 * Placeholders inside string literals, quoted identifiers and comments are left alone.
 */
export function withStablePlan(text: string): string {
  let out = '';
  let from = 0;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    const closing = CLOSING[char];
    if (closing !== undefined) {
      at = endOf(text, at + 1, closing);
    } else if (char === '-' && text[at + 1] === '-') {
      at = endOf(text, at + 2, '\n');
    } else if (char === '/' && text[at + 1] === '*') {
      at = endOf(text, at + 2, '*/');
    } else if (char === '?') {
      out += `${text.slice(from, at)}+`;
      from = at;
    }
  }
  return out + text.slice(from);
}

/** What ends a quoted string or identifier, by what opens it (a doubled quote inside is two quoted runs in a row). */
const CLOSING: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

/** The index of the last character of `end` at or after `from`, or the text's last index when it never comes. */
function endOf(text: string, from: number, end: string): number {
  const found = text.indexOf(end, from);
  return found === -1 ? text.length - 1 : found + end.length - 1;
}
