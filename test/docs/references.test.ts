// The repository explains itself. Code, tests and docs cite the service's decisions by id (`D25`) and the reference
// API's behaviour by section (`§7.2`); each such citation must name a heading of docs/decisions.md or
// docs/reference.md, no file may send a reader to a document outside the repository, and every relative link of the
// Markdown docs must lead to a file (and heading) that exists. Someone who clones the project can follow them all.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DECISIONS = 'docs/decisions.md';
const REFERENCE = 'docs/reference.md';

/**
 * Folders scanned whole; `bench/results/` holds generated benchmark output and `bench/data/` the benchmark's databases
 * and files (ignored by git, gigabytes at a million events), not text anyone writes.
 */
const SCANNED_FOLDERS = ['src', 'test', 'bench'];
const GENERATED_FOLDERS = new Set(['bench/results', 'bench/data']);

/**
 * A decision id: `D`, a number, an optional `b` (D1b, D12b), as a word of its own. A letter, digit, `\` or `+` before
 * it makes it part of something else: a hex literal, `\uD800`, `U+D800`.
 */
const DECISION_ID = /(?<![\w\\+])D\d+b?(?!\w)/g;
/** A section of the reference API: `§` and dotted numbers, unless an RFC names it (`RFC 5545 §3.3.10`). */
const REFERENCE_SECTION = /(?<!RFC \d+ )§(\d+(?:\.\d+)*)/g;
/** Documents outside the repository that earlier comments pointed to. */
const OUTSIDE_PATHS = [/\.\.\/shared/, /shared\/contract/, /EXTENSIONS\.md/, /contract\/API\.md/];

interface TextFile {
  path: string;
  text: string;
}

function filesUnder(folder: string): string[] {
  if (GENERATED_FOLDERS.has(folder)) return [];
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = `${folder}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

/** README.md and every page under docs/, sub-folders (docs/api/) included. */
function markdownDocs(): string[] {
  const pages = (folder: string): string[] =>
    readdirSync(join(ROOT, folder)).flatMap((name) => {
      const path = `${folder}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) return pages(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...pages('docs')];
}

/** Every scanned file that is text (a NUL byte marks images and other binaries). */
function scannedFiles(): TextFile[] {
  const paths = [...SCANNED_FOLDERS.flatMap(filesUnder), ...markdownDocs()];
  return paths.flatMap((path) => {
    const bytes = readFileSync(join(ROOT, path));
    return bytes.includes(0) ? [] : [{ path, text: bytes.toString('utf8') }];
  });
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const explicit of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"\s*>/g)) anchors.add(explicit[1]);
  return anchors;
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

function readDoc(path: string): string {
  return existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : '';
}

/**
 * The ids a document defines: each needs both its explicit `<a id>` (for short links such as `decisions.md#d25`) and
 * a heading that starts with the id (what a reader searching the page finds).
 */
function definedIds(markdown: string, headingId: RegExp, anchorOf: (id: string) => string): Set<string> {
  const anchors = new Set([...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]));
  const ids = new Set<string>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const heading = headingId.exec(line);
    if (heading && anchors.has(anchorOf(heading[1]))) ids.add(heading[1]);
  }
  return ids;
}

/** The links of a Markdown text that have no scheme (`[text](target)`, `![alt](target)`), outside code. */
function relativeLinks(markdown: string): { target: string; line: number }[] {
  const text = withoutCodeBlocks(markdown).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link[1]))
    .map((link) => ({ target: link[1], line: lineOf(text, link.index) }));
}

/** Why a relative link of the Markdown file at `from` leads nowhere, or undefined when it leads to what it names. */
function linkProblem(from: string, target: string): string | undefined {
  const [file, fragment] = target.split('#', 2);
  const path = file === '' ? from : relative(ROOT, join(ROOT, dirname(from), decodeURIComponent(file)));
  if (path.startsWith('..')) return 'outside the repository';
  if (!existsSync(join(ROOT, path))) return 'no such file';
  if (fragment && path.endsWith('.md') && !headingAnchors(readFileSync(join(ROOT, path), 'utf8')).has(fragment))
    return 'no such heading';
  return undefined;
}

const decisionAnchor = (id: string) => id.toLowerCase();
const sectionAnchor = (section: string) => `s${section.replaceAll('.', '-')}`;

describe('references inside the repository', () => {
  const files = scannedFiles();
  const decisions = definedIds(readDoc(DECISIONS), /^#{2,3} (D\d+b?) /, decisionAnchor);
  const sections = definedIds(readDoc(REFERENCE), /^#{2,3} §(\d+(?:\.\d+)*) /, sectionAnchor);

  it('has the decisions and the reference sections as documents of its own', () => {
    assert.ok(existsSync(join(ROOT, DECISIONS)), `${DECISIONS} is missing`);
    assert.ok(existsSync(join(ROOT, REFERENCE)), `${REFERENCE} is missing`);
  });

  it('finds the text it checks (the scan is not empty)', () => {
    assert.ok(files.some((file) => file.path === 'src/main.ts'));
    assert.ok(files.some((file) => file.path === 'README.md'));
  });

  it('resolves every decision id to a heading of docs/decisions.md', () => {
    const unresolved = files.flatMap(({ path, text }) =>
      [...text.matchAll(DECISION_ID)]
        .filter((match) => !decisions.has(match[0]))
        .map((match) => `${path}:${lineOf(text, match.index)}: ${match[0]}`),
    );
    assert.deepEqual(unresolved, [], `decision ids without a heading in ${DECISIONS}:\n${unresolved.join('\n')}`);
  });

  it('resolves every § not named by an RFC to a heading of docs/reference.md', () => {
    const unresolved = files.flatMap(({ path, text }) =>
      [...text.matchAll(REFERENCE_SECTION)]
        .filter((match) => !sections.has(match[1]))
        .map((match) => `${path}:${lineOf(text, match.index)}: ${match[0]}`),
    );
    assert.deepEqual(unresolved, [], `sections without a heading in ${REFERENCE}:\n${unresolved.join('\n')}`);
  });

  it('sends no reader to a document outside the repository', () => {
    const outside = files.flatMap(({ path, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          OUTSIDE_PATHS.some((pattern) => pattern.test(line)) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    assert.deepEqual(outside, [], `mentions of documents outside the repository:\n${outside.join('\n')}`);
  });

  it('links README.md and every page of docs/ only to files and headings that exist', () => {
    const broken = markdownDocs().flatMap((path) =>
      relativeLinks(readFileSync(join(ROOT, path), 'utf8')).flatMap(({ target, line }) => {
        const problem = linkProblem(path, target);
        return problem ? [`${path}:${line}: ${target} (${problem})`] : [];
      }),
    );
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
  });
});
