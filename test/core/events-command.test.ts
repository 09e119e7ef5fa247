// The events core without HTTP: a surface that is not a request (the .ics import, the CLI, a background job) reads an
// event write with readEventCommand and hands it to the service, with an Actor and nothing else. This file imports
// nothing of src/http, src/api or src/plugins: what it proves is that the core needs no request.
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { DateTime } from 'luxon';
import { readEventCommand } from '../../src/core/events/command.ts';
import { loadEventBundle, serializeEvent } from '../../src/core/events/serialize.ts';
import { createEvent, updateEvent } from '../../src/core/events/service.ts';
import { commandContext } from '../../src/core/input/context.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { InvalidFields, MissingFields } from '../../src/domain/errors.ts';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';

const NOW = '2027-03-01T12:00:00Z';

describeEachDatabase('the events core, called without a request', (h) => {
  beforeEach(() => h().setNow(NOW));
  const actorOf = (who: Credentials | null): Actor => ({
    viewer: who === null ? null : { id: who.id, role: who.role },
    now: DateTime.fromISO(NOW, { zone: 'utc' }),
    config: h().config,
  });
  const read = async (id: number, who: Credentials | null = null) => {
    const actor = actorOf(who);
    return serializeEvent(actor, await loadEventBundle(h().store.db, actor, [id]), id, { single: true });
  };

  it('reads, checks and writes an event: dates in the D8 grammar, an inline venue, a new category', async () => {
    const ctx = commandContext(h().store, actorOf(h().users.editor));
    const input = await readEventCommand(
      ctx,
      {
        title: 'Made by the core',
        status: 'publish',
        start_date: '2027-03-10 4pm',
        end_date: '2027-03-10 6:30 pm',
        timezone: 'Europe/Berlin',
        venue: { venue: 'Core Hall', city: 'Berlin' },
        categories: ['Core Category'],
      },
      { create: true },
    );
    const id = await createEvent(h().store, ctx, input);
    const event = await read(id);
    assert.equal(event.title, 'Made by the core');
    assert.deepEqual(
      [event.start_date, event.end_date, event.utc_start_date],
      ['2027-03-10 16:00:00', '2027-03-10 18:30:00', '2027-03-10 15:00:00'],
    );
    assert.equal((event.venue as Record<string, unknown>).venue, 'Core Hall');
    assert.deepEqual(
      (event.categories as Array<Record<string, unknown>>).map((term) => term.name),
      ['Core Category'],
    );

    const update = await readEventCommand(ctx, { title: 'Renamed by the core' }, { create: false });
    assert.deepEqual(Object.keys(update), ['title'], 'only what was sent');
    await updateEvent(h().store, ctx, id, update);
    assert.equal((await read(id)).title, 'Renamed by the core');
  });

  it("refuses what the API refuses, as the core's field errors: missing fields, invalid ones, rights the actor lacks", async () => {
    const editor = commandContext(h().store, actorOf(h().users.editor));
    await assert.rejects(
      readEventCommand(editor, { title: 'No dates' }, { create: true }),
      (error: unknown) =>
        error instanceof MissingFields && error.names.includes('start_date') && error.names.includes('end_date'),
    );
    await assert.rejects(
      readEventCommand(
        editor,
        { title: 'Bad', start_date: 'someday', end_date: '2027-03-10 10:00', venue: 999999 },
        { create: true },
      ),
      (error: unknown) => error instanceof InvalidFields && 'start_date' in error.fields && 'venue' in error.fields,
    );
    const contributor = commandContext(h().store, actorOf(h().users.contributor));
    await assert.rejects(
      readEventCommand(contributor, { image: 'https://cdn.example.com/core.png' }, { create: false }),
      (error: unknown) => error instanceof InvalidFields && 'image' in error.fields,
      'adding media needs the upload right',
    );
  });
});
