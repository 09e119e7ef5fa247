// Whether this Node.js can run the service. Loaded by src/main.ts before anything else, also by the Node.js that cannot
// run the rest: it uses nothing newer than Node 20 has, and imports nothing.

/** The parts of a version, major first. */
const versionParts = (version: string) => version.split('.').map(Number);

/**
 * Why Node.js `version` (`process.version`, e.g. `v20.20.2`) cannot run the service, which needs `required`
 * (package.json `engines.node`, `>=major[.minor[.patch]]`); undefined when it can.
 */
export function unsupportedNode(version: string, required: string): string | undefined {
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(required.trim())?.[1];
  if (minimum === undefined)
    throw new Error(`package.json engines.node must read >=major[.minor[.patch]], got "${required}"`);
  const have = versionParts(version.replace(/^v/, ''));
  const need = versionParts(minimum);
  for (let index = 0; index < need.length; index++) {
    if ((have[index] ?? 0) > need[index]) return undefined;
    if ((have[index] ?? 0) < need[index]) {
      return (
        `calendar-events needs Node.js ${minimum} or newer (this is ${version}): run it with the project's own Node, ` +
        `\`npx node src/main.ts\` or \`npm start\`, or install Node ${minimum}`
      );
    }
  }
  return undefined;
}
