import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';

describeEachDatabase('anonymous read cache', (h) => {
  const city = async (id: number) => (await h().request('GET', `/venues/${id}`)).json().city;

  it('answers a repeated read the same way, and a write through the API is seen at once', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const venue = (
      await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Cached Hall', city: 'Rome' } })
    ).json();
    assert.equal(await city(venue.id), 'Rome');
    assert.equal(await city(venue.id), 'Rome');
    await h().request('PATCH', `/venues/${venue.id}`, { as: h().users.editor, body: { city: 'Turin' } });
    assert.equal(await city(venue.id), 'Turin');
    h().setNow(null);
  });

  it('sees a write committed by another process on the same database at once', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const venue = (
      await h().request('POST', '/venues', { as: h().users.editor, body: { venue: 'Shared Hall', city: 'Oslo' } })
    ).json();
    assert.equal(await city(venue.id), 'Oslo');
    const other = await h().openAnotherStore();
    try {
      await other.transaction((trx) =>
        trx.updateTable('venues').set({ city: 'Bergen' }).where('id', '=', venue.id).execute(),
      );
    } finally {
      await other.close();
    }
    assert.equal(await city(venue.id), 'Bergen');
    h().setNow(null);
  });

  it('lets time-dependent answers move with the clock (a scheduled venue goes live, D17)', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const scheduled = (
      await h().request('POST', '/venues', {
        as: h().users.editor,
        body: { venue: 'Later Hall', status: 'future', date_utc: '2027-01-01 10:00:01' },
      })
    ).json();
    const listed = async () => (await h().request('GET', '/venues', { query: { search: 'Later Hall' } })).json().total;
    assert.equal(scheduled.status, 'future');
    assert.equal(await listed(), 0);
    h().setNow('2027-01-01T10:00:02Z');
    assert.equal(await listed(), 1);
    h().setNow(null);
  });

  it('never serves an authenticated caller from the cache', async () => {
    const draft = (
      await h().request('POST', '/venues', {
        as: h().users.editor,
        body: { venue: 'Draft Cache Hall', status: 'draft' },
      })
    ).json();
    assert.equal((await h().request('GET', `/venues/${draft.id}`)).statusCode, 403);
    assert.equal((await h().request('GET', `/venues/${draft.id}`, { as: h().users.editor })).statusCode, 200);
    assert.equal((await h().request('GET', `/venues/${draft.id}`)).statusCode, 403);
  });
});
