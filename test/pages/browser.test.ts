// D28 in a real headless Chromium (browser-support.ts): the service listens on a real port, and the pages are rendered,
// clicked through and checked with axe-core, on the suites' test data (support.ts). The photographs of the pages, on
// plausible data, are screenshots.test.ts's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { assertAccessible, browserAvailable, startBrowsing, type Browsing } from './browser-support.ts';
import { pathOf, seedSite, type Site } from './support.ts';

const AVAILABLE = browserAvailable('the browser suite of the public pages');

describe('public pages in Chromium (D28)', { skip: AVAILABLE ? false : 'Chromium is not installed' }, () => {
  let h: Harness;
  let site: Site;
  let browsing: Browsing;
  let origin: string;

  before(async () => {
    h = await createHarness('sqlite', { VALIDATE_RESPONSES: '0' });
    site = await seedSite(h);
    browsing = await startBrowsing(h);
    origin = browsing.origin;
  });

  after(async () => {
    await browsing?.close();
    await h?.close();
  });

  const open = (path: string, expectedStatus = 200) => browsing.open(path, expectedStatus);

  it('renders the event page with its JSON-LD matching the event, accessibly', async () => {
    const page = await open(pathOf(site.concert.url));
    assert.equal(await page.title(), 'Evening Concert – Events');
    assert.equal(await page.locator('h1').textContent(), 'Evening Concert');
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.equal(await page.locator('link[rel=canonical]').getAttribute('href'), site.concert.url);
    assert.match((await page.locator('.when').first().textContent()) ?? '', /19:30 – 22:00/);
    const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    const api = (await h.request('GET', `/events/${site.concert.id}`)).json();
    assert.deepEqual(jsonLd, api.json_ld);
    assert.equal(jsonLd['@type'], 'Event');
    assert.equal(jsonLd.name, 'Evening Concert');
    assert.equal(jsonLd.location.name, 'Sample Hall');
    assert.ok(
      await page.locator('img.hero').evaluate((image) => {
        const picture = image as unknown as { complete: boolean; naturalWidth: number };
        return picture.complete && picture.naturalWidth > 0;
      }),
    );
    assert.equal(await page.locator('meta[property="og:title"]').getAttribute('content'), 'Evening Concert');
    await assertAccessible(page, 'event');
    await page.close();
  });

  it('links between pages: list → event → venue, organizer, category, tag', async () => {
    const page = await open('/events/');
    await assertAccessible(page, 'upcoming list');
    await page.getByRole('link', { name: 'Evening Concert', exact: true }).click();
    await page.waitForURL(`${origin}${pathOf(site.concert.url)}`);
    await page.getByRole('link', { name: 'Sample Hall', exact: true }).click();
    await page.waitForURL(`${origin}${pathOf(site.venue.url)}`);
    assert.equal(await page.locator('h1').textContent(), 'Sample Hall');
    assert.ok(await page.getByRole('link', { name: 'Three Day Festival', exact: true }).isVisible());
    await assertAccessible(page, 'venue');

    await page.goBack();
    await page.getByRole('link', { name: 'Jazz Society', exact: true }).click();
    await page.waitForURL(`${origin}${pathOf(site.organizer.url)}`);
    assert.equal(await page.locator('h1').textContent(), 'Jazz Society');
    await assertAccessible(page, 'organizer');

    await page.goBack();
    await page.getByRole('link', { name: 'Jazz Nights', exact: true }).click();
    await page.waitForURL(`${origin}/events/category/music/jazz-nights/`);
    assert.equal(await page.locator('h1').textContent(), 'Category: Jazz Nights');
    assert.ok(await page.getByRole('link', { name: 'Evening Concert', exact: true }).isVisible());
    await assertAccessible(page, 'category');

    await page.goto(`${origin}${pathOf(site.concert.url)}`);
    await page.getByRole('link', { name: 'outdoor', exact: true }).click();
    await page.waitForURL(`${origin}/events/tag/outdoor/`);
    assert.equal(await page.locator('h1').textContent(), 'Tag: outdoor');
    await assertAccessible(page, 'tag');

    await page.getByRole('link', { name: 'Month view', exact: true }).click();
    await page.waitForURL(/\/events\/month\/\d{4}-\d{2}\/$/);
    await page.close();
  });

  it('spans a multi-day event over its days in the month view', async () => {
    const page = await open(`/events/month/${site.month}/`);
    const festivalDays = await page
      .locator('td[data-date]')
      .filter({ hasText: 'Three Day Festival' })
      .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-date')));
    assert.deepEqual(
      festivalDays,
      [12, 13, 14].map((day) => `${site.month}-${day}`),
    );
    // The three entries sit in one row of the grid (or across a week's end), left to right.
    const boxes = await page
      .locator('li.entry')
      .filter({ hasText: 'Three Day Festival' })
      .evaluateAll((entries) => entries.map((entry) => entry.getBoundingClientRect().left));
    assert.equal(boxes.length, 3);
    await assertAccessible(page, 'month');
    await page
      .getByRole('link', { name: /Three Day Festival/ })
      .first()
      .click();
    await page.waitForURL(`${origin}${pathOf(site.festival.url)}`);
    await page.goto(`${origin}/events/month/${site.month}/`);
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await page.locator('td.empty').first().isVisible(), false, 'a phone lists only the days with events');
    assert.ok(await page.locator('td[data-date]').filter({ hasText: 'Three Day Festival' }).first().isVisible());
    await page.close();
  });

  it("names the zone of a month entry whose clock is not the site's, and says which zone the month's times are in", async () => {
    const page = await open(`/events/month/${site.month}/`);
    // The site is in UTC; the concert is at 19:30 in Rome. (Counted first: a missing element fails at once.)
    assert.equal(await page.locator('.month-zone').count(), 1);
    assert.match(await page.locator('.month-zone').innerText(), /Times are in UTC unless another zone is named\./);
    const concert = page.locator('li.entry').filter({ hasText: 'Evening Concert' });
    assert.equal((await concert.locator('.time').innerText()).trim(), '19:30 CET');
    assert.equal(await concert.locator('.time abbr').getAttribute('title'), 'Europe/Rome');
    const script = page.locator('li.entry').filter({ hasText: 'alert(1)' });
    assert.equal((await script.locator('.time').innerText()).trim(), '09:00', 'a site-zone entry needs no zone');
    // The festival's later days read "continued", with no zone.
    assert.deepEqual(
      await page
        .locator('li.entry.continued')
        .filter({ hasText: 'Three Day Festival' })
        .locator('.time')
        .allInnerTexts(),
      ['continued', 'continued'],
    );
    await page.close();
  });

  it('words zones by name: no "Times are in" for an all-day event, Sydney as AEDT rather than a GMT offset', async () => {
    const create = async (body: Record<string, unknown>) => {
      const response = await h.request('POST', '/events', { as: h.users.administrator, body });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    };
    const allDay = await create({
      title: 'Open Day',
      start_date: `${site.month}-08 00:00:00`,
      end_date: `${site.month}-08 23:59:59`,
      all_day: true,
      timezone: 'Europe/Berlin',
    });
    const sydney = await create({
      title: 'Harbour Lights',
      start_date: '2030-01-15 19:00:00',
      end_date: '2030-01-15 21:00:00',
      timezone: 'Australia/Sydney',
    });
    assert.equal(sydney.timezone_abbr, 'GMT+11', 'the API keeps its own abbreviation');
    const day = await open(pathOf(allDay.url));
    assert.match(await day.locator('.when').innerText(), /all day/);
    assert.equal(await day.getByText('Times are in').count(), 0, 'an all-day event has no times');
    await day.close();
    const harbour = await open(pathOf(sydney.url));
    assert.equal(await harbour.locator('p.zone').innerText(), 'Times are in Australia/Sydney (AEDT).');
    await harbour.close();
    const list = await open('/events/');
    const card = list.locator('li.card').filter({ hasText: 'Open Day' });
    assert.match(await card.locator('.when').innerText(), /all day$/, 'a card of an all-day event names no zone');
    await list.close();
  });

  it("shows a series once in lists, and on an occurrence's page that it repeats, with its other dates", async () => {
    const created = await h.request('POST', '/events', {
      as: h.users.administrator,
      body: {
        title: 'Weekly Yoga',
        start_date: `${site.month}-03 07:00:00`,
        end_date: `${site.month}-03 08:00:00`,
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const weekday = new Date(`${site.month}-03T12:00:00Z`).toLocaleDateString('en-GB', {
      weekday: 'long',
      timeZone: 'UTC',
    });
    const monthName = new Date(`${site.month}-03T12:00:00Z`).toLocaleDateString('en-GB', {
      month: 'long',
      timeZone: 'UTC',
    });

    const list = await open('/events/');
    const cards = list.locator('li.card').filter({ hasText: 'Weekly Yoga' });
    assert.equal(await cards.count(), 1, 'one entry for the series');
    assert.equal(await cards.locator('.series-note').count(), 1);
    assert.equal(await cards.locator('.series-note').innerText(), `Repeats every ${weekday} · 3 more dates`);
    await cards.getByRole('link', { name: 'Weekly Yoga', exact: true }).click();
    await list.waitForURL(`${origin}${pathOf(created.json().url)}`);
    assert.equal(await list.locator('section.series').count(), 1, 'the first date says it is one of a series');
    assert.equal(await list.locator('section.series li').count(), 3);

    // Another date of the series: its page names the series and links the others.
    await list.locator('section.series li a').first().click();
    await list.waitForURL(new RegExp(`/event/weekly-yoga-${site.month}-10/$`));
    const series = list.locator('section.series');
    assert.match(await series.innerText(), new RegExp(`Repeats every ${weekday}`));
    const others = await series.locator('li a').allInnerTexts();
    assert.equal(others.length, 3);
    assert.ok(
      others.every((text) => !text.includes(' 10 ')),
      `this date is not among the others: ${others.join(' | ')}`,
    );
    // Its add-to-calendar buttons say what they add: this date alone, or every date of the series.
    const add = list.locator('section.add-to-calendar');
    assert.deepEqual(await add.locator('h3').allInnerTexts(), [
      `This date only: ${weekday} 10 ${monthName} ${site.month.slice(0, 4)}`,
      'Every date of the series',
    ]);
    assert.deepEqual(
      (await add.locator('a.button').allInnerTexts()).map((text) => text.split('\n')[0]),
      ['iCalendar (.ics)', 'Google Calendar', 'iCalendar (.ics)', 'Google Calendar (subscribe)'],
    );
    const dateFile = await list.request.get(`${origin}${await add.locator('a.button').first().getAttribute('href')}`);
    assert.equal(dateFile.status(), 200);
    assert.equal((await dateFile.text()).split('BEGIN:VEVENT').length - 1, 1);
    await assertAccessible(list, 'occurrence');
    await list.close();

    const month = await open(`/events/month/${site.month}/`);
    assert.equal(
      await month.locator('li.entry').filter({ hasText: 'Weekly Yoga' }).count(),
      4,
      'the month shows every date',
    );
    await month.close();
  });

  it('unlocks a password-protected event with the posted password, and keeps it unlocked', async () => {
    const page = await open(pathOf(site.secret.url));
    assert.equal(await page.getByText('The secret programme').count(), 0);
    await assertAccessible(page, 'password form');
    await page.getByLabel('Password').fill('wrong guess');
    await page.getByRole('button', { name: 'Show the event' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(page.url(), `${origin}${pathOf(site.secret.url)}`, 'the password is never in the URL');
    await page.getByLabel('Password').fill(site.password);
    await page.getByRole('button', { name: 'Show the event' }).click();
    await page.getByText('The secret programme').waitFor();
    assert.ok(!page.url().includes('sesame'));
    await page.goto(`${origin}${pathOf(site.secret.url)}`);
    assert.equal(await page.getByText('The secret programme').count(), 1, 'still unlocked after a new visit');
    await page.close();
  });

  it('answers a draft with a 404 page', async () => {
    const page = await open(`/event/${site.draft.slug}/`, 404);
    assert.equal(await page.locator('h1').textContent(), 'Page not found');
    await assertAccessible(page, '404');
    const bad = await open('/events/month/2027-13/', 400);
    assert.equal(await bad.locator('h1').textContent(), 'Bad address');
    await bad.close();
    await page.close();
  });
});
