// An item another request deletes for good while this one is answering: between a write's commit and the read of its
// answer, or between a read's check of the id and its load. The answer is the route's own for an id that names
// nothing (404 for events, 400 rest_invalid_param for venues and organizers), never a 500.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { afterNextCommit } from '../helpers/queries.ts';
import { createEvent } from './events-support.ts';
import { createLinked } from './support.ts';

describeEachDatabase('an item deleted by another request meanwhile', (h) => {
  const forceDelete = (harness: Harness, path: string) => async () => {
    const deleted = await harness.request('DELETE', path, {
      as: harness.users.administrator,
      query: { force: 'true' },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
  };

  for (const [write, status] of [
    ['PATCH', 'draft'],
    ['PATCH', 'publish'],
    ['DELETE', 'publish'],
  ] as const)
    it(`answers a ${write} of a ${status} event deleted right after its commit with 404, not 500`, async () => {
      const event = await createEvent(h(), { status });
      const race = afterNextCommit(h().store, forceDelete(h(), `/events/${event.id}`));
      try {
        const answer = await h().request(write, `/events/${event.id}`, {
          as: h().users.editor,
          ...(write === 'PATCH' ? { body: { title: 'Written, then gone' } } : {}),
        });
        assert.ok(race.fired, 'the delete ran between the commit and the answer');
        assert.equal(answer.statusCode, 404, answer.body);
        assert.equal(answer.json().code, 'rest-event-not-found');
      } finally {
        race.restore();
      }
    });

  for (const collection of ['venues', 'organizers'] as const)
    it(`answers a PATCH of one of ${collection} deleted right after its commit with 400, not 500`, async () => {
      const name = collection === 'venues' ? { venue: 'Soon gone hall' } : { organizer: 'Soon gone host' };
      const item = await createLinked(h(), collection, name);
      const race = afterNextCommit(h().store, forceDelete(h(), `/${collection}/${item.id}`));
      try {
        const answer = await h().request('PATCH', `/${collection}/${item.id}`, {
          as: h().users.editor,
          body: { website: 'https://example.org/' },
        });
        assert.ok(race.fired, 'the delete ran between the commit and the answer');
        assert.equal(answer.statusCode, 400, answer.body);
        assert.equal(answer.json().code, 'rest_invalid_param');
      } finally {
        race.restore();
      }
    });
});
