// What the Chromium suites share (browser.test.ts clicks through the pages, screenshots.test.ts photographs them):
// Debian's Chromium driven by playwright-core (nothing is downloaded), a service listening on a real port, nothing
// leaving the machine, and axe-core. Without Chromium a suite is skipped loudly; REQUIRE_BROWSER=1 (CI) makes that a
// failure.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { HANG_GUARD_MS } from '../helpers/eventually.ts';
import type { Harness } from '../helpers/harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));

/** Whether Chromium is there; when it is not, say so loudly, and fail when REQUIRE_BROWSER is set (CI). */
export function browserAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium): ${suite} is SKIPPED.`;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`${message} REQUIRE_BROWSER=1 makes this a failure.`);
  console.warn(`\n!!! ${message}\n`);
  return false;
}

/** A small picture for events' images, served instead of the (unreachable) CDN. */
const PICTURE = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="400" viewBox="0 0 1200 400">
<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#0b57a4"/><stop offset="1" stop-color="#7a3db8"/></linearGradient></defs>
<rect width="1200" height="400" fill="url(#g)"/><circle cx="980" cy="120" r="60" fill="#f5d76e"/>
<path d="M0 330 Q300 250 600 320 T1200 300 V400 H0Z" fill="#0a2540" opacity="0.7"/></svg>`;

export interface Browsing {
  /** `http://127.0.0.1:<port>`, where the harness's service listens. */
  origin: string;
  context: BrowserContext;
  /** A new tab on `path`, checked to answer `expectedStatus`. */
  open(path: string, expectedStatus?: number): Promise<Page>;
  close(): Promise<void>;
}

/**
 * The harness's service on a real port, and a headless Chromium that reaches nothing else. `timezoneId`: the zone the
 * browser believes it is in (an embed is read in its viewer's zone).
 */
export async function startBrowsing(h: Harness, options: { timezoneId?: string } = {}): Promise<Browsing> {
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const address = h.app.server.address() as { port: number };
  const origin = `http://127.0.0.1:${address.port}`;
  const profile = mkdtempSync(join(tmpdir(), 'pages-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 900 },
    timezoneId: options.timezoneId,
  });
  // Nothing leaves the machine: the service answers, the CDN's picture is served here, everything else fails.
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(origin)) return route.continue();
    if (url.startsWith('https://cdn.example.com/'))
      return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: PICTURE });
    return route.abort();
  });
  // Playwright's own 30 s per step would judge the machine's speed: this bound only guards against a hang.
  context.setDefaultTimeout(HANG_GUARD_MS);
  return {
    origin,
    context,
    async open(path, expectedStatus = 200) {
      const page = await context.newPage();
      const response = await page.goto(`${origin}${path}`);
      assert.equal(response?.status(), expectedStatus, path);
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
      }
    ).axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      nodes: violation.nodes.length,
    }));
  });
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(serious, [], `${name}: ${JSON.stringify(violations)}`);
}
