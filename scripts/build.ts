// `npm run build` (and `npm start`, before it starts): the sources compiled to JavaScript, with the files the public
// pages read beside them. The types are stripped, not checked (`npm run typecheck` checks them, as CI does): a build is
// what Node's own type stripping would run, in under a second. Run from compiled JavaScript, the service does not load
// Node's TypeScript loader (a WebAssembly module whose memory stays allocated) nor keep what it made of every source
// file, and starts about 20 MB smaller (docs/performance.md, "Memory").
//
// `node scripts/build.ts [directory]`: into `dist` by default. A build records a digest of what it was made from (the
// sources, the compiler and its settings, package.json and this file); a build whose inputs have not changed since is
// left as it is, so that a second `npm start` from the same checkout (another process on the same database), or a
// start on a read-only file system after the image's own build, changes nothing. Otherwise the new build is made beside
// the old one and put in its place by two renames: a process already running from the old one never finds a
// half-written directory.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? join(root, 'dist'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');
/** The file in a build that names its inputs' digest. */
const STAMP = '.build-inputs';

/** A digest of every file the build reads, by path and content. */
function inputsDigest(): string {
  const files = [
    ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name)),
    ...['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.ts'].map((file) => join(root, file)),
    // The compiler's version: another one may emit other JavaScript from the same sources.
    join(root, 'node_modules/typescript/package.json'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The staging and replaced directories that builds killed before they finished left beside `out`. */
function removeLeftovers(): void {
  const pattern = new RegExp(`^${basename(out).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:new|old)-(\\d+)$`);
  for (const name of existsSync(dirname(out)) ? readdirSync(dirname(out)) : []) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined && !isRunning(Number(pid)))
      rmSync(join(dirname(out), name), { recursive: true, force: true });
  }
}

const digest = inputsDigest();
const stamp = join(out, STAMP);
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) process.exit(0);

removeLeftovers();
const staging = `${out}.new-${process.pid}`;
const replaced = `${out}.old-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck', '--outDir', staging],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
// The pages' templates and assets are read from beside the compiled modules (src/pages/render.ts, routes.ts).
for (const directory of ['templates', 'assets'])
  cpSync(join(root, 'src/pages', directory), join(staging, 'pages', directory), { recursive: true });
writeFileSync(join(staging, STAMP), digest);

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;
try {
  renameSync(out, replaced);
} catch (error) {
  if (code(error) !== 'ENOENT') throw error;
}
try {
  renameSync(staging, out);
} catch (error) {
  if (code(error) !== 'ENOTEMPTY' && code(error) !== 'EEXIST') throw error;
  // Another build put its own in place meanwhile: as good as this one when made from the same inputs.
  rmSync(staging, { recursive: true, force: true });
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== digest) {
    console.error(`${out} was replaced by a build of other sources while this one ran; run the build again`);
    process.exit(1);
  }
}
rmSync(replaced, { recursive: true, force: true });
