// D24 incremental sync: X-Sync-Cursor on every list, GET /changes (coalescing, upsert/remove per caller, paging,
// scheduled items coming due, venue and organizer changes reaching their events), bad cursors and per_page, and the
// modified_after / modified_before list filters. The randomised syncing client is in sync-client.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DateTime } from 'luxon';
import { latestSeq } from '../../src/core/change-log/read.ts';
import { pruneChanges } from '../../src/core/change-log/retention.ts';
import { decodeCursor, encodeCursor, LAST_ID } from '../../src/core/sync/cursor.ts';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { queriesDuring, writeAfterNextVersionRead } from '../helpers/queries.ts';
import { createEvent } from './events-support.ts';
import { createLinked, queryPairs } from './support.ts';
import { COLLECTION, drain, emptyCopy, FULL_LIST_QUERY, KINDS, type ChangeEntry } from './sync-support.ts';

describeEachDatabase('incremental sync (D24)', (h) => {
  const admin = () => h().users.administrator;
  const anonymous: Credentials | null = null;

  const call = async (
    method: string,
    path: string,
    status: number,
    as: Credentials | null = h().users.editor,
    body?: Record<string, unknown>,
    query?: Record<string, string | number>,
  ) => {
    const response = await h().request(method, path, { as, ...(body ? { body } : {}), ...(query ? { query } : {}) });
    assert.equal(response.statusCode, status, `${method} ${path}: ${response.body}`);
    return response;
  };
  const cursorNow = async (as: Credentials | null = admin()) =>
    (await call('GET', '/venues', 200, as)).headers['x-sync-cursor'] as string;
  /** The entries after `since` as `as` sees them, keyed type:id (the last one of each item). */
  const changesSince = async (since: string, as: Credentials | null) => {
    const { entries } = await drain(h(), as, emptyCopy(), since);
    return new Map(entries.map((entry) => [`${entry.type}:${entry.id}`, entry]));
  };
  /** An event published for `dateUtc`, a time after the clock: stored as scheduled (D17). */
  const scheduledEvent = async (title: string, dateUtc: string) => {
    const event = (
      await call('POST', '/events', 201, admin(), {
        title,
        start_date: '2038-05-01 10:00',
        end_date: '2038-05-01 11:00',
        status: 'publish',
        date_utc: dateUtc,
      })
    ).json();
    assert.equal(event.status, 'future');
    return event;
  };
  const actionOf = (entries: Map<string, ChangeEntry>, key: string) => entries.get(key)?.action;

  it('sends X-Sync-Cursor on every list: the latest seq, read before the list (cached anonymous answers too)', async () => {
    await createEvent(h(), { status: 'publish' });
    for (const kind of KINDS) {
      for (const as of [anonymous, admin()]) {
        const seq = await latestSeq(h().store.db);
        const response = await call('GET', `/${COLLECTION[kind]}`, 200, as, undefined, FULL_LIST_QUERY[kind]);
        const cursor = decodeCursor(String(response.headers['x-sync-cursor']));
        assert.ok(cursor, `${kind}: the header is a cursor`);
        assert.equal(cursor.seq, seq, `${kind}: the latest seq`);
        assert.equal(cursor.dueId, LAST_ID);
        assert.match(String(response.headers['access-control-expose-headers']), /X-Sync-Cursor/);
        const again = await call('GET', `/${COLLECTION[kind]}`, 200, as, undefined, FULL_LIST_QUERY[kind]);
        assert.equal(decodeCursor(String(again.headers['x-sync-cursor']))!.seq, seq);
      }
    }
    const before = decodeCursor(await cursorNow(anonymous))!.seq;
    await createLinked(h(), 'venues', { venue: 'Moves the cursor', status: 'publish' });
    assert.ok(
      decodeCursor(await cursorNow(anonymous))!.seq > before,
      'a write moves the cursor of the next (uncached) answer',
    );
  });

  it("a list's cursor covers the writes that commit while the list runs", async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Racing hall', status: 'publish' }, admin());
    const event = await createEvent(h(), { title: 'Racing 0', status: 'publish', venue: venue.id }, admin());
    const lists = {
      events: {
        query: { include: String(event.id) },
        id: event.id,
        field: 'title',
        patch: (round: number) => ['PATCH', `/events/${event.id}`, { title: `Racing ${round}` }] as const,
      },
      venues: {
        query: { include: String(venue.id) },
        id: venue.id,
        field: 'venue',
        patch: (round: number) => ['PATCH', `/venues/${venue.id}`, { venue: `Racing hall ${round}` }] as const,
      },
    };
    for (const [collection, race] of Object.entries(lists)) {
      for (let round = 1; round <= 40; round++) {
        const [method, path, body] = race.patch(round);
        // Started together: the write commits before, during or after the list's queries.
        const [listed] = await Promise.all([
          h().request('GET', `/${collection}`, {
            as: admin(),
            query: collection === 'events' ? race.query : { per_page: 100 },
          }),
          h().request(method, path, { as: h().users.editor, body }),
        ]);
        const item = (listed.json()[collection] as Array<Record<string, unknown>>).find(
          (candidate) => candidate.id === race.id,
        )!;
        let value = item[race.field];
        for (const entry of (await changesSince(String(listed.headers['x-sync-cursor']), admin())).values()) {
          if (entry.id === race.id && entry.item) value = entry.item[race.field];
        }
        assert.equal(
          value,
          body[race.field as keyof typeof body],
          `${collection}, round ${round}: the list or the changes after its cursor hold the write`,
        );
      }
    }
  });

  it('answers one entry per item, its latest state, oldest first; next_cursor continues where it stopped', async () => {
    const since = await cursorNow();
    const first = (
      await call('POST', '/events', 201, admin(), {
        title: 'Coalesced',
        start_date: '2031-01-01 10:00',
        end_date: '2031-01-01 11:00',
      })
    ).json();
    const venue = await createLinked(h(), 'venues', { venue: 'Between the two', status: 'publish' }, admin());
    await call('PATCH', `/events/${first.id}`, 200, admin(), { title: 'Coalesced twice' });
    await call('PATCH', `/events/${first.id}`, 200, admin(), { title: 'Coalesced thrice' });

    const page = (await call('GET', '/changes', 200, anonymous, undefined, { since })).json();
    assert.equal(page.has_more, false);
    assert.deepEqual(
      page.changes.map((entry: ChangeEntry) => [entry.type, entry.id, entry.action]),
      [
        ['venue', venue.id, 'upsert'],
        ['event', first.id, 'upsert'],
      ],
    );
    const event = page.changes[1].item;
    assert.equal(event.title, 'Coalesced thrice');
    assert.deepEqual(event, (await call('GET', `/events/${first.id}`, 200, anonymous)).json(), 'as GET by id shows it');
    assert.deepEqual(page.changes[0].item, (await call('GET', `/venues/${venue.id}`, 200, anonymous)).json());

    const empty = (await call('GET', '/changes', 200, anonymous, undefined, { since: page.next_cursor })).json();
    assert.deepEqual(empty.changes, []);
    assert.equal(empty.has_more, false);
    assert.equal(decodeCursor(empty.next_cursor)!.seq, decodeCursor(page.next_cursor)!.seq);
  });

  it('pages with per_page and has_more; the pages together hold every change once', async () => {
    const since = await cursorNow();
    const ids: number[] = [];
    for (let index = 0; index < 5; index++)
      ids.push((await createLinked(h(), 'organizers', { organizer: `Paged ${index}`, status: 'publish' })).id);
    let cursor = since;
    const seen: number[] = [];
    for (const expected of [[ids[0], ids[1]], [ids[2], ids[3]], [ids[4]]]) {
      const page: { changes: ChangeEntry[]; next_cursor: string; has_more: boolean } = (
        await call('GET', '/changes', 200, anonymous, undefined, { since: cursor, per_page: 2 })
      ).json();
      assert.deepEqual(
        page.changes.map((entry: ChangeEntry) => entry.id),
        expected,
      );
      assert.equal(page.has_more, expected.length === 2);
      seen.push(...page.changes.map((entry: ChangeEntry) => entry.id));
      cursor = page.next_cursor;
    }
    assert.deepEqual(seen, ids);
  });

  it('removes what the caller can no longer see, per caller', async () => {
    const since = await cursorNow();
    const make = async (title: string) =>
      (
        await call('POST', '/events', 201, admin(), {
          title,
          start_date: '2031-02-01 10:00',
          end_date: '2031-02-01 11:00',
          status: 'publish',
          description: 'Secret text',
        })
      ).json().id as number;
    const trashed = await make('Trashed');
    const drafted = await make('Drafted');
    const privateOne = await make('Private');
    const protectedOne = await make('Protected');
    const hidden = await make('Hidden');
    const deleted = await make('Deleted');
    const restored = await make('Restored');
    await call('DELETE', `/events/${trashed}`, 200, admin());
    await call('PATCH', `/events/${drafted}`, 200, admin(), { status: 'draft' });
    await call('PATCH', `/events/${privateOne}`, 200, admin(), { status: 'private' });
    await call('PATCH', `/events/${protectedOne}`, 200, admin(), { password: 'sesame' });
    await call('PATCH', `/events/${hidden}`, 200, admin(), { hide_from_listings: true });
    await call('DELETE', `/events/${deleted}`, 200, admin(), undefined, { force: 'true' });
    await call('DELETE', `/events/${restored}`, 200, admin());
    await call('PATCH', `/events/${restored}`, 200, admin(), { status: 'publish' });
    const venue = await createLinked(h(), 'venues', { venue: 'Unpublished hall', status: 'publish' }, admin());
    await call('PATCH', `/venues/${venue.id}`, 200, admin(), { status: 'draft' });
    const category = (await call('POST', '/categories', 201, admin(), { name: 'Gone category' })).json();
    await call('DELETE', `/categories/${category.id}`, 200, admin());

    const seenBy = { anonymous: await changesSince(since, anonymous), admin: await changesSince(since, admin()) };
    const expected: Array<[string, 'upsert' | 'remove', 'upsert' | 'remove']> = [
      [`event:${trashed}`, 'remove', 'remove'],
      [`event:${drafted}`, 'remove', 'upsert'],
      [`event:${privateOne}`, 'remove', 'upsert'],
      [`event:${protectedOne}`, 'upsert', 'upsert'],
      [`event:${hidden}`, 'remove', 'remove'],
      [`event:${deleted}`, 'remove', 'remove'],
      [`event:${restored}`, 'upsert', 'upsert'],
      [`venue:${venue.id}`, 'remove', 'upsert'],
      [`category:${category.id}`, 'remove', 'remove'],
    ];
    for (const [key, forAnonymous, forAdmin] of expected) {
      assert.equal(actionOf(seenBy.anonymous, key), forAnonymous, `${key} for an anonymous client`);
      assert.equal(actionOf(seenBy.admin, key), forAdmin, `${key} for an administrator`);
    }
    // A password-protected event is sent as lists show it: blanked, without json_ld, to everyone without the password.
    for (const entries of [seenBy.anonymous, seenBy.admin]) {
      const item = entries.get(`event:${protectedOne}`)!.item!;
      assert.equal(item.title, 'Protected');
      assert.equal(item.description, '');
      assert.equal(item.json_ld, undefined);
    }
    const listed = (await call('GET', '/events', 200, anonymous, undefined, { include: String(protectedOne) })).json()
      .events[0];
    assert.deepEqual(seenBy.anonymous.get(`event:${protectedOne}`)!.item, listed);
  });

  it('costs a fixed number of queries whatever the page holds', async () => {
    const since = await cursorNow();
    for (let index = 0; index < 12; index++) {
      const venue = await createLinked(h(), 'venues', { venue: `Counted hall ${index}`, status: 'publish' }, admin());
      await call('POST', '/events', 201, admin(), {
        title: `Counted ${index}`,
        start_date: '2031-06-01 10:00',
        end_date: '2031-06-01 11:00',
        status: 'publish',
        venue: venue.id,
        organizer: { organizer: `Counted host ${index}` },
        categories: [`Counted category ${index}`],
        tags: [`counted-${index}`],
        image: `https://img.example/${index}.png`,
      });
    }
    const queriesFor = async (perPage: number) => {
      // Both measured after a write, so that what is kept between writes (the confirmed credential, the embedded
      // terms) is read again in each: the same starting point.
      await h().store.transaction(async () => {});
      return queriesDuring(h().store, async () => {
        const page = (await call('GET', '/changes', 200, admin(), undefined, { since, per_page: perPage })).json();
        assert.equal(page.changes.length, perPage);
        assert.equal(page.has_more, true);
      });
    };
    const small = await queriesFor(5);
    assert.equal(await queriesFor(50), small, 'the same queries for 5 and for 50 entries of every kind');
  });

  it("an author sees their own drafts, and no one else's", async () => {
    const author = h().users.author;
    const since = await cursorNow(author);
    const own = (
      await call('POST', '/events', 201, author, {
        title: 'Own draft',
        start_date: '2031-03-01 10:00',
        end_date: '2031-03-01 11:00',
        status: 'draft',
      })
    ).json().id;
    const others = (
      await call('POST', '/events', 201, admin(), {
        title: 'Other draft',
        start_date: '2031-03-01 10:00',
        end_date: '2031-03-01 11:00',
        status: 'draft',
      })
    ).json().id;
    const entries = await changesSince(since, author);
    assert.equal(actionOf(entries, `event:${own}`), 'upsert');
    assert.equal(actionOf(entries, `event:${others}`), undefined, 'not even a remove: the author never could list it');
  });

  it('tells nobody of items they never could list: a draft series, a private event and a draft venue edited, trashed, deleted', async () => {
    const editor = h().users.editor;
    const since = await cursorNow(anonymous);
    const series = (
      await call('POST', '/events', 201, admin(), {
        title: 'Secret series',
        start_date: '2031-07-01 10:00',
        end_date: '2031-07-01 11:00',
        status: 'draft',
        recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
      })
    ).json();
    const occurrences = (
      await call('GET', '/events', 200, admin(), undefined, {
        start_date: '2031-07-01',
        end_date: '2031-07-31',
        status: 'draft',
        per_page: 100,
      })
    )
      .json()
      .events.filter((event: { series_id: number | null }) => event.series_id === series.id)
      .map((event: { id: number }) => event.id) as number[];
    assert.equal(occurrences.length, 4);
    const privateOne = (
      await call('POST', '/events', 201, admin(), {
        title: 'Secret single',
        start_date: '2031-07-02 10:00',
        end_date: '2031-07-02 11:00',
        status: 'private',
      })
    ).json().id as number;
    const venue = await createLinked(h(), 'venues', { venue: 'Secret hall', status: 'draft' }, admin());
    const keys = [...occurrences.map((id) => `event:${id}`), `event:${privateOne}`, `venue:${venue.id}`];
    const actionsSince = async (cursor: string, as: Credentials | null) => {
      const entries = await changesSince(cursor, as);
      return keys.map((key) => actionOf(entries, key));
    };
    const none = keys.map(() => undefined);

    await call('PATCH', `/events/${series.id}`, 200, admin(), { title: 'Secret series, renamed' });
    await call('PATCH', `/events/${privateOne}`, 200, admin(), { title: 'Secret single, renamed' });
    await call('PATCH', `/venues/${venue.id}`, 200, admin(), { venue: 'Secret hall, renamed' });
    assert.deepEqual(await actionsSince(since, anonymous), none, 'created and edited: nothing for an anonymous client');
    assert.deepEqual(
      await actionsSince(since, editor),
      keys.map(() => 'upsert'),
      'an editor lists them',
    );

    const beforeTrash = await cursorNow(editor);
    await call('DELETE', `/events/${series.id}`, 200, admin());
    await call('DELETE', `/events/${privateOne}`, 200, admin(), undefined, { force: 'true' });
    await call('DELETE', `/venues/${venue.id}`, 200, admin());
    assert.deepEqual(
      await actionsSince(beforeTrash, anonymous),
      none,
      'trashed or deleted: nothing for an anonymous client',
    );
    assert.deepEqual(await actionsSince(since, anonymous), none);
    assert.deepEqual(
      await actionsSince(beforeTrash, editor),
      keys.map(() => 'remove'),
      'the editor who held them is told they are gone',
    );

    const beforeDelete = await cursorNow(editor);
    await call('DELETE', `/events/${series.id}`, 200, admin(), undefined, { force: 'true' });
    await call('DELETE', `/venues/${venue.id}`, 200, admin(), undefined, { force: 'true' });
    assert.deepEqual(
      await actionsSince(beforeDelete, anonymous),
      none,
      'deleted from the trash: nothing for an anonymous client',
    );
    assert.deepEqual(await actionsSince(beforeTrash, anonymous), none);
    assert.deepEqual(
      await actionsSince(beforeTrash, editor),
      keys.map(() => 'remove'),
    );
  });

  it('still removes a published event made private or draft for anonymous clients, and sends them nothing else', async () => {
    const make = async (title: string, status: string) =>
      (
        await call('POST', '/events', 201, admin(), {
          title,
          start_date: '2031-08-01 10:00',
          end_date: '2031-08-01 11:00',
          status,
        })
      ).json().id as number;
    const madePrivate = await make('Public, then private', 'publish');
    const madeDraft = await make('Public, then draft', 'publish');
    const since = await cursorNow(anonymous);
    const draft = await make('Draft all along', 'draft');
    await call('PATCH', `/events/${madePrivate}`, 200, admin(), { status: 'private' });
    await call('PATCH', `/events/${madeDraft}`, 200, admin(), { status: 'draft' });
    await call('PATCH', `/events/${draft}`, 200, admin(), { status: 'pending' });
    const { entries } = await drain(h(), anonymous, emptyCopy(), since);
    assert.deepEqual(
      entries.map((entry) => [entry.type, entry.id, entry.action]),
      [
        ['event', madePrivate, 'remove'],
        ['event', madeDraft, 'remove'],
      ],
    );
  });

  it('sends the events that embed a venue or organizer when it changes', async () => {
    const venue = await createLinked(h(), 'venues', { venue: 'Renamed hall', status: 'publish' }, admin());
    const organizer = await createLinked(h(), 'organizers', { organizer: 'Renamed host', status: 'publish' }, admin());
    const event = (
      await call('POST', '/events', 201, admin(), {
        title: 'Embeds both',
        start_date: '2031-04-01 10:00',
        end_date: '2031-04-01 11:00',
        status: 'publish',
        venue: venue.id,
        organizer: [organizer.id],
      })
    ).json();
    const since = await cursorNow(anonymous);
    await call('PATCH', `/venues/${venue.id}`, 200, admin(), { venue: 'Renamed hall, new name', city: 'Springfield' });
    let entries = await changesSince(since, anonymous);
    assert.equal(
      entries.get(`event:${event.id}`)?.item?.venue && (entries.get(`event:${event.id}`)!.item!.venue as any).venue,
      'Renamed hall, new name',
    );
    const next = await cursorNow(anonymous);
    await call('PATCH', `/organizers/${organizer.id}`, 200, admin(), { email: 'host@example.com' });
    entries = await changesSince(next, anonymous);
    assert.equal((entries.get(`event:${event.id}`)!.item!.organizer as any)[0].email, 'host@example.com');
  });

  it('sends a scheduled item when it comes due, although nothing was written', async () => {
    h().setNow('2030-06-01T12:00:00Z');
    const event = await scheduledEvent('Scheduled', '2030-06-01 13:00:00');
    const since = await cursorNow(anonymous);
    let entries = await changesSince(since, anonymous);
    assert.equal(entries.size, 0, 'nothing new for an anonymous client yet');
    let page = (await call('GET', '/changes', 200, anonymous, undefined, { since })).json();
    assert.deepEqual(page.changes, []);

    h().setNow('2030-06-01T13:00:01Z');
    page = (await call('GET', '/changes', 200, anonymous, undefined, { since: page.next_cursor })).json();
    assert.deepEqual(
      page.changes.map((entry: ChangeEntry) => [entry.type, entry.id, entry.action]),
      [['event', event.id, 'upsert']],
    );
    assert.equal(page.changes[0].item.status, 'publish');
    const again = (await call('GET', '/changes', 200, anonymous, undefined, { since: page.next_cursor })).json();
    assert.deepEqual(again.changes, [], 'sent once');

    // A list read after it came due already shows it: its cursor does not send it again.
    entries = await changesSince(await cursorNow(anonymous), anonymous);
    assert.equal(entries.size, 0);
  });

  it('removes a scheduled item that came due from a copy when a write that began before then unschedules it', async () => {
    h().setNow('2036-01-01T10:00:00Z');
    const event = await scheduledEvent('Due, then put off', '2036-01-01 10:00:10');
    const since = await cursorNow(anonymous);
    // A client polls once it has come due: it now holds the event.
    h().setNow('2036-01-01T10:00:20Z');
    const due = (await call('GET', '/changes', 200, anonymous, undefined, { since })).json();
    assert.deepEqual(
      due.changes.map((entry: ChangeEntry) => [entry.type, entry.id, entry.action]),
      [['event', event.id, 'upsert']],
    );
    // A write whose request began before the publication time (its clock says so) commits after that poll, putting the
    // event off by an hour: before it, the event was public to whoever polled after 10:00:10.
    h().setNow('2036-01-01T10:00:05Z');
    await call('PATCH', `/events/${event.id}`, 200, admin(), { date_utc: '2036-01-01 11:00:00' });
    h().setNow('2036-01-01T10:00:21Z');
    const after = (await call('GET', '/changes', 200, anonymous, undefined, { since: due.next_cursor })).json();
    assert.deepEqual(
      after.changes.map((entry: ChangeEntry) => [entry.type, entry.id, entry.action]),
      [['event', event.id, 'remove']],
      'the client that holds it is told it is gone',
    );
  });

  it('starts from the oldest retained change when since is omitted', async () => {
    const page = (await call('GET', '/changes', 200, anonymous, undefined, { per_page: 3 })).json();
    assert.equal(page.changes.length, 3);
    assert.equal(page.has_more, true);
    assert.ok(decodeCursor(page.next_cursor));
  });

  it('refuses malformed, foreign and future cursors with 410, bad per_page with 400, never a 5xx', async () => {
    const good = decodeCursor(await cursorNow())!;
    const latest = await latestSeq(h().store.db);
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const expired = [
      '',
      'x',
      'not a cursor',
      '!!!!',
      '%00',
      'a'.repeat(5000),
      b64('2.1.20300101000000.0'),
      b64('1.-1.20300101000000.0'),
      b64('1.01.20300101000000.0'),
      b64('1.1.20301301000000.0'),
      b64('1.1.20300230000000.0'),
      b64('1.1.2030010100000.0'),
      b64(`1.1.20300101000000.${LAST_ID + 1}`),
      b64('1.99999999999999999999.20300101000000.0'),
      b64('1.1.20300101000000.0.9'),
      encodeCursor({ ...good, seq: latest + 1000 }),
      encodeCursor({ ...good, dueAt: '2999-01-01 00:00:00' }),
      `${encodeCursor(good)}=`,
      `${encodeCursor(good)}A`,
      encodeCursor(good).toLowerCase(),
    ];
    for (const since of expired) {
      const response = await h().request('GET', '/changes', { query: { since } });
      assert.equal(response.statusCode, 410, `since=${since.slice(0, 40)}: ${response.body}`);
      const body = response.json();
      assert.equal(body.code, 'rest_sync_cursor_expired');
      assert.equal(body.data.status, 410);
      assert.equal(typeof body.message, 'string');
    }
    for (const perPage of ['0', '-1', 'abc', '1.5', '', '99999999999999999999999']) {
      const response = await h().request('GET', '/changes', {
        query: { since: encodeCursor(good), per_page: perPage },
      });
      assert.equal(response.statusCode, 400, `per_page=${perPage}: ${response.body}`);
      assert.equal(response.json().code, 'rest_invalid_param');
    }
    const array = await h().request('GET', `/changes?since[]=${encodeCursor(good)}`);
    assert.equal(array.statusCode, 400);
    // Large but whole: lowered to 1,000, as lists lower theirs.
    const huge = await h().request('GET', '/changes', { query: { since: encodeCursor(good), per_page: '5000000' } });
    assert.equal(huge.statusCode, 200, huge.body);
  });

  it('filters lists by modified_after (exclusive) and modified_before (inclusive), echoed as UTC instants', async () => {
    /** A published venue, organizer and event, each named `name`. */
    const createNamed = async (name: string) => ({
      venue: await createLinked(h(), 'venues', { venue: name, status: 'publish' }, admin()),
      organizer: await createLinked(h(), 'organizers', { organizer: name, status: 'publish' }, admin()),
      event: await createEvent(
        h(),
        { title: name, status: 'publish', start_date: '2032-02-01 10:00', end_date: '2032-02-01 11:00' },
        admin(),
      ),
    });
    h().setNow('2032-01-10T10:00:00Z');
    const early = await createNamed('Modified early');
    h().setNow('2032-01-10T11:00:00Z');
    const late = await createNamed('Modified late');

    const window = { start_date: '2032-02-01', end_date: '2032-02-01' };
    for (const [collection, ids, extra] of [
      ['venues', [early.venue.id, late.venue.id], {}],
      ['organizers', [early.organizer.id, late.organizer.id], {}],
      ['events', [early.event.id, late.event.id], window],
    ] as const) {
      const listed = async (query: Record<string, string>) => {
        const body = (
          await call('GET', `/${collection}`, 200, admin(), undefined, { ...extra, per_page: 100, ...query })
        ).json();
        return {
          ids: (body[collection] as Array<{ id: number }>)
            .map((item) => item.id)
            .filter((id) => (ids as readonly number[]).includes(id))
            .sort((a, b) => a - b),
          body,
        };
      };
      // 10:00:00 UTC exactly: the early items were modified then.
      const after = await listed({ modified_after: '2032-01-10T10:00:00Z' });
      assert.deepEqual(after.ids, [ids[1]], `${collection}: modified_after is exclusive`);
      assert.ok(
        queryPairs(after.body.rest_url).some(
          ([name, value]) => name === 'modified_after' && value === '2032-01-10T10:00:00Z',
        ),
        `${collection}: echoed`,
      );
      const before = await listed({ modified_before: '2032-01-10 10:00:00' });
      assert.deepEqual(
        before.ids,
        [ids[0]],
        `${collection}: modified_before is inclusive (read in the site zone, UTC here)`,
      );
      assert.ok(
        queryPairs(before.body.rest_url).some(
          ([name, value]) => name === 'modified_before' && value === '2032-01-10T10:00:00Z',
        ),
      );
      const both = await listed({ modified_after: '2032-01-10 09:00', modified_before: '2032-01-10T12:00:00+01:00' });
      assert.deepEqual(both.ids, [ids[0], ids[1]]);
      const bad = await h().request('GET', `/${collection}`, { query: { modified_after: 'not a date' } });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().code, 'rest_invalid_param');
    }
    // Relative values are fixed in the echo, so following next_rest_url keeps the same bound.
    const relative = (
      await call('GET', '/venues', 200, admin(), undefined, { modified_after: '1 hour ago', per_page: 1 })
    ).json();
    assert.ok(
      queryPairs(relative.next_rest_url ?? relative.rest_url).some(
        ([name, value]) => name === 'modified_after' && value === '2032-01-10T10:00:00Z',
      ),
    );
  });

  it('never sends an event on a /changes page with terms older than the page: a rename just before it shows', async () => {
    for (const as of [anonymous, h().users.author]) {
      const label = as === null ? 'anonymous' : 'author';
      const category = (
        await call('POST', '/categories', 201, h().users.editor, { name: `Page race old ${label}` })
      ).json().id;
      const event = await createEvent(h(), {
        categories: [category],
        start_date: '2034-05-10 10:00:00',
        end_date: '2034-05-10 11:00:00',
      });
      const since = await cursorNow(as);
      // The process's term snapshot holds the old name at the current version (a read by id warms it).
      const warm = await call('GET', `/events/${event.id}`, 200, as);
      assert.equal(warm.json().categories[0].name, `Page race old ${label}`);
      // The rename commits right after the request has read the data version (the read cache's, or the remembered
      // credential's), before the page reads its change rows: the page then holds the rename's row for the event.
      const race = writeAfterNextVersionRead(h().store, () =>
        call('POST', `/categories/${category}`, 200, h().users.editor, { name: `Page race new ${label}` }),
      );
      try {
        const page = await call('GET', '/changes', 200, as, undefined, { since });
        assert.ok(race.fired, `${label}: the rename ran inside the /changes request`);
        const entry = (page.json().changes as ChangeEntry[]).find(
          (change) => change.type === 'event' && change.id === event.id,
        );
        assert.ok(entry?.item, `${label}: the event is on the page: ${page.body}`);
        // The cursor moves past the rename, so the page must show it: the client would never be told again.
        assert.equal((entry.item as { categories: { name: string }[] }).categories[0].name, `Page race new ${label}`);
      } finally {
        race.restore();
      }
    }
  });

  it('answers 410 for a cursor older than the retention', async () => {
    const old = await cursorNow();
    await createLinked(h(), 'venues', { venue: 'Pruned one', status: 'publish' });
    await createLinked(h(), 'venues', { venue: 'Pruned two', status: 'publish' });
    // Everything is older than one day in ten years' time: only the newest row stays.
    await pruneChanges(h().store, { retentionDays: 1, now: () => DateTime.utc().plus({ years: 10 }).toJSDate() });
    const response = await h().request('GET', '/changes', { query: { since: old } });
    assert.equal(response.statusCode, 410, response.body);
    assert.equal(response.json().code, 'rest_sync_cursor_expired');
    // The current cursor still works, and so does starting over.
    assert.equal((await h().request('GET', '/changes', { query: { since: await cursorNow() } })).statusCode, 200);
    assert.equal((await h().request('GET', '/changes')).statusCode, 200);
  });
});
