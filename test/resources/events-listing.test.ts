// Event lists read copies of status, publication date, author and the hidden flag from `occurrences`: every write
// must keep them true.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';

const body = { title: 'Listed Concert', start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 11:00:00' };
const window = { start_date: '2027-03-01', end_date: '2027-03-31', search: 'Listed Concert' };

describeEachDatabase('event list follows writes', (h) => {
  it('shows and hides an event as its status, hidden flag and publication date change', async () => {
    h().setNow('2027-01-01T10:00:00Z');
    const listed = async () => (await h().request('GET', '/events', { query: window })).json().total;
    const id = (await h().request('POST', '/events', { as: h().users.editor, body })).json().id;
    const patch = (change: Record<string, unknown>) =>
      h().request('PATCH', `/events/${id}`, { as: h().users.editor, body: change });
    assert.equal(await listed(), 1);
    await patch({ hide_from_listings: true });
    assert.equal(await listed(), 0, 'hidden from listings');
    await patch({ hide_from_listings: false });
    assert.equal(await listed(), 1);
    await patch({ status: 'draft' });
    assert.equal(await listed(), 0, 'drafts are not listed to anonymous callers');
    await patch({ status: 'publish', date_utc: '2027-02-01 00:00:00' });
    assert.equal(await listed(), 0, 'scheduled for later (future)');
    h().setNow('2027-02-01T00:00:02Z');
    assert.equal(await listed(), 1, 'a scheduled event whose date has come is listed (D17)');
    await h().request('DELETE', `/events/${id}`, { as: h().users.editor });
    assert.equal(await listed(), 0, 'trashed');
    await patch({ status: 'publish' });
    assert.equal(await listed(), 1, 'restored');
    h().setNow(null);
  });

  it("shows an author's own draft in their list, and another author's draft to nobody but editors (D19)", async () => {
    const mine = (
      await h().request('POST', '/events', {
        as: h().users.author,
        body: { ...body, title: 'Own Draft Concert', status: 'draft' },
      })
    ).json();
    const query = { start_date: '2027-03-01', end_date: '2027-03-31', search: 'Own Draft Concert', status: 'any' };
    assert.equal((await h().request('GET', '/events', { as: h().users.author, query })).json().total, 1);
    assert.equal((await h().request('GET', '/events', { as: h().users.contributor, query })).json().total, 0);
    assert.equal((await h().request('GET', '/events', { as: h().users.editor, query })).json().total, 1);
    assert.equal(mine.status, 'draft');
  });
});
