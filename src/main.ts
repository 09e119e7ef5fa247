// The service's entry point (`npm start`, `node dist/main.js`). Before anything else is loaded it checks that this
// Node.js can run the service: an older one crashes without a word (better-sqlite3's native module segfaults on Node
// 20), so the rest is imported only after the check.
import { readFileSync } from 'node:fs';
import { unsupportedNode } from './node-version.ts';

// package.json sits one level above both src/ and dist/.
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const unsupported = unsupportedNode(process.version, engines.node);
if (unsupported !== undefined) {
  console.error(unsupported);
  process.exit(78);
}
const { launch } = await import('./launch.ts');
await launch();
