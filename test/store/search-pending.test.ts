// D30 on SQLite: a write lists its event as pending instead of indexing its text itself, and the write that brings the
// list to PENDING_SEARCH_ROWS indexes them all in one segment. Searches take the pending events as candidates, so what
// they answer never depends on where the list stands: checked here against the text each event has, over random
// creates, renames and deletes that cross the threshold several times.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PENDING_SEARCH_ROWS } from '../../src/store/sqlite/search.ts';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { createEvent, eventIds } from '../resources/events-support.ts';

const WIDE = { start_date: '1970-01-01', end_date: '2100-12-31' };
const WORDS = ['heron', 'osprey', 'plover', 'avocet', 'dunlin', 'curlew'];

describe('search index, pending events (SQLite)', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness('sqlite');
  });
  after(async () => {
    await h.close();
  });

  const count = async (query: string) => Number((await sql.raw<{ n: number }>(query).execute(h.store.db)).rows[0].n);
  const pending = () => count('select count(*) as n from posts_search_pending');
  const segmentRows = () => count('select count(*) as n from posts_search_data');
  const indexed = (word: string) =>
    count(`select count(*) as n from posts_search where posts_search match '"${word}"'`);
  const search = async (search: string) => {
    const response = await h.request('GET', '/events', {
      as: h.users.administrator,
      query: { ...WIDE, search, status: 'any', per_page: 100 },
    });
    assert.equal(response.statusCode, 200, response.body);
    return eventIds(response).sort((a, b) => a - b);
  };

  it('writes no index segment until the list is full, then indexes the whole list at once', async () => {
    const before = await segmentRows();
    const first = await createEvent(h, { title: 'Kittiwake first', status: 'publish' });
    assert.equal(await pending(), 1);
    assert.equal(await segmentRows(), before, 'a create wrote to the index');
    assert.equal(await indexed('kittiwake'), 0);
    assert.deepEqual(await search('kittiwake'), [first.id], 'a pending event is found');
    const created = [first.id];
    for (let n = 2; n <= PENDING_SEARCH_ROWS; n++)
      created.push((await createEvent(h, { title: `Kittiwake ${n}`, status: 'publish' })).id);
    assert.equal(await pending(), 0, 'the list was indexed when it was full');
    assert.ok((await segmentRows()) > before);
    assert.equal(await indexed('kittiwake'), PENDING_SEARCH_ROWS);
    assert.deepEqual(await search('kittiwake'), created);
  });

  it('answers from the text each event has now, wherever the pending list stands', async () => {
    let seed = 24;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const titles = new Map<number, string>();
    const title = () => `${WORDS[random(WORDS.length)]} and ${WORDS[random(WORDS.length)]}`;
    for (let step = 0; step < 3 * PENDING_SEARCH_ROWS; step++) {
      const ids = [...titles.keys()];
      const roll = random(10);
      if (ids.length < 5 || roll < 5) {
        const text = title();
        titles.set((await createEvent(h, { title: text, status: 'publish' })).id, text);
      } else if (roll < 9) {
        const id = ids[random(ids.length)];
        const text = title();
        const response = await h.request('PATCH', `/events/${id}`, { as: h.users.editor, body: { title: text } });
        assert.equal(response.statusCode, 200, response.body);
        titles.set(id, text);
      } else {
        const id = ids[random(ids.length)];
        const response = await h.request('DELETE', `/events/${id}`, { as: h.users.editor, query: { force: true } });
        assert.equal(response.statusCode, 200, response.body);
        titles.delete(id);
      }
      if (step % 16 === 15) {
        assert.ok((await pending()) < PENDING_SEARCH_ROWS);
        for (const word of WORDS) {
          const expected = [...titles].filter(([, text]) => text.includes(word)).map(([id]) => id);
          assert.deepEqual(
            await search(word),
            expected.sort((a, b) => a - b),
            `"${word}" after step ${step}`,
          );
        }
      }
    }
  });
});
