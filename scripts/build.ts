// `npm run build` (and `npm start`, before it starts): the sources compiled to JavaScript, with the files the public
// pages read beside them. The types are stripped, not checked (`npm run typecheck` checks them, as CI does): a build is
// what Node's own type stripping would run, in under a second. Run from compiled JavaScript, the service does not load
// Node's TypeScript loader (a WebAssembly module whose memory stays allocated) nor keep what it made of every source
// file, and starts about 20 MB smaller (docs/performance.md, "Memory").
//
// `node scripts/build.ts [directory]`: into `dist` by default; the directory is emptied first, so that a module
// removed from the sources is not left behind to be imported.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = resolve(process.argv[2] ?? join(root, 'dist'));
const tsc = join(root, 'node_modules/typescript/bin/tsc');

rmSync(out, { recursive: true, force: true });
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--noCheck', '--outDir', out],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
// The pages' templates and assets are read from beside the compiled modules (src/pages/render.ts, routes.ts).
for (const directory of ['templates', 'assets'])
  cpSync(join(root, 'src/pages', directory), join(out, 'pages', directory), { recursive: true });
