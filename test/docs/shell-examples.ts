// What the tests of the README's and the docs' shell examples share: the code blocks of a Markdown page (with the
// `<!-- example: … -->` comment that may precede each), a bash session that runs them as a reader's shell would, from
// the repository's root, and a fresh service on a database of its own, with the environment the examples read.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, stopService, waitForHealth } from '../helpers/service-process.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The languages of a fenced block that make it a shell example. */
export const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

export interface CodeBlock {
  /** The first word of the fence's info string; empty when the fence names none. */
  language: string;
  /** The lines between the fences, without the indentation of the opening fence (a block inside a list item). */
  body: string;
  /** The line of the opening fence, from 1. */
  line: number;
  /** What the `<!-- example: … -->` comment on the last non-blank line before the fence says, if there is one. */
  marker?: string;
  /** The line of that comment. */
  markerLine?: number;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const MARKER = /^\s*<!--\s*example:\s*(.*?)\s*-->\s*$/;

/** Every fenced code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, language] = open;
    const closing = new RegExp(`^ *${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end])) end++;
    assert.ok(end < lines.length, `the code block opened on line ${index + 1} is closed`);
    let before = index - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before])?.[1] : undefined;
    const body = lines
      .slice(index + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
      .join('\n');
    blocks.push({
      language,
      body: `${body}\n`,
      line: index + 1,
      ...(marker === undefined ? {} : { marker, markerLine: before + 1 }),
    });
    index = end;
  }
  return blocks;
}

/** Why a block is not run, when its marker says `not run: <reason>`. */
export function notRunReason(block: CodeBlock): string | undefined {
  return /^not run:\s*(.*)$/.exec(block.marker ?? '')?.[1];
}

/** Lines of `markdown` holding an `<!-- example: … -->` comment, from 1. */
export function markerLines(markdown: string): number[] {
  return markdown.split('\n').flatMap((line, index) => (MARKER.test(line) ? [index + 1] : []));
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` in `bash -euo pipefail` from the repository's root: a failing command or an unset variable fails it. */
export function bash(script: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { env: { ...process.env, ...env }, cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

export interface FreshService {
  /** What a reader's shell has: DATABASE_URL (the CLI reads the database the service serves) and API; TMPDIR. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * A service as `npm start` runs it on a fresh install, on a SQLite database of its own, with
 * `WEBHOOKS_ALLOW_PRIVATE=1` (as the webhook examples say: their receiver is on this machine).
 */
export async function startFreshService(): Promise<FreshService> {
  const directory = mkdtempSync(join(tmpdir(), 'examples-'));
  const database = join(directory, 'calendar.db');
  const service = await startService({ DATABASE_URL: database, WEBHOOKS_ALLOW_PRIVATE: '1' });
  assert.equal(await waitForHealth(service), 200);
  return {
    env: {
      DATABASE_URL: database,
      // What an example leaves in a temporary file (mktemp) goes with the service's directory.
      TMPDIR: directory,
      API: `http://127.0.0.1:${service.port}/calendar/events/v1`,
      npm_config_loglevel: 'silent',
    },
    stop: async () => {
      await stopService(service);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
