import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { unsupportedNode } from '../src/node-version.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** This machine's own Node.js, older than the project's: what `node dist/main.js` meets outside `npm start`. */
const SYSTEM_NODE = '/usr/bin/node';

const requiredNode = () =>
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

const HOW = "run it with the project's own Node, `npx node src/main.ts` or `npm start`, or install Node";

describe('unsupportedNode', () => {
  it('accepts the required version and newer ones', () => {
    assert.equal(unsupportedNode('v24.0.0', '>=24'), undefined);
    assert.equal(unsupportedNode('v24.21.0', '>=24'), undefined);
    assert.equal(unsupportedNode('v25.0.0', '>=24.2'), undefined);
    assert.equal(unsupportedNode('v24.2.0', '>=24.2.0'), undefined);
    assert.equal(unsupportedNode('v24.2.1', '>= 24.2.1'), undefined);
  });

  it('says what is needed, and how to get it, for an older one', () => {
    assert.equal(
      unsupportedNode('v20.20.2', '>=24'),
      `calendar-events needs Node.js 24 or newer (this is v20.20.2): ${HOW} 24`,
    );
    assert.equal(
      unsupportedNode('v23.11.1', '>=24'),
      `calendar-events needs Node.js 24 or newer (this is v23.11.1): ${HOW} 24`,
    );
    assert.equal(
      unsupportedNode('v24.1.9', '>=24.2'),
      `calendar-events needs Node.js 24.2 or newer (this is v24.1.9): ${HOW} 24.2`,
    );
    assert.match(unsupportedNode('v24.2.0', '>=24.2.1') ?? '', /needs Node\.js 24\.2\.1 or newer/);
  });

  it('refuses an engines.node range it cannot read rather than guessing', () => {
    assert.throws(() => unsupportedNode('v24.0.0', '^24'), /engines\.node/);
    assert.throws(() => unsupportedNode('v24.0.0', '>=24 <26'), /engines\.node/);
  });

  it("reads the project's own requirement", () => {
    assert.equal(unsupportedNode(process.version, requiredNode()), undefined, 'the Node.js running the tests meets it');
  });
});

describe('the built entry point under an older Node.js', () => {
  it('exits 78 with the message instead of crashing in a native module', () => {
    const version = spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    const message = version === '' ? undefined : unsupportedNode(version, requiredNode());
    assert.ok(
      message !== undefined,
      `this test needs a Node.js older than the project's (${requiredNode()}) at ${SYSTEM_NODE}; found "${version}"`,
    );

    // An older Node.js cannot load .ts files: the entry is compiled as `npm run build` compiles it, but alone
    // (noResolve), so that nothing but the entry and its version check exists to be loaded.
    const directory = mkdtempSync(join(tmpdir(), 'calendar-node-version-'));
    try {
      writeFileSync(
        join(directory, 'tsconfig.json'),
        JSON.stringify({
          extends: join(ROOT, 'tsconfig.build.json'),
          compilerOptions: { noResolve: true, rootDir: join(ROOT, 'src'), outDir: join(directory, 'dist') },
          files: [join(ROOT, 'src/main.ts'), join(ROOT, 'src/node-version.ts')],
          include: [],
        }),
      );
      // Type errors are expected (nothing it imports is compiled); the JavaScript is emitted all the same.
      spawnSync(process.execPath, [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(directory, 'tsconfig.json'),
      ]);
      const entry = join(directory, 'dist', 'main.js');
      assert.ok(existsSync(entry), 'the compiler emitted the entry point');
      copyFileSync(join(ROOT, 'package.json'), join(directory, 'package.json'));

      const run = spawnSync(SYSTEM_NODE, [entry], {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: join(directory, 'calendar.db') },
      });
      assert.equal(run.status, 78, `${run.stdout}${run.stderr}`);
      assert.equal(run.stderr, `${message}\n`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
