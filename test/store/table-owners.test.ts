// One writer per table: every statement that writes a table (Kysely's insertInto, updateTable, deleteFrom,
// replaceInto, mergeInto; the store's row writer insertRows*; raw `insert into`, `update … set`, `delete from`,
// `replace into`, `merge into` in sql templates) lives in that table's repository module, as immich's server keeps
// all the SQL of a table family in one repository. A repository's write method then does what must follow the write
// (a change-log row, a count, a SEQUENCE), so that a new write path cannot forget it. The sources are read through
// swc's parser (a devDependency), so comments and strings that merely mention SQL never count.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Each table, by the one module (relative to the repository) that writes it. */
const OWNERS: Record<string, string> = {
  // Posts (events', venues', organizers' and images' shared row): create, merge-update, trash, restore, delete, slugs.
  posts: 'src/core/posts/store.ts',
  // Events and their organizer links: schedule, series bookkeeping, iCalendar columns and SEQUENCE.
  events: 'src/core/events/store.ts',
  event_organizers: 'src/core/events/store.ts',
  // The list index of events, kept in step with posts and events.
  occurrences: 'src/core/occurrences/store.ts',
  // Terms and the terms of events; published counts follow every change of either.
  terms: 'src/core/terms/store.ts',
  event_terms: 'src/core/terms/store.ts',
  // The meta rows of venues and organizers (one module for both: they are written the same way, by table name).
  venues: 'src/core/linked/store.ts',
  organizers: 'src/core/linked/store.ts',
  // Image records (an image is also a post, written by the posts module).
  images: 'src/core/images/images.ts',
  // Users and their application passwords.
  users: 'src/core/users/store.ts',
  app_passwords: 'src/core/users/store.ts',
  // The change log (D21); its retention (change-log/retention.ts) calls this module's delete.
  changes: 'src/core/change-log/log.ts',
  // Webhook subscriptions, their cursors included.
  webhooks: 'src/core/webhooks/subscriptions.ts',
  // Deliveries and their attempts: the delivery worker's queue.
  webhook_deliveries: 'src/core/webhooks/worker.ts',
  webhook_attempts: 'src/core/webhooks/worker.ts',
  // Stored idempotency keys and their answers.
  idempotency_keys: 'src/core/idempotency/store.ts',
  // Failed sign-ins per window (the HTTP edge's guard against password guessing).
  auth_failures: 'src/http/auth.ts',
  // Service-wide settings (the series-horizon job's state).
  settings: 'src/core/settings/store.ts',
  // Stored documents (D34), rendered by the transactions whose changes they follow.
  event_documents: 'src/core/documents/store.ts',
  linked_documents: 'src/core/documents/store.ts',
  // Totals without scans: the ledger of occurrence counts and what each event adds to it.
  occurrence_counts: 'src/core/occurrences/counts.ts',
  counted_events: 'src/core/occurrences/counts.ts',
  // Bumped by every write transaction on PostgreSQL: the dialect's own bookkeeping.
  data_version: 'src/store/postgres/transaction.ts',
};

/**
 * Modules that write a table named by a variable rather than a literal, and the tables they may so write: the test
 * cannot tell which table such a statement writes, so the module must own every table listed here.
 */
const DYNAMIC_WRITERS: Record<string, { tables: readonly string[] | 'any'; why: string }> = {
  'src/store/store.ts': {
    tables: 'any',
    why: 'the row writer itself (Store.insertRows*): it writes the table its caller names, and the callers are checked',
  },
  'src/core/linked/store.ts': {
    tables: ['venues', 'organizers'],
    why: "venues and organizers are written alike, by the kind's meta table name",
  },
};

const WRITE_METHODS = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
/** The store's row writer: (trx, table, rows…). */
const ROW_WRITERS = new Set(['insertRows', 'insertRowsReturningIds', 'insertRowsReturning']);
const RAW_WRITE =
  /\b(?:insert\s+into|delete\s+from|replace\s+into|merge\s+into)\s+"?([a-z_]+)|\bupdate\s+"?([a-z_]+)"?\s+set\b/gi;

interface Write {
  file: string;
  line: number;
  /** The table, or undefined when a variable names it. */
  table: string | undefined;
  statement: string;
}

/** Every .ts file under src/, but the migrations and the dialects' internals (src/store/<dialect>/). */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(relative(ROOT, path).split('\\').join('/'));
    }
  };
  walk(join(ROOT, 'src'));
  return files.filter((file) => file !== 'src/store/migrations.ts' && !/^src\/store\/[^/]+\//.test(file)).sort();
}

/** A string literal's value, seen through `as` casts and parentheses; undefined for anything else. */
function literal(node: any): string | undefined {
  if (node === undefined) return undefined;
  if (node.type === 'StringLiteral') return node.value;
  if (node.type === 'TsAsExpression' || node.type === 'TsSatisfiesExpression' || node.type === 'ParenthesisExpression')
    return literal(node.expression);
  return undefined;
}

/** The writes in `code`, the text of `file`. */
function writesIn(file: string, code: string): Write[] {
  const bytes = Buffer.from(code);
  const module = parseSync(code, { syntax: 'typescript', target: 'es2022' });
  // swc's spans are 1-based byte offsets into this file.
  const lineAt = (span: { start: number }) =>
    bytes
      .subarray(0, span.start - 1)
      .toString('utf8')
      .split('\n').length;
  const writes: Write[] = [];
  const rawWrites = (text: string, span: { start: number }, statement: string) => {
    for (const match of text.matchAll(RAW_WRITE))
      writes.push({
        file,
        line: lineAt(span),
        table: (match[1] ?? match[2]).toLowerCase(),
        statement: `${statement}: ${match[0]}`,
      });
  };
  const visit = (node: any) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (
      node.type === 'CallExpression' &&
      node.callee?.type === 'MemberExpression' &&
      node.callee.property?.type === 'Identifier'
    ) {
      const method = node.callee.property.value as string;
      /** A write by `method` to the table its argument at `index` names. */
      const methodWrite = (index: number) =>
        writes.push({
          file,
          line: lineAt(node.span),
          table: literal(node.arguments[index]?.expression),
          statement: `${method}(…)`,
        });
      if (WRITE_METHODS.has(method)) methodWrite(0);
      if (ROW_WRITERS.has(method)) methodWrite(1);
      // sql.raw('…'), sql.lit('…')
      const object = node.callee.object;
      if (object?.type === 'Identifier' && object.value === 'sql') {
        const text = literal(node.arguments[0]?.expression);
        if (text !== undefined) rawWrites(text, node.span, `sql.${method}`);
      }
    }
    if (node.type === 'TaggedTemplateExpression') {
      rawWrites(
        node.template.quasis.map((quasi: any) => quasi.raw ?? quasi.cooked ?? '').join(' ? '),
        node.span,
        'sql`…`',
      );
    }
    for (const value of Object.values(node)) if (value !== null && typeof value === 'object') visit(value);
  };
  visit(module.body);
  return writes;
}

const writesOf = (file: string) => writesIn(file, readFileSync(join(ROOT, file), 'utf8'));

/** The tables of the schema (the keys of `Database` in src/store/schema.ts). */
function schemaTables(): string[] {
  const schema = readFileSync(join(ROOT, 'src/store/schema.ts'), 'utf8');
  const body = /export interface Database \{([^}]*)\}/.exec(schema);
  assert.ok(body, 'src/store/schema.ts declares no Database interface');
  return [...body[1].matchAll(/^\s*([a-z_]+):/gm)].map((match) => match[1]);
}

const where = (write: Write) => `${write.file}:${write.line} ${write.statement}`;

it('every table of the schema has an owner, and every owner is a module that exists', () => {
  const files = new Set(sourceFiles());
  assert.deepEqual(
    schemaTables().filter((table) => OWNERS[table] === undefined),
    [],
    'tables without an owner in OWNERS',
  );
  for (const [table, owner] of Object.entries(OWNERS)) {
    if (owner.startsWith('src/store/') && /^src\/store\/[^/]+\//.test(owner)) continue; // a dialect's internals: not scanned
    assert.ok(files.has(owner), `the owner of ${table}, ${owner}, is not a scanned module`);
  }
});

it('the scanner finds writes of every form it looks for, and nothing in comments or plain strings', () => {
  const code = `
    // A comment that says delete from posts, or update events set x, writes nothing.
    const text = 'insert into terms (id) values (1)';
    async function writes(trx, store, table) {
      await trx.insertInto('posts').values({}).execute();
      await trx.updateTable('events' as 'events').set({}).execute();
      await trx.deleteFrom('event_terms').execute();
      await trx.replaceInto('settings').values({}).execute();
      await trx.mergeInto('webhooks').using('x', 'a', 'b').execute();
      await store.insertRows(trx, 'occurrences', []);
      await store.insertRowsReturningIds(trx, 'terms', []);
      await sql\`update "users" set role = \${'admin'} where id = 1\`.execute(trx);
      await sql\`insert into changes (seq) values (1)\`.execute(trx);
      await sql.raw('DELETE FROM app_passwords').execute(trx);
      await trx.insertInto(table).values({}).execute();
    }`;
  const found = writesIn('example.ts', code).map((write) => `${write.line}:${write.table ?? '?'}`);
  assert.deepEqual(found, [
    '5:posts',
    '6:events',
    '7:event_terms',
    '8:settings',
    '9:webhooks',
    '10:occurrences',
    '11:terms',
    '12:users',
    '13:changes',
    '14:app_passwords',
    '15:?',
  ]);
});

it('the scanner finds the writes it is known to', () => {
  // Proof that a clean result below is not a blind scan of these sources: known statements are found where they are.
  const all = sourceFiles().flatMap(writesOf);
  const found = (file: string, table: string, statement: string) =>
    all.some((write) => write.file === file && write.table === table && write.statement.startsWith(statement));
  assert.ok(found('src/core/posts/store.ts', 'posts', 'insertInto'), 'posts/store.ts insertInto(posts)');
  assert.ok(
    found('src/core/occurrences/store.ts', 'occurrences', 'insertRows'),
    'occurrences/store.ts insertRows(occurrences)',
  );
  assert.ok(
    found('src/core/change-log/log.ts', 'changes', 'insertRowsReturning'),
    'change-log/log.ts insertRowsReturning(changes)',
  );
});

it('each table is written by its owner alone', () => {
  const stray: string[] = [];
  for (const write of sourceFiles().flatMap(writesOf)) {
    if (write.table === undefined) {
      const allowed = DYNAMIC_WRITERS[write.file];
      if (!allowed) stray.push(`${where(write)}: a table named by a variable (only DYNAMIC_WRITERS may)`);
      continue;
    }
    const owner = OWNERS[write.table];
    if (owner === undefined) stray.push(`${where(write)}: writes ${write.table}, which has no owner`);
    else if (owner !== write.file) stray.push(`${where(write)}: writes ${write.table}, owned by ${owner}`);
  }
  assert.deepEqual(stray, []);
});

it('a module that writes tables by name owns each of them', () => {
  for (const [file, { tables }] of Object.entries(DYNAMIC_WRITERS)) {
    if (tables === 'any') continue;
    for (const table of tables)
      assert.equal(OWNERS[table], file, `${file} writes ${table} by name, but does not own it`);
  }
});
