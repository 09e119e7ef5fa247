// D31: no single request blocks the event loop for more than 100 ms with the data sizes the limits allow. Each worst
// case runs while `perf_hooks.monitorEventLoopDelay` samples the loop and a cheap request is sent again and again; the
// assertion is about the loop's delay, not a timed benchmark.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { before, it } from 'node:test';
import { insertEventsBulk, insertOrganizersBulk, insertTermsBulk } from '../../src/import/bulk.ts';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';

const MAX_DELAY_MS = 100;
const STAMP = { utc: '2026-11-01 00:00:00', local: '2026-11-01 00:00:00' };
const ORGANIZERS_PER_EVENT = 50;
const PER_PAGE_MAX = 100;
/** D31: description and excerpt at most 256 KiB. */
const LONGEST_DESCRIPTION = 256 * 1024;

interface Answer {
  statusCode: number;
  body: string;
  json(): any;
}

/**
 * The worst-case request goes over a real socket, as in production: the in-process `inject` would add its own
 * whole-body copies and conversions (test-only work) to the loop being measured. The body is kept as received chunks
 * and decoded after the measurement.
 */
function send(port: number, method: string, path: string, options: { query?: Record<string, string | number>; body?: unknown; authorization?: string } = {}): Promise<{ statusCode: number; chunks: Buffer[] }> {
  const query = options.query ? `?${new URLSearchParams(Object.entries(options.query).map(([key, value]): [string, string] => [key, String(value)]))}` : '';
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1', port, method, path: `${path}${query}`,
      headers: {
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        ...(options.authorization ? { authorization: options.authorization } : {}),
      },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, chunks }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Runs the request `work` sends while sampling the event loop and sending a cheap request (`GET /health`) in a loop;
 * answers the loop's largest delay in ms, the cheap requests served meanwhile, and the answer.
 */
async function measure(h: Harness, work: () => Promise<{ statusCode: number; chunks: Buffer[] }>): Promise<{ maxDelayMs: number; cheapServed: number; result: Answer }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  let running = true;
  let cheapServed = 0;
  const cheap = (async () => {
    while (running) {
      const response = await h.request('GET', '/health');
      assert.equal(response.statusCode, 200);
      cheapServed++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  histogram.enable();
  let answer: { statusCode: number; chunks: Buffer[] };
  try {
    answer = await work();
  } finally {
    histogram.disable();
    running = false;
    await cheap;
  }
  const body = Buffer.concat(answer.chunks).toString('utf8');
  return { maxDelayMs: histogram.max / 1e6, cheapServed, result: { statusCode: answer.statusCode, body, json: () => JSON.parse(body) } };
}

/**
 * {@link measure} of a read, repeated up to three times while the loop's largest delay is over the bound: a request
 * that blocks the loop does so every time, while the delays of a machine shared with other test files (CI runs two at
 * once on two cores) come and go. The best run is answered.
 */
async function measureBest(h: Harness, work: () => Promise<{ statusCode: number; chunks: Buffer[] }>): Promise<Awaited<ReturnType<typeof measure>>> {
  let best = await measure(h, work);
  for (let attempt = 2; attempt <= 3 && best.maxDelayMs >= MAX_DELAY_MS; attempt++) {
    const again = await measure(h, work);
    if (again.maxDelayMs < best.maxDelayMs) best = again;
  }
  return best;
}

function assertResponsive(label: string, measured: { maxDelayMs: number; cheapServed: number }): void {
  assert.ok(measured.maxDelayMs < MAX_DELAY_MS, `${label}: the event loop was blocked for ${measured.maxDelayMs.toFixed(1)} ms`);
  assert.ok(measured.cheapServed > 0, `${label}: no cheap request was served meanwhile`);
}

describeEachDatabase('D31 event-loop rule: worst cases of each limit keep the loop under 100 ms', (h) => {
  let fullCategory: number;
  let hugeCategory: number;
  let port: number;
  const api = () => h().api;

  before(async () => {
    const store = h().store;
    const author = h().users.editor.id;
    [fullCategory, hugeCategory] = await insertTermsBulk(store, 'event_category', ['Full page', 'Over budget']);
    // The largest list that fits the budget: 100 events embedding 50 organizers each (~2 KB of text per organizer).
    const small = await insertOrganizersBulk(store, Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
      title: `Small organizer ${index}`, content: `<p>${'Ünïcödé organizer text '.repeat(80)}</p>`, authorId: author, published: STAMP,
    })), STAMP);
    // Organizers of the longest allowed description: one event embedding 50 of them is already ~13 MB.
    const huge = await insertOrganizersBulk(store, Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
      title: `Huge organizer ${index}`, content: `${'é'.repeat(LONGEST_DESCRIPTION / 2 - 8)} ${index}`, authorId: author, published: STAMP,
    })), STAMP);
    const events = (category: number, organizerIds: number[], description: string) => Array.from({ length: PER_PAGE_MAX }, (_, index) => ({
      title: `Event ${category}-${index}`, content: description, authorId: author, published: STAMP, timezone: 'Europe/Paris',
      start: `2027-02-${String(1 + (index % 28)).padStart(2, '0')} 10:00:00`, end: `2027-02-${String(1 + (index % 28)).padStart(2, '0')} 12:00:00`,
      organizerIds, categoryIds: [category],
    }));
    await insertEventsBulk(store, events(fullCategory, small, '<p>A short description.</p>'), STAMP);
    // The events a search must read through: the longest allowed descriptions.
    await insertEventsBulk(store, events(hugeCategory, huge, `<p>${'ß'.repeat(LONGEST_DESCRIPTION / 2 - 10)}</p>`), STAMP);
    h().setNow('2027-01-01T00:00:00Z');
    await h().app.listen({ port: 0, host: '127.0.0.1' });
    port = (h().app.server.address() as AddressInfo).port;
    // Warm what any first request pays once (statement caches, JIT), so that only the worst case is measured.
    assert.equal((await h().request('GET', '/events', { query: { per_page: 1 } })).statusCode, 200);
  });

  it('the largest page (per_page=100) of events with 50 embedded organizers each', async () => {
    h().setNow('2027-01-01T00:00:00Z');
    const measured = await measureBest(h(), () => send(port, 'GET', `${api()}/events`, { query: { per_page: PER_PAGE_MAX, categories: fullCategory } }));
    assert.equal(measured.result.statusCode, 200, measured.result.body.slice(0, 300));
    const body = measured.result.json();
    assert.equal(body.events.length, PER_PAGE_MAX);
    assert.equal(body.events[0].organizer.length, ORGANIZERS_PER_EVENT);
    assertResponsive('GET /events?per_page=100', measured);
  });

  it('a page that passes the response budget (400 rest_response_too_large)', async () => {
    h().setNow('2027-01-01T00:00:00Z');
    const measured = await measureBest(h(), () => send(port, 'GET', `${api()}/events`, { query: { per_page: PER_PAGE_MAX, categories: hugeCategory } }));
    assert.equal(measured.result.statusCode, 400);
    assert.equal(measured.result.json().code, 'rest_response_too_large');
    assertResponsive('GET /events over budget', measured);
  });

  it('a /changes page of the largest size', async () => {
    h().setNow('2027-01-01T00:00:00Z');
    const measured = await measureBest(h(), () => send(port, 'GET', `${api()}/changes`, { authorization: h().users.administrator.authorization, query: { per_page: 1000 } }));
    assert.equal(measured.result.statusCode, 400);
    assert.equal(measured.result.json().code, 'rest_response_too_large');
    assertResponsive('GET /changes?per_page=1000', measured);
  });

  it('a create with the largest number of inline organizers (50)', async () => {
    const organizer = Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
      organizer: `Inline organizer ${index} ${'n'.repeat(200)}`,
      description: `<p>${'d'.repeat(15_000)} ${index}</p>`,
      email: `inline${index}@example.com`,
    }));
    const measured = await measure(h(), () => send(port, 'POST', `${api()}/events`, {
      authorization: h().users.editor.authorization,
      body: { title: 'Many organizers', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00', organizer },
    }));
    assert.equal(measured.result.statusCode, 201, measured.result.body.slice(0, 300));
    assert.equal(measured.result.json().organizer.length, ORGANIZERS_PER_EVENT);
    assertResponsive('POST /events with 50 inline organizers', measured);
  });

  it('a search with the longest allowed value over the longest descriptions', async () => {
    h().setNow('2027-01-01T00:00:00Z');
    // 200 characters of non-ASCII words (more than 9: searched as one phrase, D31).
    const search = Array.from({ length: 60 }, (_, index) => `ä${String.fromCharCode(0x3b1 + (index % 20))}é`).join(' ').slice(0, 200);
    assert.equal(search.length, 200);
    const measured = await measureBest(h(), () => send(port, 'GET', `${api()}/events`, { query: { search, per_page: PER_PAGE_MAX } }));
    assert.equal(measured.result.statusCode, 200, measured.result.body.slice(0, 300));
    assertResponsive('GET /events?search=<200 characters>', measured);
    const venues = await measureBest(h(), () => send(port, 'GET', `${api()}/organizers`, { query: { search, per_page: PER_PAGE_MAX } }));
    assert.equal(venues.result.statusCode, 200, venues.result.body.slice(0, 300));
    assertResponsive('GET /organizers?search=<200 characters>', venues);
  });
}, { VALIDATE_RESPONSES: '0' });
