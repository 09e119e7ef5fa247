// D33: a search matches a password-protected event's excerpt and content only for callers who may see them (its
// password, or edit rights), its title for everyone; `?post=` on categories and tags needs the event's password unless
// the caller may edit it. D31's search rule: more than 9 terms are one phrase, the value at most 200 characters.
// Issue 17 items 2 and 10.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { createEvent, eventIds } from './events-support.ts';
import { assertInvalidParams, createLinked } from './support.ts';

const WIDE = { start_date: '1970-01-01', end_date: '2100-12-31' };

describeEachDatabase('protected content stays protected in searches and term lists (D33, D31)', (h) => {
  const search = async (search: string, as: Credentials | null = null, extra: Record<string, string> = {}) => {
    const response = await h().request('GET', '/events', { as, query: { ...WIDE, search, ...extra } });
    assert.equal(response.statusCode, 200, response.body);
    return eventIds(response);
  };

  it("matches a protected event's excerpt and content only with its password or edit rights; its title always", async () => {
    const { editor, author, contributor, subscriber } = h().users;
    const open = await createEvent(
      h(),
      { title: 'Open orchard', description: 'quokkaword in the open', status: 'publish' },
      editor,
    );
    const locked = await createEvent(
      h(),
      {
        title: 'Locked orchard',
        description: 'quokkaword wombatword in the vault',
        excerpt: 'numbatword',
        status: 'publish',
        password: 'sesame',
      },
      editor,
    );
    const authored = await createEvent(
      h(),
      { title: 'Authored vault', description: 'platypusword', status: 'publish', password: 'other' },
      author,
    );

    for (const as of [null, subscriber, contributor]) {
      const who = as?.login ?? 'anonymous';
      assert.deepEqual(await search('wombatword', as), [], `${who}: content`);
      assert.deepEqual(await search('numbatword', as), [], `${who}: excerpt`);
      assert.deepEqual(await search('quokkaword', as), [open.id], `${who}: only the open event`);
      assert.deepEqual(await search('locked orchard', as), [locked.id], `${who}: the title is searched`);
      assert.deepEqual(await search('locked wombatword', as), [], `${who}: every term must match what may be searched`);
      assert.deepEqual(await search('platypusword', as), [], `${who}: another author's protected event`);
    }
    // The password unlocks the content of the events it opens (as it unlocks their fields in the list, §11).
    assert.deepEqual(await search('wombatword', null, { password: 'sesame' }), [locked.id]);
    assert.deepEqual(await search('numbatword', null, { password: 'sesame' }), [locked.id]);
    assert.deepEqual(await search('wombatword', null, { password: 'wrong' }), []);
    assert.deepEqual(await search('platypusword', null, { password: 'sesame' }), []);
    // Those who may edit the event search its content (they could read it with context=edit).
    assert.deepEqual(await search('wombatword', editor), [locked.id]);
    assert.deepEqual(await search('platypusword', author), [authored.id]);
    assert.deepEqual(await search('wombatword', author), []);
  });

  it('lists the terms of a protected event (?post=, ?event=) only with its password or to those who may edit it', async () => {
    const { editor, author } = h().users;
    const category = await h().request('POST', '/categories', { as: editor, body: { name: 'Vault category' } });
    const tag = await h().request('POST', '/tags', { as: editor, body: { name: 'Vault tag' } });
    const locked = await createEvent(
      h(),
      {
        title: 'Terms behind a password',
        status: 'publish',
        password: 'sesame',
        categories: [category.json().id],
        tags: [tag.json().id],
      },
      editor,
    );
    for (const [collection, term] of [
      ['categories', category.json()],
      ['tags', tag.json()],
    ] as const) {
      for (const key of ['post', 'event']) {
        const list = (as: Credentials | null, query: Record<string, string> = {}) =>
          h().request('GET', `/${collection}`, { as, query: { [key]: String(locked.id), ...query } });
        for (const [as, query] of [
          [null, {}],
          [null, { password: 'wrong' }],
          [author, {}],
        ] as const) {
          const refused = await list(as, query);
          assert.deepEqual(
            [refused.statusCode, refused.json().code],
            [403, 'event-password-protected'],
            `${collection}?${key}: ${refused.body}`,
          );
        }
        for (const [as, query] of [
          [null, { password: 'sesame' }],
          [author, { password: 'sesame' }],
          [editor, {}],
        ] as const) {
          const allowed = await list(as, query);
          assert.equal(allowed.statusCode, 200, allowed.body);
          assert.deepEqual(
            allowed.json()[collection].map((item: { id: number }) => item.id),
            [term.id],
          );
        }
      }
    }
    // An unprotected event's terms stay public.
    const open = await createEvent(
      h(),
      { title: 'Open terms', status: 'publish', categories: [category.json().id] },
      editor,
    );
    assert.equal((await h().request('GET', '/categories', { query: { post: String(open.id) } })).statusCode, 200);
  });

  it('searches more than 9 terms as one phrase, as WordPress does (events, venues and organizers)', async () => {
    const words = [
      'alphaq',
      'bravoq',
      'charlieq',
      'deltaq',
      'echoq',
      'foxtrotq',
      'golfq',
      'hotelq',
      'indiaq',
      'julietq',
    ];
    const event = await createEvent(h(), { title: `Phrase ${words.join(' ')}`, status: 'publish' });
    const reversed = [...words].reverse();
    assert.deepEqual(await search(reversed.slice(1).join(' ')), [event.id], '9 terms: each anywhere');
    assert.deepEqual(await search(reversed.join(' ')), [], '10 terms: one phrase, not in the title');
    assert.deepEqual(await search(words.join(' ')), [event.id], '10 terms in order: the phrase is in the title');
    assert.deepEqual(await search(words.join(',')), [], '10 terms split on commas: the phrase keeps its commas');

    for (const [collection, nameKey] of [
      ['venues', 'venue'],
      ['organizers', 'organizer'],
    ] as const) {
      const item = await createLinked(h(), collection, { [nameKey]: `Phrase ${words.join(' ')}`, status: 'publish' });
      const find = async (value: string) =>
        ((await h().request('GET', `/${collection}`, { query: { search: value } })).json()[collection] ?? []).map(
          (found: { id: number }) => found.id,
        );
      assert.deepEqual(await find(reversed.slice(1).join(' ')), [item.id], `${collection}: 9 words`);
      assert.deepEqual(await find(reversed.join(' ')), [], `${collection}: 10 words are a phrase`);
      assert.deepEqual(await find(words.join(' ')), [item.id], `${collection}: the phrase in order`);
    }
  });

  it('refuses a search value over 200 characters (400 rest_invalid_param)', async () => {
    const long = 'é'.repeat(201);
    for (const collection of ['events', 'venues', 'organizers', 'categories', 'tags']) {
      const refused = await h().request('GET', `/${collection}`, { query: { search: long } });
      assertInvalidParams(refused, ['search']);
      const fits = await h().request('GET', `/${collection}`, { query: { search: long.slice(1) } });
      assert.equal(fits.statusCode, 200, `${collection}: ${fits.body}`);
    }
    const terms = Array.from({ length: 100 }, () => 'é').join(' ');
    assert.equal(terms.length, 199);
    assert.deepEqual(await search(terms), [], '100 one-letter terms are one phrase');
  });
});
