// D30: keyword search is served by an index (SQLite FTS5 trigram, PostgreSQL pg_trgm) that every write path keeps in
// step: API creates, updates, trashes and permanent deletes, the batch import and a first load; and answers exactly
// what the scan answered (case folding beyond ASCII, terms shorter than three characters, phrases, several terms).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { firstLoad, insertEventsBulk } from '../../src/core/bulk-load/bulk.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent, eventIds } from '../resources/events-support.ts';

const WIDE = { start_date: '1970-01-01', end_date: '2100-12-31' };

describeEachDatabase('search index (D30)', (h) => {
  const search = async (search: string) => {
    const response = await h().request('GET', '/events', {
      as: h().users.administrator,
      query: { ...WIDE, search, status: 'any' },
    });
    assert.equal(response.statusCode, 200, response.body);
    return eventIds(response).sort((a, b) => a - b);
  };

  it('follows creates, updates, trash and permanent deletes made through the API', async () => {
    const { editor } = h().users;
    const event = await createEvent(
      h(),
      { title: 'Zebrafinch Gala', description: 'with a xylophonist', excerpt: 'quetzal', status: 'publish' },
      editor,
    );
    assert.deepEqual(await search('zebrafinch'), [event.id]);
    assert.deepEqual(await search('XYLOPHONIST'), [event.id]);
    assert.deepEqual(await search('quetzal gala'), [event.id]);

    const renamed = await h().request('PATCH', `/events/${event.id}`, {
      as: editor,
      body: { title: 'Kingfisher Gala', description: 'with a harpist', excerpt: 'toucan' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(await search('zebrafinch'), []);
    assert.deepEqual(await search('xylophonist'), []);
    assert.deepEqual(await search('quetzal'), []);
    assert.deepEqual(await search('kingfisher'), [event.id]);
    assert.deepEqual(await search('harpist toucan'), [event.id]);

    assert.equal((await h().request('DELETE', `/events/${event.id}`, { as: editor })).statusCode, 200);
    assert.equal(
      (await h().request('DELETE', `/events/${event.id}`, { as: editor, query: { force: true } })).statusCode,
      200,
    );
    assert.deepEqual(await search('kingfisher'), []);
  });

  it('answers as the scan: Unicode case, short terms, phrases, several terms, LIKE characters', async () => {
    const { editor } = h().users;
    const a = await createEvent(
      h(),
      { title: 'ÉTÉ à Zürich', description: 'Straße fest, 100% fun_day', status: 'publish' },
      editor,
    );
    const b = await createEvent(h(), { title: 'Été Lyon', description: 'ab cd', status: 'publish' }, editor);
    assert.deepEqual(await search('été'), [a.id, b.id]);
    assert.deepEqual(await search('ZÜRICH'), [a.id]);
    assert.deepEqual(await search('straße'), [a.id]);
    assert.deepEqual(await search('100%'), [a.id]);
    assert.deepEqual(await search('fun_day'), [a.id]);
    assert.deepEqual(await search('un_da'), [a.id]);
    assert.deepEqual(await search('unxda'), [], '_ is no wildcard');
    assert.deepEqual(await search('ab'), [b.id], 'a term of two characters');
    assert.deepEqual(await search('é'), [a.id, b.id], 'a term of one character');
    assert.deepEqual(await search('"ab cd"'), [b.id], 'a phrase');
    assert.deepEqual(await search('"cd ab"'), []);
    assert.deepEqual(await search('lyon été'), [b.id]);
    assert.deepEqual(await search('lyon zürich'), []);
    assert.deepEqual(await search('"à zü'), [a.id], 'an unterminated phrase');
  });

  it('finds events whose text is too long to index (D31 bounds the indexing work of one write)', async () => {
    const { editor } = h().users;
    const long = await createEvent(
      h(),
      { title: 'Long read', description: `${'lorem ipsum '.repeat(6_000)} narwhalword`, status: 'publish' },
      editor,
    );
    const short = await createEvent(h(), { title: 'Short narwhalword', status: 'publish' }, editor);
    assert.deepEqual(await search('narwhalword'), [long.id, short.id]);
    assert.deepEqual(await search('narwhalword long'), [long.id]);
    const shortened = await h().request('PATCH', `/events/${long.id}`, {
      as: editor,
      body: { description: 'now brief, belugaword' },
    });
    assert.equal(shortened.statusCode, 200, shortened.body);
    assert.deepEqual(await search('narwhalword'), [short.id]);
    assert.deepEqual(await search('belugaword'), [long.id]);
    const lengthened = await h().request('PATCH', `/events/${short.id}`, {
      as: editor,
      body: { description: `${'dolor sit '.repeat(7_000)} belugaword` },
    });
    assert.equal(lengthened.statusCode, 200, lengthened.body);
    assert.deepEqual(await search('belugaword'), [long.id, short.id]);
    assert.deepEqual(await search('narwhalword'), [short.id], 'the title of a long event');
  });

  it('follows the batch import, live and as a first load', async () => {
    const stamp = { utc: '2026-12-01 00:00:00', local: '2026-12-01 00:00:00' };
    const input = (title: string, content = `${title} content`) => ({
      title,
      content,
      excerpt: '',
      authorId: h().users.editor.id,
      published: stamp,
      timezone: 'UTC',
      start: '2027-05-01 09:00:00',
      end: '2027-05-01 10:00:00',
    });
    const live = await insertEventsBulk(h().store, [input('Pangolin one'), input('Pangolin two')], stamp);
    assert.deepEqual(
      await search('pangolin'),
      [...live].sort((x, y) => x - y),
    );
    const loaded = await firstLoad(h().store, () =>
      insertEventsBulk(
        h().store,
        [input('Axolotl one'), input('Long axolotl', `${'x y '.repeat(40_000)} okapiword`), input('Axolotl two')],
        stamp,
      ),
    );
    assert.deepEqual(
      await search('axolotl'),
      [...loaded].sort((x, y) => x - y),
    );
    assert.deepEqual(await search('okapiword'), [loaded[1]]);
    assert.deepEqual(await search('pangolin two'), [live[1]]);
    const created = await createEvent(h(), { title: 'Axolotl three', status: 'publish' });
    assert.deepEqual(
      await search('axolotl'),
      [...loaded, created.id].sort((x, y) => x - y),
      'the trigger is back after a first load',
    );
  });
});
