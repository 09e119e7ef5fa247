// D28's photographs: every kind of public page in Chromium (browser-support.ts), on the plausible site of showcase.ts
// at a fixed clock, each checked with axe-core and taken as a PNG. They are written only when SCREENSHOTS_DIR names a
// directory: `npm run screenshots` writes docs/screenshots/ (the README shows them); a test run writes nothing into
// the working tree.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { assertAccessible, browserAvailable, startBrowsing, type Browsing } from './browser-support.ts';
import { SHOWCASE_ENV, SHOWCASE_MONTH, SHOWCASE_NOW, seedShowcase, type Showcase } from './showcase.ts';
import { pathOf } from './support.ts';

const AVAILABLE = browserAvailable('the photographs of the public pages');
/** Where the photographs go (`npm run screenshots`: docs/screenshots); unset, they are taken and checked, not kept. */
const SCREENSHOTS = process.env.SCREENSHOTS_DIR ? resolve(process.env.SCREENSHOTS_DIR) : undefined;
/** PNG's signature, which every photograph starts with. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const PHONE = { width: 390, height: 844 };

const isInside = (directory: string, path: string) => !relative(directory, path).split(sep).includes('..');

/** Every file under `directory` but those under `except`: its size, modification time and SHA-256, by path. */
function snapshot(directory: string, except?: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || (except !== undefined && isInside(except, path))) continue;
    const { size, mtimeMs } = statSync(path);
    files[relative(directory, path)] =
      `${size} bytes, modified ${mtimeMs}, sha256 ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return files;
}

describe('photographs of the public pages (D28)', { skip: AVAILABLE ? false : 'Chromium is not installed' }, () => {
  let h: Harness;
  let showcase: Showcase;
  let browsing: Browsing;
  let docsBefore: Record<string, string>;

  before(async () => {
    docsBefore = snapshot(DOCS, SCREENSHOTS);
    h = await createHarness('sqlite', SHOWCASE_ENV);
    h.setNow(SHOWCASE_NOW);
    showcase = await seedShowcase(h);
    browsing = await startBrowsing(h);
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    await browsing?.close();
    await h?.close();
  });

  /** The page at `path`, checked for accessibility and photographed as `name` (and as `<name>-phone` when asked). */
  async function photograph(
    path: string,
    name: string,
    options: { status?: number; phone?: boolean; check?: (page: Page) => Promise<void> } = {},
  ) {
    const page = await browsing.open(path, options.status);
    await options.check?.(page);
    assert.doesNotMatch(
      (await page.locator('body').textContent()) ?? '',
      /alert\(|"Quoted"/,
      `${name}: no test data is photographed`,
    );
    await assertAccessible(page, name);
    await shoot(page, name);
    if (options.phone) {
      await page.setViewportSize(PHONE);
      await shoot(page, `${name}-phone`);
    }
    await page.close();
  }

  async function shoot(page: Page, name: string): Promise<void> {
    const png = await page.screenshot({ fullPage: true });
    assert.deepEqual(png.subarray(0, PNG_SIGNATURE.length), PNG_SIGNATURE, `${name}: a PNG`);
    if (SCREENSHOTS) writeFileSync(join(SCREENSHOTS, `${name}.png`), png);
  }

  it('photographs the upcoming list, an event, a date of a series and the month (the phone too)', async () => {
    await photograph('/events/', 'events', {
      check: async (page) =>
        assert.equal(await page.locator('li.card').filter({ hasText: 'Jazz in the Foyer' }).count(), 1),
    });
    await photograph(pathOf(showcase.concert.url), 'event', {
      phone: true,
      check: async (page) => assert.equal(await page.locator('h1').textContent(), 'Spring Chamber Concert'),
    });
    await photograph(`${pathOf(showcase.jazz.url)}${SHOWCASE_MONTH}-12/`, 'occurrence', {
      check: async (page) => assert.equal(await page.locator('section.series').count(), 1),
    });
    await photograph(`/events/month/${SHOWCASE_MONTH}/`, 'month', {
      phone: true,
      check: async (page) =>
        assert.ok(
          (await page.locator('li.entry abbr[title="Australia/Sydney"]').count()) === 1,
          'the Sydney date names its zone',
        ),
    });
  });

  it('photographs a venue, an organizer, a category, the password form and a missing page', async () => {
    await photograph(pathOf(showcase.hall.url), 'venue');
    await photograph(pathOf(showcase.orchestra.url), 'organizer');
    await photograph('/events/category/music/', 'category');
    await photograph(pathOf(showcase.preview.url), 'password');
    await photograph('/event/no-such-event/', 'not-found', { status: 404 });
  });

  it('writes nothing under docs/ but into SCREENSHOTS_DIR (`npm run screenshots`)', () => {
    assert.deepEqual(snapshot(DOCS, SCREENSHOTS), docsBefore);
  });
});
