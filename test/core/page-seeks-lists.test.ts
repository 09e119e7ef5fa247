// Deep pages by keyset (core/events/page-seeks.ts): every page read from where an earlier page of the same list ended
// holds exactly the events the plain page (OFFSET) holds, across ties in the sort order, series collapsed, callers,
// a write between two pages, and a scheduled event coming due between two pages. The process's page ends are made
// to cover every page after the first, so that a list of a few dozen events exercises them.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { PageSeeks } from '../../src/core/events/page-seeks.ts';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { statementsDuring } from '../helpers/queries.ts';

/** The seek's condition as the page query writes it (a row comparison on the list index's leading columns). */
const SEEKS = /\("occurrences"\."start_local", "occurrences"\."published_utc", "occurrences"\."event_id"\) >/;

describeEachDatabase('deep pages read by position', (h) => {
  beforeEach(() => {
    h().app.caches.pageSeeks = new PageSeeks(0);
    h().setNow('2030-01-01T12:00:00Z');
  });

  /** Every event of the list, in order, from one page of 100 (read from the start: no position involved). */
  async function wholeList(query: Record<string, string>, as?: Credentials): Promise<number[]> {
    const answer = await h().request('GET', '/events', { as, query: { ...query, per_page: '100' } });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json().events.map((event: { id: number }) => event.id);
  }

  /** Reads `pages` in that order, each compared with the whole list's slice; how many were read by position. */
  async function readPages(query: Record<string, string>, pages: number[], as?: Credentials): Promise<number> {
    const all = await wholeList(query, as);
    const perPage = Number(query.per_page);
    let seeks = 0;
    for (const page of pages) {
      let answer!: Awaited<ReturnType<ReturnType<typeof h>['request']>>;
      const statements = await statementsDuring(h().store, async () => {
        answer = await h().request('GET', '/events', { as, query: { ...query, page: String(page) } });
      });
      if (statements.some((text) => SEEKS.test(text))) seeks++;
      const expected = all.slice((page - 1) * perPage, page * perPage);
      const label = `${JSON.stringify(query)} page ${page} as ${as?.login ?? 'anonymous'}`;
      if (expected.length === 0) {
        assert.equal(answer.statusCode, 404, label);
        continue;
      }
      assert.equal(answer.statusCode, 200, `${label}: ${answer.body}`);
      assert.deepEqual(
        answer.json().events.map((event: { id: number }) => event.id),
        expected,
        label,
      );
      assert.equal(Number(answer.headers['x-wp-total']), all.length, label);
    }
    return seeks;
  }

  async function createEvents(admin: Credentials, category: number) {
    // Ties: three start times shared by many events, publication times shared too, so the id decides the order.
    for (let index = 0; index < 36; index++) {
      const start = `2030-01-${String(2 + (index % 3)).padStart(2, '0')} 10:00:00`;
      const created = await h().request('POST', '/events', {
        as: admin,
        body: {
          title: `Deep ${index}`,
          start_date: start,
          end_date: start.replace('10:00', '11:00'),
          status: index % 9 === 4 ? 'draft' : 'publish',
          // Scheduled: listed once the clock passes 18:00 on the first.
          ...(index % 7 === 3 ? { date: '2030-01-01 18:00:00' } : {}),
          // The others carry a tag: a list of the category must tell one term from another.
          ...(index % 2 === 0 ? { categories: [category] } : { tags: ['odd'] }),
          ...(index === 5 ? { recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] } : {}),
        },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
  }

  it('reads every page as the plain page would, in order and by jumps, for every kind of list', async () => {
    const admin = h().users.administrator;
    const category = (await h().request('POST', '/categories', { as: admin, body: { name: 'Deep' } })).json().id;
    await createEvents(admin, category);
    const lists: Array<[Record<string, string>, Credentials | undefined]> = [
      [{ per_page: '4', start_date: '2030-01-01' }, undefined],
      [{ per_page: '3', start_date: '2030-01-01', categories: String(category) }, undefined],
      [{ per_page: '5', start_date: '2030-01-01', collapse_series: 'true' }, undefined],
      [{ per_page: '4', start_date: '2030-01-01', status: 'publish,draft' }, admin],
    ];
    let seeks = 0;
    for (const [query, as] of lists) {
      seeks += await readPages(query, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], as);
      seeks += await readPages(query, [9, 3, 7, 2, 12, 4], as);
    }
    assert.ok(seeks >= 40, `${seeks} pages were read by position`);

    // A category on about half the window: its first pages are found walking the list (domain/term-list-plan.ts),
    // compared above with the whole list, which is found from the category's events.
    const walked = await statementsDuring(h().store, async () => {
      await h().request('GET', '/events', {
        query: { per_page: '3', start_date: '2030-01-01', categories: String(category) },
      });
    });
    assert.ok(
      walked.some((text) => /exists \(select "event_terms"/.test(text)),
      walked.join('\n'),
    );
  });

  it('never reads a page from a position a write or a publication time has moved', async () => {
    const admin = h().users.administrator;
    const category = (await h().request('POST', '/categories', { as: admin, body: { name: 'Deeper' } })).json().id;
    await createEvents(admin, category);
    const query = { per_page: '4', start_date: '2030-01-01' };
    assert.ok((await readPages(query, [1, 2, 3, 4, 5])) >= 3);

    // An event sorted before page 5's rows: every later page moves by one.
    const early = await h().request('POST', '/events', {
      as: admin,
      body: { title: 'Early', start_date: '2030-01-02 09:00:00', end_date: '2030-01-02 09:30:00', status: 'publish' },
    });
    assert.equal(early.statusCode, 201);
    await readPages(query, [6, 7, 8]);

    // Past 18:00 the scheduled events are listed: no write, only the clock.
    await readPages(query, [5, 6]);
    h().setNow('2030-01-01T19:00:00Z');
    assert.ok((await readPages(query, [7, 8, 9, 10])) >= 2, 'positions read after the clock moved are used again');
  });
});
