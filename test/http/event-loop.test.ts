// D31: no single request holds the event loop for long with the data sizes the limits allow: long work gives the loop
// a turn between pieces of bounded size, after each SQLite statement (better-sqlite3 runs them synchronously), each row
// rendered and every 16 Ki characters of an answer written (store/event-loop.ts). Counted, not timed: with the slice
// set to 0 every check gives a turn, and the test counts the turns the service gave, by reason, while the worst case of
// each limit is worked on, against the pieces that work has. That a check gives a turn once a slice of time is used up
// is checked on its own, with a fake clock.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it, mock } from 'node:test';
import { insertEventsBulk, insertOrganizersBulk, insertTermsBulk } from '../../src/core/bulk-load/bulk.ts';
import {
  countTurnsGiven,
  setSliceForTests,
  SLICE_MS,
  yieldIfBusy,
  type TurnReason,
} from '../../src/store/event-loop.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

const STAMP = { utc: '2026-11-01 00:00:00', local: '2026-11-01 00:00:00' };
const ORGANIZERS_PER_EVENT = 50;
const PER_PAGE_MAX = 100;
/** D31: description and excerpt at most 256 KiB. */
const LONGEST_DESCRIPTION = 256 * 1024;
/** D31: the default MAX_RESPONSE_BYTES. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/**
 * An answer is checked between members every 16 Ki characters written (bounded-json.ts); with members of a few KB and
 * characters of at most two bytes, a turn comes at least every 32 KiB written.
 */
const SMALL_MEMBERS_WRITTEN_PER_TURN = 32 * 1024;
/** A member as large as the longest description is written whole: a turn at least every two of them. */
const LARGE_MEMBERS_WRITTEN_PER_TURN = 2 * LONGEST_DESCRIPTION;

interface Answer {
  statusCode: number;
  bytes: number;
  body: string;
  json(): any;
}

interface SendOptions {
  query?: Record<string, string | number>;
  body?: unknown;
  authorization?: string;
}

/**
 * The worst-case request goes over a real socket, as in production (the in-process `inject` would add test-only
 * work of its own). `onHead` is called when the answer's head arrives.
 */
function send(port: number, method: string, path: string, options: SendOptions, onHead: () => void): Promise<Answer> {
  const query = options.query
    ? `?${new URLSearchParams(Object.entries(options.query).map(([key, value]): [string, string] => [key, String(value)]))}`
    : '';
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `${path}${query}`,
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...(options.authorization ? { authorization: options.authorization } : {}),
        },
      },
      (response) => {
        onHead();
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            statusCode: response.statusCode ?? 0,
            bytes: body.length,
            body: body.toString('utf8'),
            json: () => JSON.parse(body.toString('utf8')),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Sends a request and counts the turns the service gave the event loop while working on it, by reason. */
async function countTurns(
  port: number,
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<{ turns: Record<TurnReason, number>; answer: Answer }> {
  const before = countTurnsGiven();
  let turns: Record<TurnReason, number> | undefined;
  const answer = await send(port, method, path, options, () => {
    const now = countTurnsGiven();
    turns = {
      statement: now.statement - before.statement,
      row: now.row - before.row,
      answer: now.answer - before.answer,
    };
  });
  assert.ok(turns, 'the answer had a head');
  return { turns, answer };
}

/** A 400 rest_response_too_large, with turns given all along the budget written before it was refused. */
function assertTooLargeWithTurns({ turns, answer }: Awaited<ReturnType<typeof countTurns>>): void {
  assert.equal(answer.statusCode, 400);
  assert.equal(answer.json().code, 'rest_response_too_large');
  assert.ok(
    turns.answer >= MAX_RESPONSE_BYTES / LARGE_MEMBERS_WRITTEN_PER_TURN,
    `turns while the budget was written: ${JSON.stringify(turns)}`,
  );
}

describe('D31: a check gives the loop a turn once the slice is used up', () => {
  it("gives no turn within SLICE_MS of the turn's start, one after, then starts a new slice (a fake clock)", async () => {
    setSliceForTests(null);
    let now = 1_000_000;
    const clock = mock.method(performance, 'now', () => now);
    try {
      await yieldIfBusy('answer');
      // A new turn of the loop starts a new slice, at `now`.
      await new Promise((resolve) => setImmediate(resolve));
      const given = countTurnsGiven().answer;
      /** Whether a check after `advance` ms of work gave the loop a turn (a callback queued before it ran). */
      const turnAfter = async (advance: number) => {
        now += advance;
        let turned = false;
        setImmediate(() => {
          turned = true;
        });
        await yieldIfBusy('answer');
        return turned;
      };
      assert.equal(await turnAfter(SLICE_MS - 1), false, 'within the slice');
      assert.equal(await turnAfter(1), true, 'the slice used up');
      assert.equal(await turnAfter(SLICE_MS - 1), false, 'a new slice after the turn');
      assert.equal(countTurnsGiven().answer - given, 1, 'the turn is counted');
    } finally {
      clock.mock.restore();
    }
  });
});

describeEachDatabase(
  'D31 event-loop rule: the worst case of each limit gives the loop a turn between bounded pieces',
  (h) => {
    let fullCategory: number;
    let hugeCategory: number;
    let port: number;
    const api = () => h().api;

    before(async () => {
      setSliceForTests(0);
      const store = h().store;
      const author = h().users.editor.id;
      [fullCategory, hugeCategory] = await insertTermsBulk(store, 'event_category', ['Full page', 'Over budget']);
      // The largest list that fits the budget: 100 events embedding 50 organizers each (~2 KB of text per organizer).
      const small = await insertOrganizersBulk(
        store,
        Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
          title: `Small organizer ${index}`,
          content: `<p>${'Ünïcödé organizer text '.repeat(80)}</p>`,
          authorId: author,
          published: STAMP,
        })),
        STAMP,
      );
      // Organizers of the longest allowed description: one event embedding 50 of them is already ~13 MB.
      const huge = await insertOrganizersBulk(
        store,
        Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
          title: `Huge organizer ${index}`,
          content: `${'é'.repeat(LONGEST_DESCRIPTION / 2 - 8)} ${index}`,
          authorId: author,
          published: STAMP,
        })),
        STAMP,
      );
      const events = (category: number, organizerIds: number[], description: string) =>
        Array.from({ length: PER_PAGE_MAX }, (_, index) => ({
          title: `Event ${category}-${index}`,
          content: description,
          authorId: author,
          published: STAMP,
          timezone: 'Europe/Paris',
          start: `2027-02-${String(1 + (index % 28)).padStart(2, '0')} 10:00:00`,
          end: `2027-02-${String(1 + (index % 28)).padStart(2, '0')} 12:00:00`,
          organizerIds,
          categoryIds: [category],
        }));
      await insertEventsBulk(store, events(fullCategory, small, '<p>A short description.</p>'), STAMP);
      // The events a search must read through: the longest allowed descriptions.
      await insertEventsBulk(
        store,
        events(hugeCategory, huge, `<p>${'ß'.repeat(LONGEST_DESCRIPTION / 2 - 10)}</p>`),
        STAMP,
      );
      h().setNow('2027-01-01T00:00:00Z');
      await h().app.listen({ port: 0, host: '127.0.0.1' });
      port = (h().app.server.address() as AddressInfo).port;
    });
    after(() => {
      setSliceForTests(null);
    });
    beforeEach(() => {
      h().setNow('2027-01-01T00:00:00Z');
    });

    it('the largest page (per_page=100) of events with 50 embedded organizers each', async () => {
      const { turns, answer } = await countTurns(port, 'GET', `${api()}/events`, {
        query: { per_page: PER_PAGE_MAX, categories: fullCategory },
      });
      assert.equal(answer.statusCode, 200, answer.body.slice(0, 300));
      const body = answer.json();
      assert.equal(body.events.length, PER_PAGE_MAX);
      assert.equal(body.events[0].organizer.length, ORGANIZERS_PER_EVENT);
      assert.ok(
        turns.row >= PER_PAGE_MAX + ORGANIZERS_PER_EVENT,
        `a turn after each row rendered: ${JSON.stringify(turns)}`,
      );
      assert.ok(
        turns.answer >= answer.bytes / SMALL_MEMBERS_WRITTEN_PER_TURN,
        `a turn every ${SMALL_MEMBERS_WRITTEN_PER_TURN} bytes of the ${answer.bytes} written: ${JSON.stringify(turns)}`,
      );
    });

    it('a page that passes the response budget (400 rest_response_too_large)', async () => {
      assertTooLargeWithTurns(
        await countTurns(port, 'GET', `${api()}/events`, {
          query: { per_page: PER_PAGE_MAX, categories: hugeCategory },
        }),
      );
    });

    it('a /changes page of the largest size', async () => {
      assertTooLargeWithTurns(
        await countTurns(port, 'GET', `${api()}/changes`, {
          authorization: h().users.administrator.authorization,
          query: { per_page: 1000 },
        }),
      );
    });

    it('a create with the largest number of inline organizers (50)', async () => {
      const organizer = Array.from({ length: ORGANIZERS_PER_EVENT }, (_, index) => ({
        organizer: `Inline organizer ${index} ${'n'.repeat(200)}`,
        description: `<p>${'d'.repeat(15_000)} ${index}</p>`,
        email: `inline${index}@example.com`,
      }));
      const { turns, answer } = await countTurns(port, 'POST', `${api()}/events`, {
        authorization: h().users.editor.authorization,
        body: {
          title: 'Many organizers',
          start_date: '2027-04-01 10:00:00',
          end_date: '2027-04-01 11:00:00',
          organizer,
        },
      });
      assert.equal(answer.statusCode, 201, answer.body.slice(0, 300));
      assert.equal(answer.json().organizer.length, ORGANIZERS_PER_EVENT);
      assert.ok(turns.row >= ORGANIZERS_PER_EVENT + 1, `a turn after each row rendered: ${JSON.stringify(turns)}`);
      // Each organizer is at least written and linked: two statements, each followed by a turn on SQLite, whose
      // statements run synchronously (PostgreSQL's are awaited on the socket, the loop runs meanwhile).
      if (h().database === 'sqlite')
        assert.ok(turns.statement >= 2 * ORGANIZERS_PER_EVENT, `a turn after each statement: ${JSON.stringify(turns)}`);
    });

    it('a search with the longest allowed value over the longest descriptions', async () => {
      // 200 characters of non-ASCII words (more than 9: searched as one phrase, D31).
      const search = Array.from({ length: 60 }, (_, index) => `ä${String.fromCharCode(0x3b1 + (index % 20))}é`)
        .join(' ')
        .slice(0, 200);
      assert.equal(search.length, 200);
      for (const collection of ['events', 'organizers']) {
        const { turns, answer } = await countTurns(port, 'GET', `${api()}/${collection}`, {
          query: { search, per_page: PER_PAGE_MAX },
        });
        assert.equal(answer.statusCode, 200, answer.body.slice(0, 300));
        assert.equal(answer.json()[collection].length, 0, `${collection}: nothing matches`);
        // The search's own statement reads every long description in one go; what it costs in time is the benchmark's
        // business. Counted here: it ends with a turn (SQLite), and the answer takes none.
        if (h().database === 'sqlite')
          assert.ok(
            turns.statement >= 1,
            `${collection}: a turn after the search's statements: ${JSON.stringify(turns)}`,
          );
      }
    });
  },
  // The rows are rendered live (no stored documents, D34): the worst case of the rendering itself is under test; the
  // documents' own path is in test/documents/.
  { VALIDATE_RESPONSES: '0', STORED_DOCUMENTS: '0' },
);
