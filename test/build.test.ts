// What `npm start` runs: the sources compiled by scripts/build.ts, started from `dist/main.js`. Built here into a
// directory of its own (beside a copy of package.json and a link to node_modules, as in the project), then started as
// a real process: the API, a page (its templates and stylesheet copied beside the compiled modules) and a write (whose
// commit starts the SQLite checkpoint thread, a module of its own) must all work from the compiled JavaScript alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { eventually } from './helpers/eventually.ts';
import { basicAuth } from './helpers/harness.ts';
import { startService, stopService, waitForHealth, type Started } from './helpers/service-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = { ADMIN_USER: 'build-admin', ADMIN_PASSWORD: 'build admin password' };
const authorization = basicAuth(ADMIN.ADMIN_USER, ADMIN.ADMIN_PASSWORD);
const API = '/calendar/events/v1';
const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/** Every file under `directory`, relative to it. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)));
}

describe('the build npm start runs', () => {
  const directory = mkdtempSync(join(tmpdir(), 'calendar-build-'));
  const dist = join(directory, 'dist');
  let service: Started | undefined;

  before(() => {
    copyFileSync(join(ROOT, 'package.json'), join(directory, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.ts'), dist], { encoding: 'utf8' });
    assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
  });

  after(async () => {
    if (service) await stopService(service);
    rmSync(directory, { recursive: true, force: true });
  });

  it('emits JavaScript only, importing JavaScript only, with the pages’ files beside it', () => {
    const files = filesUnder(dist);
    assert.ok(files.includes('main.js'), files.join(', '));
    assert.deepEqual(
      files.filter((file) => file.endsWith('.ts')),
      [],
      'no TypeScript: Node would strip it as it loads, which is what the build spares',
    );
    // A relative import still naming a .ts file would load the sources' TypeScript beside the build.
    const tsImports = files
      .filter((file) => file.endsWith('.js'))
      .filter((file) =>
        /\bfrom\s+['"]\.{1,2}\/[^'"]*\.ts['"]|import\(\s*['"]\.{1,2}\/[^'"]*\.ts['"]/.test(
          readFileSync(join(dist, file), 'utf8'),
        ),
      );
    assert.deepEqual(tsImports, []);
    for (const page of ['pages/templates', 'pages/assets/pages.css', 'pages/assets/favicon.svg'])
      assert.ok(existsSync(join(dist, page)), `${page} is beside the compiled pages`);
  });

  it('serves the API, the pages and writes', async () => {
    const database = join(directory, 'calendar.db');
    service = await startService({ DATABASE_URL: database, ...ADMIN }, join(dist, 'main.js'));
    assert.equal(await waitForHealth(service), 200);
    const sizeAtStart = statSync(database).size;
    const base = `http://127.0.0.1:${service.port}`;
    const headers = { authorization, 'content-type': 'application/json' };

    const created = await fetch(`${base}${API}/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        title: 'Built',
        // Tens of new pages: the database file can only grow by them once a checkpoint has copied them into it.
        description: 'A long description. '.repeat(2_000),
        start_date: `${IN_A_MONTH} 18:00:00`,
        end_date: `${IN_A_MONTH} 20:00:00`,
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const event = (await created.json()) as { id: number; url: string };

    const listed = await fetch(`${base}${API}/events`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      ((await listed.json()) as { events: { id: number }[] }).events.map((item) => item.id),
      [event.id],
    );

    const page = await fetch(event.url.replace(/^https?:\/\/[^/]+/, base));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1[^>]*>Built<\/h1>/);
    const stylesheet = await fetch(`${base}/assets/pages.css`);
    assert.equal(stylesheet.status, 200, 'the stylesheet is read from beside the compiled pages');
    assert.match(stylesheet.headers.get('content-type') ?? '', /^text\/css/);

    // The commits started the checkpoint thread (checkpoint-thread.js), the only one to copy a log this short into the
    // database file; had it failed to load, the service would say so on its output instead, and the file not grow.
    const failed = /SQLITE_CHECKPOINT_THREAD|ERR_|"level":50/;
    await eventually(
      () => failed.test(service!.output()) || statSync(database).size > sizeAtStart,
      'a checkpoint has copied the write into the database file',
      service.output,
    );
    assert.doesNotMatch(service.output(), failed);
  });
});

describe('a build of unchanged sources', () => {
  // A copy of what the build reads, so that a source can be changed without touching the project's own.
  const project = mkdtempSync(join(tmpdir(), 'calendar-rebuild-'));
  const dist = join(project, 'dist');
  const build = () => {
    const run = spawnSync(process.execPath, [join(project, 'scripts/build.ts')], { encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  };
  /** A pid no process has: a build killed long ago. */
  const deadPid = () => {
    for (let pid = 4_000_000; ; pid--) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
      }
    }
  };

  before(() => {
    cpSync(join(ROOT, 'src'), join(project, 'src'), { recursive: true });
    mkdirSync(join(project, 'scripts'));
    for (const file of ['scripts/build.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'])
      copyFileSync(join(ROOT, file), join(project, file));
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it('is left as it is; a change of source replaces it whole, and what killed builds left is removed', () => {
    build();
    const first = { directory: statSync(dist).ino, entry: statSync(join(dist, 'main.js')).mtimeMs };
    build();
    assert.deepEqual(
      { directory: statSync(dist).ino, entry: statSync(join(dist, 'main.js')).mtimeMs },
      first,
      'nothing written again',
    );

    // What a build killed before its renames leaves, and one still running does.
    const dead = deadPid();
    for (const leftover of [`dist.new-${dead}`, `dist.old-${dead}`, `dist.new-${process.pid}`])
      mkdirSync(join(project, leftover));
    appendFileSync(join(project, 'src/main.ts'), '\n// changed after the first build\n');
    build();
    assert.notEqual(statSync(dist).ino, first.directory, 'a new directory in its place');
    assert.match(readFileSync(join(dist, 'main.js'), 'utf8'), /changed after the first build/);
    assert.ok(existsSync(join(dist, 'pages/assets/pages.css')));
    assert.deepEqual(
      readdirSync(project)
        .filter((name) => name.startsWith('dist'))
        .sort(),
      ['dist', `dist.new-${process.pid}`],
      "a dead build's leftovers removed, a running one's kept",
    );
  });
});
