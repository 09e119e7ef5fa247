// D25 `collapse_series=true`: every page and total of a collapsed list equals the plain list (every page of it) with
// each series reduced to its first occurrence (by start, then id), over random series, edits of single occurrences
// (moved, unpublished, hidden), single events, callers and windows, on both databases. A list no index narrows is
// answered per series (core/events/series-collapse.ts); a list of one category by ranking, or per series walking the
// list in order where the category holds most of the window: every form is compared, and checked to be the one
// answering.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { statementsWithParameters, queryPlan, statementsDuring } from '../helpers/queries.ts';

const SEED = Number(process.env.COLLAPSE_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Listed {
  id: number;
  series_id: number | null;
  start_date: string;
}

/** `events` (a plain list, in list order) with each series kept at its first occurrence by start, then id. */
function collapsedReference(events: readonly Listed[]): number[] {
  const firsts = new Map<number, Listed>();
  for (const event of events) {
    if (event.series_id === null) continue;
    const first = firsts.get(event.series_id);
    if (
      first === undefined ||
      event.start_date < first.start_date ||
      (event.start_date === first.start_date && event.id < first.id)
    )
      firsts.set(event.series_id, event);
  }
  return events
    .filter((event) => event.series_id === null || firsts.get(event.series_id)?.id === event.id)
    .map((event) => event.id);
}

/** Every page of `query` as `as` lists it: its events in order, the totals the pages gave, the SQL they ran. */
async function everyPage(h: Harness, as: Credentials | undefined, query: Record<string, string | number>) {
  const events: Listed[] = [];
  const totals = new Set<number>();
  const statements: string[] = [];
  for (let page = 1; page <= 200; page++) {
    let response!: Awaited<ReturnType<Harness['request']>>;
    statements.push(
      ...(await statementsDuring(h.store, async () => {
        response = await h.request('GET', '/events', { as, query: { ...query, page } });
      })),
    );
    assert.equal(response.statusCode, 200, `${JSON.stringify(query)} page ${page}: ${response.body}`);
    events.push(...(response.json().events as Listed[]));
    totals.add(Number(response.headers['x-wp-total']));
    if (page >= Number(response.headers['x-wp-totalpages'])) break;
  }
  return { events, totals, statements };
}

describeEachDatabase('lists that collapse series (D25)', (h) => {
  it(`equal the plain list with each series at its first occurrence (seed ${SEED}, replay: COLLAPSE_SEED=${SEED})`, async () => {
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const chance = (p: number) => random() < p;
    const { administrator: admin, author } = h().users;
    h().setNow('2030-01-01T12:00:00Z');
    const category = (await h().request('POST', '/categories', { as: admin, body: { name: 'Series' } })).json().id;

    const day = (offset: number) => new Date(Date.UTC(2029, 11, 20) + offset * 86_400_000).toISOString().slice(0, 10);
    const hour = () => String(8 + Math.floor(random() * 10)).padStart(2, '0');
    const create = async (as: Credentials, body: Record<string, unknown>) => {
      const response = await h().request('POST', '/events', { as, body });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    };
    const edit = async (id: number, body: Record<string, unknown>) => {
      const response = await h().request('PATCH', `/events/${id}`, { as: admin, body });
      assert.equal(response.statusCode, 200, response.body);
    };

    for (let index = 0; index < 12; index++) {
      const first = day(Math.floor(random() * 60));
      const at = hour();
      await create(chance(0.3) ? author : admin, {
        title: `Single ${index}`,
        status: pick(['publish', 'publish', 'publish', 'draft']),
        start_date: `${first} ${at}:00:00`,
        end_date: `${first} ${at}:30:00`,
        hide_from_listings: chance(0.15),
        ...(chance(0.4) ? { categories: [category] } : {}),
      });
    }
    for (let index = 0; index < 6; index++) {
      const first = day(Math.floor(random() * 30));
      const at = hour();
      const series = await create(index === 5 ? author : admin, {
        title: `Series ${index}`,
        status: index === 5 ? 'draft' : 'publish',
        start_date: `${first} ${at}:00:00`,
        end_date: `${first} ${at}:45:00`,
        recurrence: [`RRULE:FREQ=${pick(['DAILY', 'WEEKLY'])};COUNT=${4 + Math.floor(random() * 9)}`],
        ...(chance(0.5) ? { categories: [category] } : {}),
      });
      const occurrences = (
        await h().request('GET', '/events', {
          as: admin,
          query: { start_date: '2029-01-01', end_date: '2031-12-31', per_page: 100, status: 'publish,draft' },
        })
      )
        .json()
        .events.filter((event: Listed) => event.series_id === series.id) as Listed[];
      // Edits of single occurrences: moved before the others or onto another one's start (a tie broken by id),
      // unpublished, hidden from lists.
      for (const occurrence of occurrences.slice(1)) {
        if (chance(0.2)) {
          const other = pick(occurrences);
          const start = chance(0.5) ? other.start_date : `${day(Math.floor(random() * 60))} ${hour()}:15:00`;
          const end = `${start.slice(0, 11)}23:00:00`;
          await edit(occurrence.id, { start_date: start, end_date: end });
        } else if (chance(0.15)) {
          await edit(occurrence.id, { status: pick(['draft', 'private']) });
        } else if (chance(0.1)) {
          await edit(occurrence.id, { hide_from_listings: true });
        }
      }
    }

    const callers: Array<[string, Credentials | undefined]> = [
      ['anonymous', undefined],
      ['author', author],
      ['administrator', admin],
    ];
    let checkedForm = 0;
    for (let round = 0; round < 24; round++) {
      const [name, as] = pick(callers);
      const query: Record<string, string | number> = { per_page: 1 + Math.floor(random() * 6) };
      if (chance(0.8)) {
        const from = Math.floor(random() * 70) - 5;
        query.start_date = day(from);
        query.end_date = day(from + Math.floor(random() * 60));
      }
      if (as === admin && chance(0.5)) query.status = 'publish,draft,private';
      const filtered = chance(0.3);
      if (filtered) query.categories = category;

      const plain = await everyPage(h(), as, { ...query, per_page: 100 });
      const collapsed = await everyPage(h(), as, { ...query, collapse_series: 'true' });
      const expected = collapsedReference(plain.events);
      const label = `${name} ${JSON.stringify(query)}`;
      assert.deepEqual(
        collapsed.events.map((event) => event.id),
        expected,
        label,
      );
      assert.deepEqual([...collapsed.totals], [expected.length], `${label}: total`);
      if (as === undefined) {
        const form = collapsed.statements.some((text) => text.includes('series_ids'))
          ? 'per-series'
          : collapsed.statements.some((text) => text.includes('row_number()'))
            ? 'ranked'
            : 'none';
        if (filtered) assert.notEqual(form, 'none', label);
        else assert.equal(form, 'per-series', label);
        checkedForm++;
      }
    }
    assert.ok(checkedForm > 0, 'some anonymous lists were checked for their form');
  });

  it('probes each series of a category that holds most of the window, and ranks a rare one', async () => {
    h().setNow('2030-01-01T12:00:00Z');
    const admin = h().users.administrator;
    const term = async (name: string) =>
      (await h().request('POST', '/categories', { as: admin, body: { name } })).json().id as number;
    const [popular, rare] = [await term('Most of 2032'), await term('Rare in 2032')];
    const create = async (body: Record<string, unknown>) => {
      const response = await h().request('POST', '/events', { as: admin, body: { status: 'publish', ...body } });
      assert.equal(response.statusCode, 201, response.body);
    };
    await create({
      title: 'Daily in 2032',
      start_date: '2032-03-01 09:00:00',
      end_date: '2032-03-01 10:00:00',
      recurrence: ['RRULE:FREQ=DAILY;COUNT=20'],
      categories: [popular],
    });
    for (const [day, categories] of [
      ['2032-03-05', [popular]],
      ['2032-03-06', [rare]],
      ['2032-03-07', [popular]],
    ] as const)
      await create({ title: `Single ${day}`, start_date: `${day} 12:00:00`, end_date: `${day} 13:00:00`, categories });
    const window = { start_date: '2032-02-01', end_date: '2032-04-30', collapse_series: 'true' };
    for (const [category, expected, form] of [
      [popular, 3, /"series_ids"[\s\S]*exists \(select "event_terms"/],
      [rare, 1, /row_number\(\)/],
    ] as const) {
      const listed = await everyPage(h(), undefined, { ...window, categories: category, per_page: 2 });
      assert.equal(listed.events.length, expected);
      assert.deepEqual([...listed.totals], [expected]);
      assert.ok(
        listed.statements.some((text) => form.test(text)),
        listed.statements.join('\n'),
      );
    }
  });

  it('finds the firsts and the single events by their indexes, without ranking the occurrences', async () => {
    // A year no other test of the suite writes in.
    h().setNow('2030-01-01T12:00:00Z');
    const admin = h().users.administrator;
    const response = await h().request('POST', '/events', {
      as: admin,
      body: {
        title: 'Daily',
        status: 'publish',
        start_date: '2031-06-02 09:00:00',
        end_date: '2031-06-02 10:00:00',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=30'],
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    let answer!: Awaited<ReturnType<Harness['request']>>;
    const queries = await statementsWithParameters(h().store, async () => {
      answer = await h().request('GET', '/events', {
        query: { start_date: '2031-06-01', end_date: '2031-08-01', collapse_series: 'true' },
      });
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.json().total, 1);
    const collapsed = queries.filter((query) => query.sql.includes('series_ids'));
    assert.equal(collapsed.length, 1, 'the page carries its total: the series are probed once');
    for (const query of collapsed) {
      assert.doesNotMatch(query.sql, /row_number|count\(distinct/);
      const plan = await queryPlan(h(), query);
      assert.match(plan, /occurrences_series/, plan);
      assert.match(plan, /occurrences_singles/, plan);
    }
  });
});
