import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase } from '../helpers/harness.ts';

const event = { title: 'Authored', start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 11:00:00' };

describeEachDatabase('event author', (h) => {
  it('lets editors name another author, and refuses it to contributors and authors (403)', async () => {
    const byEditor = await h().request('POST', '/events', {
      as: h().users.editor,
      body: { ...event, author: h().users.author.id },
    });
    assert.equal(byEditor.statusCode, 201);
    assert.equal(byEditor.json().author, String(h().users.author.id));

    for (const role of ['contributor', 'author'] as const) {
      const response = await h().request('POST', '/events', {
        as: h().users[role],
        body: { ...event, author: h().users.editor.id },
      });
      assert.equal(response.statusCode, 403, role);
      assert.equal(response.json().code, 'rest_forbidden');
    }
    const own = await h().request('POST', '/events', {
      as: h().users.author,
      body: { ...event, author: h().users.author.id },
    });
    assert.equal(own.statusCode, 201);
    const moved = await h().request('PATCH', `/events/${own.json().id}`, {
      as: h().users.author,
      body: { author: h().users.editor.id },
    });
    assert.equal(moved.statusCode, 403);
  });
});
