// A list of one category within a window of days finds its page by walking the window in order when that reads fewer
// rows than the category's events in all would (domain/term-list-plan.ts), and from the category's events otherwise.
// Either way the page and its total are the plain list's. Core behaviour through the HTTP surface, on both databases.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';
import { statementsDuring } from '../helpers/queries.ts';

const WALKED = /exists \(select "event_terms"/;

describeEachDatabase('Lists of one category within a window', (h) => {
  it('walk a short window of a category with many events, and start from a rare category in a long one', async () => {
    const admin = h().users.administrator;
    const busy = (await h().request('POST', '/categories', { as: admin, body: { name: 'Busy' } })).json().id;
    const rare = (await h().request('POST', '/categories', { as: admin, body: { name: 'Rare' } })).json().id;
    const create = async (day: number, categories: number[]) => {
      const date = `2031-01-${String(day).padStart(2, '0')}`;
      const created = await h().request('POST', '/events', {
        as: admin,
        body: {
          title: `Day ${day}`,
          status: 'publish',
          start_date: `${date} 10:00:00`,
          end_date: `${date} 11:00:00`,
          categories,
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      return Number(created.json().id);
    };
    const busyIds: number[] = [];
    for (let day = 1; day <= 28; day++) {
      busyIds.push(await create(day, [busy]));
      await create(day, []);
      await create(day, day === 3 || day === 20 ? [rare] : []);
    }

    const read = async (query: Record<string, string>) => {
      let answer!: Awaited<ReturnType<ReturnType<typeof h>['request']>>;
      const statements = await statementsDuring(h().store, async () => {
        answer = await h().request('GET', '/events', { query });
      });
      assert.equal(answer.statusCode, 200, answer.body);
      return {
        ids: answer.json().events.map((event: any) => event.id),
        total: answer.headers['x-wp-total'],
        statements,
      };
    };
    // Two days: 2 of the busy category's 28 events among 6. Walking reads the window, not the 28.
    const short = await read({ categories: String(busy), start_date: '2031-01-10', end_date: '2031-01-11' });
    assert.deepEqual(short.ids, busyIds.slice(9, 11));
    assert.equal(short.total, '2');
    assert.ok(
      short.statements.some((text) => WALKED.test(text)),
      short.statements.join('\n'),
    );

    // The whole month: the rare category's 2 events among 84. Starting from them reads 2.
    const long = await read({ categories: String(rare), start_date: '2031-01-01', end_date: '2031-01-31' });
    assert.equal(long.total, '2');
    assert.equal(long.ids.length, 2);
    assert.ok(!long.statements.some((text) => WALKED.test(text)), long.statements.join('\n'));
  });
});
