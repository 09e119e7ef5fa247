// D28 over HTTP (app.inject), on both databases: every page type, escaping, 404/400 pages, ETag/304, the password
// form, ?p= redirects and constant queries per list page. The browser suite (browser.test.ts) clicks through them.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { queriesDuring } from '../helpers/queries.ts';
import { page, pathOf, seedSite, type Site } from './support.ts';

const HTML = 'text/html; charset=utf-8';

/** `Tuesday 10 March 2027` of `YYYY-MM-DD`. */
const describeDay = (date: string) =>
  new Date(`${date}T12:00:00Z`)
    .toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
    .replace(',', '');

/** The addresses a sitemap (or sitemap index) lists, unescaped. */
const locsOf = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map(([, loc]) => loc.replace(/&amp;/g, '&'));

describeEachDatabase('public pages (D28)', (h) => {
  let site: Site;
  before(async () => {
    site = await seedSite(h());
  });

  const get = (url: string, headers: Record<string, string> = {}) => page(h(), 'GET', url, headers);

  function assertPage(response: Awaited<ReturnType<typeof get>>, status: number, canonical?: string) {
    assert.equal(response.statusCode, status, response.body.slice(0, 500));
    assert.equal(response.headers['content-type'], HTML);
    assert.match(response.body, /^<!doctype html>\n<html lang="en">/);
    assert.match(response.body, /<title>[^<]+<\/title>/);
    if (canonical)
      assert.ok(response.body.includes(`<link rel="canonical" href="${canonical}">`), `canonical ${canonical}`);
    assert.equal(response.headers['x-robots-tag'], undefined);
  }

  it('renders the event page: dates in the event zone, venue, map link, organizers, terms, cost, image, calendar links', async () => {
    const response = await get(pathOf(site.concert.url));
    assertPage(response, 200, site.concert.url);
    const body = response.body;
    assert.match(body, /<h1>Evening Concert<\/h1>/);
    assert.match(body, /19:30 – 22:00/);
    assert.match(body, /Times are in Europe\/Rome \(CET\)/);
    assert.ok(body.includes('href="/venue/sample-hall/">Sample Hall</a>'));
    assert.match(body, /1 Main St, 62701 Springfield, IL, United States/);
    assert.match(body, /href="https:\/\/www\.google\.com\/maps\/search\/\?api=1&amp;query=/);
    assert.ok(body.includes('href="/organizer/jazz-society/">Jazz Society</a>'));
    assert.ok(body.includes('href="/events/category/jazz-nights/">Jazz Nights</a>'));
    assert.ok(body.includes('href="/events/tag/outdoor/" rel="tag">outdoor</a>'));
    assert.match(body, /<dd class="cost">\$25<\/dd>/);
    assert.ok(body.includes('<img class="hero" src="https://cdn.example.com/concert.png"'));
    assert.ok(body.includes('<p>An <strong>evening</strong> of jazz.</p>'));
    // The API escapes `website` (§3.1); the page writes the address once escaped, as an attribute needs.
    assert.ok(body.includes('<a href="https://example.com/concert?a=1&amp;b=2">'));
    assert.ok(body.includes(`href="${h().config.apiRoot}/events/${site.concert.id}.ics"`));
    assert.match(
      body,
      /href="https:\/\/calendar\.google\.com\/calendar\/render\?action=TEMPLATE&amp;text=Evening\+Concert&amp;dates=\d{8}T183000Z%2F\d{8}T210000Z/,
    );
    assert.ok(body.includes(`<meta property="og:url" content="${site.concert.url}">`));
    assert.ok(body.includes('<meta property="og:image" content="https://cdn.example.com/concert.png">'));
  });

  it('carries the json_ld of GET /events/{id} as the page JSON-LD', async () => {
    const body = (await get(pathOf(site.concert.url))).body;
    const script = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(body);
    assert.ok(script);
    const api = (await h().request('GET', `/events/${site.concert.id}`)).json();
    assert.deepEqual(JSON.parse(script[1]), api.json_ld);
  });

  it('hides the map link when show_map_link is off, and shows no venue the reader could not open (D32)', async () => {
    const body = (await get(pathOf(site.festival.url))).body;
    assert.ok(body.includes('Sample Hall'));
    assert.ok(!body.includes('google.com/maps'));
  });

  it('escapes titles everywhere, and no text can close the JSON-LD script', async () => {
    const pages = [pathOf(site.script.url), '/events/', `/events/month/${site.month}/`];
    for (const url of pages) {
      const body = (await get(url)).body;
      assert.ok(!body.includes('<script>alert(1)</script>'), url);
      assert.ok(body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &quot;Quoted&quot; &amp; more'), url);
    }
    const body = (await get(pathOf(site.script.url))).body;
    assert.equal(body.split('</script>').length, 2, 'only the JSON-LD element closes a script');
    const json = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(body)!;
    assert.equal(JSON.parse(json[1]).name, '<script>alert(1)</script> "Quoted" & more');
  });

  it('renders venue and organizer pages with their upcoming events', async () => {
    const venue = await get(pathOf(site.venue.url));
    assertPage(venue, 200, site.venue.url);
    assert.match(venue.body, /<h1>Sample Hall<\/h1>/);
    assert.ok(
      venue.body.includes('Evening Concert') &&
        venue.body.includes('Three Day Festival') &&
        venue.body.includes('Members Evening'),
    );
    assert.ok(venue.body.includes(`${h().config.apiRoot}/events.ics?venue=${site.venue.id}`));
    assert.ok(venue.body.includes(`webcal://${new URL(h().config.apiRoot).host}`));
    const organizer = await get(pathOf(site.organizer.url));
    assertPage(organizer, 200, site.organizer.url);
    assert.ok(organizer.body.includes('Evening Concert') && !organizer.body.includes('Three Day Festival'));
    assert.ok(organizer.body.includes('mailto:jazz@example.com'));
  });

  it("renders category pages (nested for children, parents listing their children's events) and tag pages", async () => {
    const parent = await get('/events/category/music/');
    assertPage(parent, 200, `${h().config.siteUrl}/events/category/music/`);
    assert.ok(parent.body.includes('Evening Concert') && parent.body.includes('Three Day Festival'));
    assert.ok(parent.body.includes(`events.ics?categories=${site.parent.id}`));
    const child = await get('/events/category/music/jazz-nights/');
    assertPage(child, 200, site.child.url);
    assert.ok(child.body.includes('Evening Concert') && !child.body.includes('Three Day Festival'));
    const short = await get('/events/category/jazz-nights/');
    assert.equal(short.statusCode, 301);
    assert.equal(short.headers.location, pathOf(site.child.url));
    const tag = await get('/events/tag/outdoor/');
    assertPage(tag, 200, `${h().config.siteUrl}/events/tag/outdoor/`);
    assert.ok(tag.body.includes('Evening Concert') && tag.body.includes(`events.ics?tags=${site.tag.id}`));
  });

  it("advertises the API as the reference's pages do: X-TEC-API-* headers (HEAD too), meta tags and an alternate link", async () => {
    const api = h().config.apiRoot;
    const cases: Array<[string, string]> = [
      ['/', `${api}/`],
      [pathOf(site.concert.url), `${api}/events/${site.concert.id}`],
      ['/events/category/music/', `${api}/events/?categories=${site.parent.slug}`],
      ['/events/tag/outdoor/', `${api}/events/?tags=${site.tag.slug}`],
      ['/events/', `${api}/`],
      ['/event/no-such-event/', `${api}/`],
    ];
    for (const [path, root] of cases) {
      for (const method of ['HEAD', 'GET']) {
        const response = await page(h(), method, path);
        assert.equal(response.headers['x-tec-api-version'], 'v1', `${method} ${path}`);
        assert.equal(response.headers['x-tec-api-root'], root, `${method} ${path}`);
        assert.equal(response.headers['x-tec-api-origin'], h().config.siteUrl, `${method} ${path}`);
        if (method === 'GET') {
          assert.ok(response.body.includes('<meta name="tec-api-version" content="v1">'), path);
          assert.ok(response.body.includes(`<meta name="tec-api-origin" content="${h().config.siteUrl}">`), path);
          assert.ok(response.body.includes(`<link rel="alternate" href="${api}/">`), path);
        }
      }
    }
    // The API itself does not call itself a page.
    assert.equal((await h().request('GET', '/events')).headers['x-tec-api-root'], undefined);
  });

  it('lists upcoming events, paginated, leaving out drafts and hidden events; protected ones show no details', async () => {
    const list = await get('/events/');
    assertPage(list, 200, `${h().config.siteUrl}/events/`);
    for (const title of ['Evening Concert', 'Three Day Festival', 'Members Evening'])
      assert.ok(list.body.includes(title), title);
    assert.ok(!list.body.includes('Unfinished Plan') && !list.body.includes('Hidden Gathering'));
    assert.ok(!list.body.includes('The secret programme'));
    assert.ok(list.body.includes('Password protected'));
    assert.ok(list.body.includes(`href="${h().config.apiRoot}/events.ics"`) && list.body.includes('href="webcal://'));
    assert.equal((await get('/events/page/1/')).statusCode, 200);
    assert.equal((await get('/events/?page=1')).statusCode, 200);
    assertPage(await get('/events/page/2/'), 404);
    assertPage(await get('/events/?page=99'), 404);
    assertPage(await get('/events/?page=abc'), 400);
    assertPage(await get('/events/page/0/'), 400);
    assertPage(await get(`${pathOf(site.venue.url)}?page=5`), 404);
  });

  it('spans a multi-day event over its days in the month view', async () => {
    const response = await get(`/events/month/${site.month}/`);
    assertPage(response, 200, `${h().config.siteUrl}/events/month/${site.month}/`);
    const cells = [...response.body.matchAll(/<td class="day[^"]*" data-date="([\d-]+)">(.*?)<\/td>/gs)];
    const daysWith = (title: string) =>
      cells.filter(([, , cell]) => cell.includes(title)).map(([, date]) => date.slice(8));
    assert.deepEqual(daysWith('Three Day Festival'), ['12', '13', '14']);
    assert.deepEqual(daysWith('Evening Concert'), ['10']);
    assert.ok(!response.body.includes('Unfinished Plan'));
    assert.ok(response.body.includes('events.ics?start_date='));
    const current = await get('/events/month/');
    assert.equal(current.statusCode, 302);
    assert.match(String(current.headers.location), /\/events\/month\/\d{4}-\d{2}\/$/);
  });

  it('answers 404 pages for drafts, private, trashed and unknown items, and 400 for addresses no page can have', async () => {
    assertPage(await get(`/event/${site.draft.slug}/`), 404);
    // Hidden from lists, not from its own page.
    assertPage(await get(pathOf(site.hidden.url)), 200, site.hidden.url);
    const trashed = await h().request('DELETE', `/events/${site.script.id}`, { as: h().users.administrator });
    assert.equal(trashed.statusCode, 200);
    assertPage(await get(pathOf(site.script.url)), 404);
    assertPage(await get(`/event/${trashed.json().slug}/`), 404);
    const restored = await h().request('POST', `/events/${site.script.id}`, {
      as: h().users.administrator,
      body: { status: 'publish' },
    });
    assert.equal(restored.statusCode, 200);
    const privateEvent = await h().request('POST', '/events', {
      as: h().users.administrator,
      body: {
        title: 'Private Party',
        start_date: '2030-01-01 10:00:00',
        end_date: '2030-01-01 11:00:00',
        status: 'private',
      },
    });
    assertPage(await get(`/event/${privateEvent.json().slug}/`), 404);
    assertPage(await get('/event/no-such-event/'), 404);
    assertPage(await get('/venue/no-such-venue/'), 404);
    assertPage(await get('/organizer/no-such-organizer/'), 404);
    assertPage(await get('/events/category/no-such/'), 404);
    assertPage(await get('/events/tag/no-such/'), 404);
    for (const url of [
      '/event/a/b/c/',
      '/event/',
      '/venue/',
      '/organizer/',
      '/events/nothing/here/',
      '/events/category/',
    ])
      assertPage(await get(url), 404);
    for (const odd of [
      '/event/%3Cscript%3E/',
      '/event/a%20b/',
      '/event/a%00b/',
      `/event/${'x'.repeat(300)}/`,
      '/venue/%22%27/',
      '/events/tag/a%09b/',
      '/event/%E0%A4%A/',
    ]) {
      const response = await get(odd);
      assertPage(response, 400);
      assert.ok(!response.body.includes('<script>'), odd);
    }
    assertPage(await get('/events/month/1969-12/'), 404);
    assertPage(await get('/events/month/2101-01/'), 404);
    assertPage(await get('/events/month/2027-13/'), 400);
    assertPage(await get('/events/month/2027-3/'), 400);
    assertPage(await get('/events/month/abcd-ef/'), 400);
    assertPage(await get('/events/month/1970-01/'), 200);
    assertPage(await get('/events/month/2100-12/'), 200);
  });

  it('answers /event/<slug>/<date>/ with the occurrence of that day (the first occurrence is the event itself)', async () => {
    const day = String(site.concert.start_date).slice(0, 10);
    const own = await get(`${pathOf(site.concert.url)}${day}/`);
    assert.equal(own.statusCode, 302);
    assert.equal(own.headers.location, pathOf(site.concert.url));
    assertPage(await get(`${pathOf(site.concert.url)}2001-01-01/`), 404);
    assertPage(await get(`/event/${site.draft.slug}/${String(site.draft.start_date).slice(0, 10)}/`), 404);
    assertPage(await get(`${pathOf(site.concert.url)}2027-02-30/`), 400);
    assertPage(await get(`${pathOf(site.concert.url)}tomorrow/`), 400);
    // D25 (recurring events): each further occurrence of a series has a page of its own.
    const created = await h().request('POST', '/events', {
      as: h().users.administrator,
      body: {
        title: 'Daily Walk',
        start_date: `${site.month}-05 08:00:00`,
        end_date: `${site.month}-05 09:00:00`,
        recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.ok(
      Number.isInteger(created.json().series_id),
      `a recurring event belongs to a series: ${created.body.slice(0, 300)}`,
    );
    const second = await get(`${pathOf(created.json().url)}${site.month}-06/`);
    assert.equal(second.statusCode, 302);
    const page = await get(String(second.headers.location));
    assertPage(page, 200);
    assert.match(page.body, /Daily Walk/);
    assert.ok(page.body.includes(`${site.month}-06T08:00:00`));
  });

  it('answers 410 with a link to the series for a cancelled occurrence, at both of its addresses', async () => {
    const created = await h().request('POST', '/events', {
      as: h().users.administrator,
      body: {
        title: 'Weekly Choir',
        start_date: `${site.month}-02 18:00:00`,
        end_date: `${site.month}-02 19:30:00`,
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const series = created.json();
    const date = `${site.month}-09`;
    const found = await get(`${pathOf(series.url)}${date}/`);
    assert.equal(found.statusCode, 302);
    const ownPath = String(found.headers.location);
    const occurrence = (await h().request('GET', `/events/by-slug/${ownPath.split('/')[2]}`)).json();
    assert.equal(occurrence.series_id, series.id);
    const cancelled = await h().request('DELETE', `/events/${occurrence.id}`, { as: h().users.administrator });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    for (const url of [`${pathOf(series.url)}${date}/`, ownPath]) {
      const response = await get(url);
      assertPage(response, 410);
      assert.match(response.body, /<h1>This date was cancelled<\/h1>/, url);
      assert.ok(response.body.includes(`href="${pathOf(series.url)}"`), `${url}: links to the series`);
      assert.ok(response.body.includes('<meta name="robots" content="noindex">'), url);
    }
    // The series' other dates are as they were. One deleted for good (an EXDATE of the series, nothing left of it)
    // still answers 410 at the series' address for that date.
    const third = (
      await h().request(
        'GET',
        `/events/by-slug/${String((await get(`${pathOf(series.url)}${site.month}-16/`)).headers.location).split('/')[2]}`,
      )
    ).json();
    assert.equal(
      (await h().request('DELETE', `/events/${third.id}`, { as: h().users.administrator, query: { force: true } }))
        .statusCode,
      200,
    );
    assertPage(await get(`${pathOf(series.url)}${site.month}-16/`), 410);
    assert.equal((await get(`${pathOf(series.url)}${site.month}-23/`)).statusCode, 302);
    // A whole series trashed is gone (404), not cancelled.
    assert.equal(
      (await h().request('DELETE', `/events/${series.id}`, { as: h().users.administrator })).statusCode,
      200,
    );
    assertPage(await get(`${pathOf(series.url)}${date}/`), 404);
    assertPage(await get(ownPath), 404);
  });

  it('serves robots.txt naming the sitemap, and a sitemap of the public pages only, every URL escaped for XML', async () => {
    const robots = await get('/robots.txt');
    assert.equal(robots.statusCode, 200);
    assert.equal(robots.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(robots.body, /^User-agent: \*\nAllow: \/\n/m);
    assert.ok(robots.body.includes(`\nSitemap: ${h().config.siteUrl}/sitemap.xml\n`), robots.body);

    const sitemap = await get('/sitemap.xml');
    assert.equal(sitemap.statusCode, 200, sitemap.body);
    assert.equal(sitemap.headers['content-type'], 'application/xml; charset=utf-8');
    assert.match(
      sitemap.body,
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/,
    );
    assert.doesNotMatch(sitemap.body, /&(?!amp;|lt;|gt;|quot;|apos;)/, 'no bare ampersand');
    const locs = locsOf(sitemap.body);
    const root = h().config.siteUrl;
    for (const url of [
      site.concert.url,
      site.festival.url,
      site.venue.url,
      site.organizer.url,
      `${root}/events/category/music/`,
      `${root}/events/category/music/jazz-nights/`,
      `${root}/events/tag/outdoor/`,
    ]) {
      assert.ok(locs.includes(url), `${url} listed`);
    }
    for (const item of [site.draft, site.secret, site.hidden]) {
      assert.ok(!locs.some((loc) => loc.includes(`/${item.slug}/`)), `${item.slug} not listed`);
    }
    assert.equal(new Set(locs).size, locs.length, 'each page once');
    assert.match(
      sitemap.body,
      /<url><loc>[^<]+<\/loc><lastmod>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00<\/lastmod><\/url>/,
    );
    assertPage(await get('/sitemap-1.xml'), 404);
  });

  it('links a small SVG icon from every page and serves it', async () => {
    const body = (await get('/events/')).body;
    assert.ok(body.includes('<link rel="icon" href="/favicon.svg" type="image/svg+xml">'));
    const icon = await get('/favicon.svg');
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(icon.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(icon.rawPayload.length < 2048, `${icon.rawPayload.length} bytes`);
    const ico = await get('/favicon.ico');
    assert.equal(ico.statusCode, 301);
    assert.equal(ico.headers.location, '/favicon.svg');
  });

  it('lists an open-ended series once on the upcoming, venue, organizer, category and tag pages, each date in the month', async () => {
    const created = await h().request('POST', '/events', {
      as: h().users.administrator,
      body: {
        title: 'Tuesday Jam',
        start_date: `${site.month}-01 20:00:00`,
        end_date: `${site.month}-01 22:00:00`,
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU'],
        venue: site.venue.id,
        organizer: [site.organizer.id],
        categories: [site.child.id],
        tags: [site.tag.id],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (const url of [
      '/events/',
      pathOf(site.venue.url),
      pathOf(site.organizer.url),
      '/events/category/music/jazz-nights/',
      '/events/tag/outdoor/',
    ]) {
      const body = (await get(url)).body;
      assert.equal(body.split('>Tuesday Jam</a>').length - 1, 1, `${url}: one entry`);
      assert.match(body, /<p class="series-note">Repeats every Tuesday · \d+ more dates<\/p>/, url);
    }
    const month = (await get(`/events/month/${site.month}/`)).body;
    const tuesdays = month.match(/<td class="day[^"]*" data-date="[\d-]+">(?:(?!<\/td>).)*Tuesday Jam/gs) ?? [];
    assert.ok(tuesdays.length >= 4, `every Tuesday of the month: ${tuesdays.length}`);
  });

  it('offers a date of a series as "this date" and as "the whole series", each for .ics and Google Calendar', async () => {
    const created = await h().request('POST', '/events', {
      as: h().users.administrator,
      body: {
        title: 'Book Club',
        start_date: `${site.month}-04 18:00:00`,
        end_date: `${site.month}-04 19:00:00`,
        timezone: 'Europe/Rome',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const series = created.json();
    const date = `${site.month}-11`;
    const occurrencePath = String((await get(`${pathOf(series.url)}${date}/`)).headers.location);
    const body = (await get(occurrencePath)).body;
    const section = /<section class="add-to-calendar"[\s\S]*?<\/section>/.exec(body)![0];
    const groups = [...section.matchAll(/<h3>([^<]+)<\/h3>\s*<ul class="inline buttons">([\s\S]*?)<\/ul>/g)];
    assert.deepEqual(
      groups.map(([, title]) => title),
      [`This date only: ${describeDay(date)}`, 'Every date of the series'],
    );
    const hrefs = (html: string) =>
      [...html.matchAll(/href="([^"]+)"/g)].map(([, href]) => href.replace(/&amp;/g, '&'));
    const [thisDate, wholeSeries] = groups.map(([, , html]) => hrefs(html));
    assert.equal(thisDate[0], `${occurrencePath}date.ics`);
    assert.match(
      thisDate[1],
      new RegExp(
        `^https://calendar\\.google\\.com/calendar/render\\?action=TEMPLATE&text=Book\\+Club&dates=${date.replace(/-/g, '')}T`,
      ),
    );
    assert.equal(wholeSeries[0], `${h().config.apiRoot}/events/${series.id}.ics`);
    assert.equal(
      wholeSeries[1],
      `https://calendar.google.com/calendar/render?cid=${encodeURIComponent(`webcal://${new URL(h().config.apiRoot).host}${new URL(h().config.apiRoot).pathname}/events/${series.id}.ics`)}`,
    );

    const ics = await get(`${occurrencePath}date.ics`);
    assert.equal(ics.statusCode, 200, ics.body);
    assert.equal(ics.headers['content-type'], 'text/calendar; charset=utf-8');
    assert.equal(ics.body.split('BEGIN:VEVENT').length - 1, 1, 'one date');
    const vevent = /BEGIN:VEVENT[\s\S]*END:VEVENT/.exec(ics.body)![0];
    assert.ok(!/^(RRULE|RDATE|EXDATE|RECURRENCE-ID)/m.test(vevent), 'no rule: this date alone');
    assert.match(ics.body, new RegExp(`^DTSTART;TZID=Europe/Rome:${date.replace(/-/g, '')}T180000\r$`, 'm'));
    assert.match(ics.body, /^SUMMARY:Book Club\r$/m);
    const uid = /^UID:(.*)\r$/m.exec(ics.body)![1];
    assert.notEqual(
      uid,
      `${series.id}@${new URL(h().config.siteUrl).hostname}`,
      "not the series' UID, which would replace the series",
    );

    // A single event keeps one pair of buttons, both for its one date; its date.ics is the same date.
    const single = (await get(pathOf(site.concert.url))).body;
    assert.ok(!single.includes('Every date of the series'));
    assert.equal((await get(`${pathOf(site.concert.url)}date.ics`)).statusCode, 200);
    assertPage(await get(`/event/${site.draft.slug}/date.ics`), 404);
    assertPage(await get(`${pathOf(site.secret.url)}date.ics`), 403);
  });

  it('redirects ?p=<id> to the public page of a published item, else 404', async () => {
    for (const item of [site.concert, site.venue, site.organizer]) {
      const response = await get(`/?p=${item.id}`);
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, item.url);
    }
    assertPage(await get(`/?p=${site.draft.id}`), 404);
    assertPage(await get('/?p=999999'), 404);
    assertPage(await get('/?p=99999999999'), 400);
    assertPage(await get('/?p=abc'), 400);
    assert.equal((await get(`/?post_type=tribe_events&p=${site.concert.id}`)).headers.location, site.concert.url);
    assert.equal((await get('/')).statusCode, 302);
  });

  it('shows a password form for a protected event; the posted password unlocks it and a cookie keeps it unlocked', async () => {
    const url = pathOf(site.secret.url);
    const locked = await get(url);
    assertPage(locked, 200, site.secret.url);
    assert.ok(locked.body.includes('<form class="password" method="post" action="/event/members-evening/">'));
    assert.ok(!locked.body.includes('The secret programme') && !locked.body.includes('application/ld+json'));
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const wrong = await page(h(), 'POST', url, form, 'password=nope');
    assertPage(wrong, 403);
    assert.ok(wrong.body.includes('role="alert"') && !wrong.body.includes('The secret programme'));
    assert.equal(wrong.headers['set-cookie'], undefined);
    const right = await page(h(), 'POST', url, form, `password=${encodeURIComponent(site.password)}`);
    assertPage(right, 200, site.secret.url);
    assert.ok(right.body.includes('The secret programme') && right.body.includes('application/ld+json'));
    const cookie = String(right.headers['set-cookie']);
    assert.match(cookie, /^event_unlock_\d+=[\w-]+; Path=\/event\/members-evening\/; HttpOnly; SameSite=Lax$/);
    const again = await get(url, { cookie: cookie.split(';')[0] });
    assert.ok(again.body.includes('The secret programme'));
    assert.equal(again.headers['cache-control'], 'private, no-store');
    const forged = await get(url, { cookie: `event_unlock_${site.secret.id}=forged` });
    assert.ok(!forged.body.includes('The secret programme'));
    // A changed password ends the cookie's use.
    await h().request('POST', `/events/${site.secret.id}`, {
      as: h().users.administrator,
      body: { password: 'another one' },
    });
    assert.ok(!(await get(url, { cookie: cookie.split(';')[0] })).body.includes('The secret programme'));
    await h().request('POST', `/events/${site.secret.id}`, {
      as: h().users.administrator,
      body: { password: site.password },
    });
  });

  it('sends ETags and answers 304 to If-None-Match; the tag changes when an embedded venue changes (D22)', async () => {
    for (const url of [
      pathOf(site.concert.url),
      '/events/',
      `/events/month/${site.month}/`,
      pathOf(site.venue.url),
      '/events/tag/outdoor/',
      '/assets/pages.css',
    ]) {
      const first = await get(url);
      const tag = first.headers.etag as string;
      assert.match(tag, /^"[\w-]+"$/, url);
      const second = await get(url, { 'if-none-match': tag });
      assert.equal(second.statusCode, 304, url);
      assert.equal(second.body, '');
      assert.equal(second.headers.etag, tag);
    }
    const before = (await get(pathOf(site.concert.url))).headers.etag;
    assert.ok((await get(pathOf(site.concert.url))).headers['last-modified']);
    await h().request('POST', `/venues/${site.venue.id}`, { as: h().users.administrator, body: { phone: '555-0123' } });
    const after = await get(pathOf(site.concert.url), { 'if-none-match': before as string });
    assert.equal(after.statusCode, 200);
    assert.notEqual(after.headers.etag, before);
  });

  it('reads a list page in a constant number of queries, whatever the number of events', async () => {
    let round = 0;
    const queriesFor = (url: string) =>
      queriesDuring(h().store, async () => {
        const response = await get(`${url}${url.includes('?') ? '&' : '?'}round=${round++}`);
        assert.equal(response.statusCode, 200);
      });
    const urls = ['/events/', `/events/month/${site.month}/`, '/events/tag/outdoor/', pathOf(site.venue.url)];
    const small: number[] = [];
    for (const url of urls) small.push(await queriesFor(url));
    for (let index = 0; index < 6; index++) {
      const created = await h().request('POST', '/events', {
        as: h().users.administrator,
        body: {
          title: `Extra ${index}`,
          start_date: `${site.month}-2${index} 12:00:00`,
          end_date: `${site.month}-2${index} 13:00:00`,
          venue: site.venue.id,
          tags: [site.tag.id],
          organizer: [site.organizer.id],
        },
      });
      assert.equal(created.statusCode, 201);
    }
    for (const [index, url] of urls.entries()) {
      const large = await queriesFor(url);
      // Posts are read ten at a time (D31): one more chunk each for events, venues and organizers at most.
      assert.ok(large <= small[index] + 3, `${url}: ${small[index]} then ${large} queries`);
      assert.ok(large <= 25, `${url}: ${large} queries`);
    }
  });
});

describeEachDatabase(
  'sitemap paging (D28)',
  (h) => {
    let site: Site;
    before(async () => {
      site = await seedSite(h());
    });

    it('makes /sitemap.xml an index of numbered files past SITEMAP_URLS_PER_FILE, together listing every public page once', async () => {
      const index = await page(h(), 'GET', '/sitemap.xml');
      assert.equal(index.statusCode, 200);
      assert.match(index.body, /<sitemapindex xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
      const files = locsOf(index.body);
      assert.ok(files.length >= 3, files.join(' '));
      assert.deepEqual(
        files,
        files.map((_, n) => `${h().config.siteUrl}/sitemap-${n + 1}.xml`),
      );
      const locs: string[] = [];
      for (const file of files) {
        const part = await page(h(), 'GET', new URL(file).pathname);
        assert.equal(part.statusCode, 200, file);
        assert.match(part.body, /<urlset /);
        const listed = locsOf(part.body);
        assert.ok(listed.length >= 1 && listed.length <= 3, `${file}: ${listed.length} URLs`);
        locs.push(...listed);
      }
      assert.equal(new Set(locs).size, locs.length, 'each page once');
      for (const url of [
        site.concert.url,
        site.festival.url,
        site.script.url,
        site.venue.url,
        site.organizer.url,
        `${h().config.siteUrl}/events/tag/outdoor/`,
      ]) {
        assert.ok(locs.includes(url), url);
      }
      assert.ok(!locs.some((loc) => loc.includes(site.draft.slug) || loc.includes(site.secret.slug)));
      for (const missing of [`/sitemap-${files.length + 1}.xml`, '/sitemap-0.xml', '/sitemap-x.xml']) {
        const response = await page(h(), 'GET', missing);
        assert.equal(response.statusCode, 404, missing);
      }
    });
  },
  { SITEMAP_URLS_PER_FILE: '3' },
);
