import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { listAppPasswords, revokeAppPassword } from '../../src/core/users/store.ts';
import { leavesTermsAlone } from '../../src/core/events/service.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { everyStatementDuring, versionReadsDuring } from '../helpers/queries.ts';

/**
 * The caches keyed by the data version that outlive this process's own event writes (Store.onOwnCommit): the
 * remembered credentials (an event write writes none) and the term snapshot (a new title moves no term, count or
 * scheduled post). Across a commit of another process they do not.
 */
describeEachDatabase('caches across this process’s own event writes', (harness) => {
  let category: number;
  let event: number;

  before(async () => {
    const { request, users } = harness();
    const as = users.administrator;
    category = (await request('POST', '/categories', { as, body: { name: 'Kept' } })).json().id;
    const created = await request('POST', '/events', {
      as,
      body: {
        title: 'Kept terms',
        start_date: '2028-02-02 20:00:00',
        end_date: '2028-02-02 22:00:00',
        categories: [category],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    event = created.json().id;
  });

  const rename = async (title: string) => {
    const { request, users } = harness();
    const response = await request('PATCH', `/events/${event}`, { as: users.administrator, body: { title } });
    assert.equal(response.statusCode, 200, response.body);
  };
  const readsCredentials = (statements: readonly string[]) =>
    statements.some((text) => /from "(app_passwords|auth_failures)"/.test(text));
  const readsTermCounts = (statements: readonly string[]) =>
    statements.some((text) => text.includes('published_count + coalesce'));
  const categoryCount = async () => {
    const body = (await harness().request('GET', `/events/${event}`)).json();
    return body.categories.find((term: { id: number }) => term.id === category).count as number;
  };

  it('says which updates leave the terms alone', () => {
    assert.equal(leavesTermsAlone({ title: 'x', description: 'y', featured: true }), true);
    for (const field of ['categories', 'status', 'venue', 'organizer', 'image', 'start_date', 'recurrence'])
      assert.equal(leavesTermsAlone({ title: 'x', [field]: 1 }), false, field);
  });

  it('an authenticated writer reads its credentials once, not again after each of its writes', async () => {
    const { request, users, store } = harness();
    await rename('Kept terms, 1');
    await rename('Kept terms, 2');
    const statements = await everyStatementDuring(store, async () => {
      await rename('Kept terms, 3');
      const read = await request('GET', `/events/${event}`, { as: users.administrator });
      assert.equal(read.statusCode, 200);
    });
    assert.equal(readsCredentials(statements), false, statements.join('\n'));
  });

  it('a password revoked by another process is refused, however many writes of this process follow', async () => {
    const { request, createUser, openAnotherStore, users } = harness();
    const editor = await createUser('kept-editor', 'editor');
    const asEditor = () => request('GET', '/venues', { as: editor });
    assert.equal((await asEditor()).statusCode, 200);
    assert.equal((await asEditor()).statusCode, 200, 'remembered, confirmed');
    const another = await openAnotherStore();
    try {
      const [password] = await listAppPasswords(another.db, editor.id);
      await another.transaction((trx) => revokeAppPassword(trx, password.id));
    } finally {
      await another.close();
    }
    // Writes of this process that leave the credentials alone come after the revocation.
    await rename('Kept terms, after a revocation');
    const refused = await request('PATCH', `/events/${event}`, { as: editor, body: { title: 'Not by a revoked one' } });
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal((await asEditor()).statusCode, 401);
    assert.equal((await request('GET', '/venues', { as: users.administrator })).statusCode, 200);
  });

  it('keeps the term snapshot across a new title, and reads it again after another process moved a count', async () => {
    const { store, openAnotherStore } = harness();
    const counted = await categoryCount();
    const renamed = await everyStatementDuring(store, async () => {
      await rename('Kept terms, renamed');
      assert.equal(await categoryCount(), counted);
    });
    assert.equal(readsTermCounts(renamed), false, renamed.join('\n'));

    // Another process moves the category's count (as its own event write would); this process's next write leaves
    // the terms alone, yet the snapshot it kept is older than that commit.
    const another = await openAnotherStore();
    try {
      await another.transaction((trx) =>
        trx
          .updateTable('terms')
          .set((eb) => ({ published_count: eb('published_count', '+', 1) }))
          .where('id', '=', category)
          .execute(),
      );
    } finally {
      await another.close();
    }
    await rename('Kept terms, renamed again');
    assert.equal(await categoryCount(), counted + 1);
  });

  it('reads the term counts again after a write that moves them', async () => {
    const { request, users } = harness();
    const counted = await categoryCount();
    const response = await request('PATCH', `/events/${event}`, {
      as: users.administrator,
      body: { status: 'draft' },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().categories[0].count, counted - 1);
    const back = await request('PATCH', `/events/${event}`, { as: users.administrator, body: { status: 'publish' } });
    assert.equal(back.json().categories[0].count, counted);
  });

  it('moves the kept counts by a create’s own, reading none, and reads them again after a scheduled create', async () => {
    const { request, users, store } = harness();
    const as = users.administrator;
    const create = (body: Record<string, unknown>) =>
      everyStatementDuring(store, async () => {
        const response = await request('POST', '/events', {
          as,
          body: { start_date: '2028-03-03 20:00:00', end_date: '2028-03-03 22:00:00', categories: [category], ...body },
        });
        assert.equal(response.statusCode, 201, response.body);
      });
    const counted = await categoryCount();
    const published = await create({ title: 'Kept terms, another' });
    assert.equal(readsTermCounts(published), false, published.join('\n'));
    assert.equal(await categoryCount(), counted + 1, 'the other event embeds the new count');
    assert.equal(await categoryCount(), counted + 1);

    // A scheduled event moves the next due date the counts hold until: they are read again.
    const scheduled = await create({ title: 'Kept terms, scheduled', status: 'future', date: '2027-01-01 10:00:00' });
    assert.equal(readsTermCounts(scheduled), true, scheduled.join('\n'));
    assert.equal(await categoryCount(), counted + 1);
  });

  it('answers a write at the data version its documents’ statement read, with no read of its own', async () => {
    const { request, users, store } = harness();
    const as = users.administrator;
    await rename('Kept terms, before the count');
    const counted = await categoryCount();
    let answered: { categories: Array<{ id: number; count: number }> } | undefined;
    const reads = await versionReadsDuring(store, async () => {
      const response = await request('POST', '/events', {
        as,
        body: {
          title: 'Kept terms, answered',
          start_date: '2028-04-04 20:00:00',
          end_date: '2028-04-04 22:00:00',
          categories: [category],
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      answered = response.json();
    });
    assert.equal(reads, 1, 'the authentication’s alone');
    assert.equal(answered?.categories.find((term) => term.id === category)?.count, counted + 1);
  });
});
