// Every shell example of docs/ runs as written, against a fresh service, after the README's quick start (which makes
// the administrator alice and sets API and AUTH, as the pages say). A page's examples run in order, in one shell, as a
// reader following the page would type them, and print what the page shows. A block that cannot run in a test says
// so before its fence (`<!-- example: not run: <reason> -->`); any other shell block runs, and every code block names
// its language, so that no shell example hides in a block of no language.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HANG_GUARD_MS } from '../helpers/eventually.ts';
import { freePort } from '../helpers/service-process.ts';
import {
  bash,
  type CodeBlock,
  codeBlocks,
  type FreshService,
  markerLines,
  notRunReason,
  ROOT,
  SHELL_LANGUAGES,
  startFreshService,
} from './shell-examples.ts';

function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder))
    .sort()
    .flatMap((name) => {
      const path = `${folder}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
      return name.endsWith('.md') ? [path] : [];
    });
}

interface Page {
  path: string;
  text: string;
  blocks: CodeBlock[];
}

const PAGES: Page[] = markdownUnder('docs').map((path) => {
  const text = readFileSync(join(ROOT, path), 'utf8');
  return { path, text, blocks: codeBlocks(text) };
});

const runs = (block: CodeBlock) => SHELL_LANGUAGES.has(block.language) && notRunReason(block) === undefined;

/**
 * What each page's shell examples print, block by block in page order: the key parts of the output the page shows
 * in its comments, in that order. A page that gains or loses a shell block must say here what the block prints.
 */
const PRINTS: Record<string, RegExp[][]> = {
  'docs/api/feeds-and-import.md': [
    [
      // The venue's feed, the one event's file, then the feed revalidated with its tag.
      /HTTP\/1\.1 200 OK\r$/m,
      /^content-type: text\/calendar; charset=utf-8\r$/m,
      /^BEGIN:VCALENDAR\r$/m,
      /^SUMMARY:Open-air cinema\r$/m,
      /^LOCATION:Riverside Park\\, Springfield\r$/m,
      /^content-disposition: inline; filename="open-air-cinema\.ics"\r$/m,
      /HTTP\/1\.1 304 Not Modified\r$/m,
    ],
    [
      /^\/\S+: 1 created, 0 updated, 0 unchanged, 1 refused$/m,
      /^refused 9w8e7r@google\.com: unknown time zone "Mars\/Olympus_Mons" in DTSTART$/m,
    ],
  ],
  'docs/api/series.md': [
    [
      // The series is its first occurrence: its id is the series' id.
      /^\{"id":(\d+),.*"title":"Choir rehearsal",.*"recurrence":\["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=20","EXDATE;TZID=Europe\/Berlin:20270405T190000","RDATE:20270407T170000Z"\],"series_id":\1,"occurrence_start_utc":"2027-03-01 18:00:00"/m,
    ],
  ],
  'docs/api/sync-and-conditional-requests.md': [
    [
      /HTTP\/1\.1 200 OK\r\n(?:.*\r\n)*?last-modified: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\r$/m,
      /^etag: "[\w-]{22}"\r$/m,
      /HTTP\/1\.1 304 Not Modified\r$/m,
      /HTTP\/1\.1 200 OK\r\n(?:.*\r\n)*?etag: "[\w-]{22}"\r\n(?:.*\r\n)*?\r\n\{"id":\d+,.*"title":"Renamed"/m,
      /HTTP\/1\.1 412 Precondition Failed\r$/m,
      /\{"code":"rest_precondition_failed","message":"The item has changed since it was read .*","data":\{"status":412\}\}/m,
      /HTTP\/1\.1 400 Bad Request\r$/m,
      /\{"code":"rest_invalid_header","message":"Invalid If-None-Match header: .*","data":\{"status":400,"header":"If-None-Match"\}\}/m,
    ],
    [
      // The replay: the same location (no second event), marked as a replay.
      /HTTP\/1\.1 201 Created\r\n(?:.*\r\n)*?location: (http:\/\/\S+\/events\/\d+)\r\n[\s\S]*?HTTP\/1\.1 201 Created\r\nlocation: \1\r\n(?:.*\r\n)*?idempotent-replayed: true\r$/m,
      /\{"code":"rest_idempotency_key_mismatch","message":".*","data":\{"status":422\}\}/m,
      /\{"code":"rest_invalid_idempotency_key","message":".*","data":\{"status":400\}\}/m,
    ],
    [
      /^[\w-]{20,}$/m,
      /\{"changes":\[\{"type":"event","id":\d+,"action":"upsert","item":\{"id":\d+,.*"title":"Book club \(moved\)".*"json_ld":\{.*\},\{"type":"event","id":\d+,"action":"remove"\}\],"next_cursor":"[\w-]+","has_more":false\}/m,
      /HTTP\/1\.1 410 Gone\r$/m,
      /\{"code":"rest_sync_cursor_expired","message":"The sync cursor is expired or invalid: list every collection again .*","data":\{"status":410\}\}/m,
    ],
  ],
  'docs/api/webhooks.md': [
    [
      /^\{"id":\d+,"url":"http:\/\/127\.0\.0\.1:\d+\/calendar","events":\["event\.created","event\.updated"\],"active":true,"description":"CRM","created":"[^"]+","modified":"[^"]+","secret":"whsec_[A-Za-z0-9+/]+={0,2}"\}$/m,
      /\[\{"webhook_id":"msg_\d+_\d+","type":"event\.created","seq":\d+,"attempt":1,"status":"succeeded","delivery_status":"succeeded","response_code":200,"duration_ms":\d+,"error":"","response_body":"ok",/m,
    ],
  ],
};

describe("the docs' code blocks", () => {
  it('every code block names its language, and every shell block runs or says before it why not', () => {
    for (const page of PAGES) {
      for (const block of page.blocks) {
        const where = `${page.path}:${block.line}`;
        assert.notEqual(block.language, '', `${where}: the code block names its language (text for a drawing)`);
        const reason = notRunReason(block);
        if (reason !== undefined) {
          assert.ok(SHELL_LANGUAGES.has(block.language), `${where}: only a shell block is marked not run`);
          assert.ok(reason.length > 10, `${where}: the marker says why the block does not run`);
        }
      }
      const attached = new Set(page.blocks.map((block) => block.markerLine));
      for (const line of markerLines(page.text))
        assert.ok(attached.has(line), `${page.path}:${line}: an example marker stands right before a code block`);
      for (const block of page.blocks)
        if (block.marker !== undefined)
          assert.ok(notRunReason(block) !== undefined, `${page.path}:${block.line}: "${block.marker}" says not run`);
    }
    const running = PAGES.filter((page) => page.blocks.some(runs)).map((page) => page.path);
    assert.deepEqual(running, Object.keys(PRINTS).sort(), 'every page with shell examples says what they print');
    for (const path of running)
      assert.equal(
        PAGES.find((page) => page.path === path)!.blocks.filter(runs).length,
        PRINTS[path].length,
        `${path}: what each of its shell blocks prints`,
      );
  });
});

describe("the docs' shell examples, run as written", () => {
  let service: FreshService;
  let env: Record<string, string>;
  before(async () => {
    service = await startFreshService();
    const quickStart = codeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')).find(
      (block) => block.marker === 'quick-start',
    );
    assert.ok(quickStart, 'the README has its quick start');
    const run = await bash(`${quickStart.body}\necho "@@AUTH=$AUTH"`, service.env);
    assert.equal(run.code, 0, `the quick start:\n${run.stdout}\n${run.stderr}`);
    const auth = /^@@AUTH=(.+)$/m.exec(run.stdout)?.[1];
    assert.ok(auth, run.stdout);
    // Where the webhook page's receiver listens (9000 on a reader's machine): a port free on this one.
    env = { ...service.env, AUTH: auth, HOOK_PORT: String(await freePort()) };
  });
  after(() => service?.stop());

  for (const page of PAGES.filter((page) => page.blocks.some(runs))) {
    const title = `${page.path}: its shell examples run in order, in one shell, and print what the page shows`;
    // The bound only keeps a hung example (a wait that never ends) from holding the run.
    it(title, { timeout: HANG_GUARD_MS }, async () => {
      const blocks = page.blocks.filter(runs);
      // A background job an example started (the webhook receiver) ends with the shell, whatever happened.
      const script = [
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
        ...blocks.map((block) => `printf '\\n@@example %s\\n' ${block.line}\n${block.body}`),
      ].join('\n');
      const run = await bash(script, env);
      const account = `${page.path}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      assert.equal(run.code, 0, `the examples exit 0:\n${account}`);
      const outputs = run.stdout.split(/^@@example \d+\n/m).slice(1);
      assert.equal(outputs.length, blocks.length, account);
      for (const [index, block] of blocks.entries()) {
        // In the order the page shows them.
        let from = 0;
        for (const expected of PRINTS[page.path][index]) {
          const found = expected.exec(outputs[index].slice(from));
          assert.ok(found, `${page.path}:${block.line} prints ${expected} (after what came before)\n${account}`);
          from += found.index + found[0].length;
        }
      }
    });
  }
});
