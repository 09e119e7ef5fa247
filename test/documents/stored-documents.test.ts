// D34: GET /events/{id} of a published event is answered from its stored document, which every write keeps exact.
// Each check compares the stored answer byte for byte with the live one (`context=view` renders live), and proves the
// stored text is what was served by marking it in the database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import { renderStaleDocuments } from '../../src/core/background/documents.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { createEvent, exampleEventWithLinks } from '../resources/events-support.ts';
import { createLinked } from '../resources/support.ts';
import { statementsDuring, versionReadsDuring, writeAfterNextStatement } from '../helpers/queries.ts';

async function storedItem(h: Harness, id: number): Promise<string | undefined> {
  const row = await h.store.db
    .selectFrom('event_documents')
    .select('item')
    .where('event_id', '=', id)
    .executeTakeFirst();
  return row?.item;
}

/** A statement run as a write of the service (so that the answers it caches see the data version move). */
const change = (h: Harness, statement: RawBuilder<unknown>) =>
  h.store.transaction(async (trx) => {
    await statement.execute(trx);
  });

/** GET by id (from the document when there is one) and the same rendered live; asserts they are the same bytes. */
async function assertSameAsLive(h: Harness, id: number): Promise<any> {
  const stored = await h.request('GET', `/events/${id}`);
  const live = await h.request('GET', `/events/${id}`, { query: { context: 'view' } });
  assert.equal(stored.statusCode, 200, stored.body);
  assert.equal(stored.body, live.body);
  assert.equal(stored.headers['last-modified'], live.headers['last-modified']);
  assert.equal(stored.headers.etag, live.headers.etag);
  return stored.json();
}

/** Proves the answer is the stored text: a mark written into the document shows in the next answer. */
async function assertServedFromDocument(h: Harness, id: number): Promise<void> {
  const item = await storedItem(h, id);
  assert.ok(item, `event ${id} has a stored document`);
  await change(
    h,
    sql`update event_documents set item = replace(item, '"title":"', '"title":"MARK ') where event_id = ${id}`,
  );
  const answer = await h.request('GET', `/events/${id}`);
  assert.match(answer.json().title, /^MARK /, 'the answer is the stored text');
  await change(h, sql`update event_documents set item = ${item} where event_id = ${id}`);
}

describeEachDatabase(
  'Stored documents (D34)',
  (h) => {
    it('answers an event with a venue, organizers, terms and json_ld from its document, as the live render', async () => {
      const { body, venue } = await exampleEventWithLinks(h());
      const second = await createLinked(h(), 'organizers', { organizer: 'Second Org', email: 'b@example.com' });
      const created = await h().request('POST', '/events', {
        as: h().users.administrator,
        body: { ...body, organizer: [...body.organizer, { id: second.id }], tags: ['zeta', 'alpha'], cost: '10' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id;
      await assertServedFromDocument(h(), id);
      const event = await assertSameAsLive(h(), id);
      assert.equal(event.venue.id, venue.id);
      assert.equal(event.organizer.length, 2);
      assert.ok(Array.isArray(event.json_ld.organizer), 'two organizers: an array of people');
      assert.deepEqual(
        event.tags.map((tag: any) => tag.name),
        ['alpha', 'zeta'],
      );
    });

    it('shows a venue edit, a term rename and another event in the term without rendering the event again', async () => {
      const venue = await createLinked(h(), 'venues', { venue: 'Old Hall', city: 'Porto' });
      const category = await h().request('POST', '/categories', { as: h().users.editor, body: { name: 'Music' } });
      const event = await createEvent(h(), { venue: { id: venue.id }, categories: [category.json().id] });
      const before = await storedItem(h(), event.id);

      await h().request('POST', `/venues/${venue.id}`, { as: h().users.editor, body: { venue: 'New Hall' } });
      await h().request('POST', `/categories/${category.json().id}`, { as: h().users.editor, body: { name: 'Jazz' } });
      await createEvent(h(), { categories: [category.json().id] });

      assert.equal(await storedItem(h(), event.id), before, 'the event document was not rendered again');
      const read = await assertSameAsLive(h(), event.id);
      assert.equal(read.venue.venue, 'New Hall');
      assert.equal(read.json_ld.location.name, 'New Hall');
      assert.deepEqual(
        read.categories.map((term: any) => [term.name, term.count]),
        [['Jazz', 2]],
      );
    });

    it('renders live, and keeps no document, where the answer depends on the reader', async () => {
      const draftVenue = await createLinked(h(), 'venues', { venue: 'Secret Hall', status: 'draft' });
      const withDraftVenue = await createEvent(h(), { venue: { id: draftVenue.id } });
      assert.ok(await storedItem(h(), withDraftVenue.id), 'the event itself is stored');
      const anonymous = await assertSameAsLive(h(), withDraftVenue.id);
      assert.deepEqual(anonymous.venue, [], 'a draft venue is not shown to anyone who may not read it');
      const editor = await h().request('GET', `/events/${withDraftVenue.id}`, { as: h().users.editor });
      assert.equal(editor.json().venue.venue, 'Secret Hall', 'its editors see it');

      const protectedEvent = await createEvent(h(), { password: 'pw' });
      assert.equal(await storedItem(h(), protectedEvent.id), undefined);
      const draft = await createEvent(h(), { status: 'draft' });
      assert.equal(await storedItem(h(), draft.id), undefined);

      const trashed = await createEvent(h());
      assert.ok(await storedItem(h(), trashed.id));
      await h().request('DELETE', `/events/${trashed.id}`, { as: h().users.editor });
      assert.equal(await storedItem(h(), trashed.id), undefined, 'trashing deletes the document');
      assert.equal((await h().request('GET', `/events/${trashed.id}`)).statusCode, 403);
    });

    it('keeps every value a value: a title holding what the tokens look like stays text', async () => {
      // The tokens hold a lone surrogate, which no stored text can: the API refuses it as not text.
      const refused = await h().request('POST', '/events', {
        as: h().users.editor,
        body: { title: '\ud800venue', start_date: '2027-03-10 09:00:00', end_date: '2027-03-10 10:00:00' },
      });
      assert.equal(refused.statusCode, 400);
      for (const title of ['"\\ud800venue"', '\\ud800organizer', '","venue":"x', '\\"\\ud800tags\\"']) {
        const event = await createEvent(h(), { title, description: title, website: `https://example.com/${title}` });
        assert.ok(await storedItem(h(), event.id));
        const read = await assertSameAsLive(h(), event.id);
        assert.deepEqual([read.venue, read.organizer, read.tags], [[], [], []], 'no token was filled in the text');
      }
    });

    it('answers a list page from the documents, the same bytes as rendered live', async () => {
      const venue = await createLinked(h(), 'venues', { venue: 'List Hall', city: 'Lisbon' });
      const organizer = await createLinked(h(), 'organizers', { organizer: 'List Org' });
      for (let day = 10; day < 16; day++) {
        await createEvent(h(), {
          title: `Listed ${day}`,
          start_date: `2031-05-${day} 09:00:00`,
          end_date: `2031-05-${day} 10:00:00`,
          ...(day % 2 === 0 ? { venue: { id: venue.id }, organizer: [{ id: organizer.id }], tags: ['t'] } : {}),
        });
      }
      await createEvent(h(), {
        title: 'Listed locked',
        start_date: '2031-05-12 11:00:00',
        end_date: '2031-05-12 12:00:00',
        password: 'pw',
      });
      const query = { start_date: '2031-05-01', end_date: '2031-06-01', per_page: '20' };
      const fromDocuments = await h().request('GET', '/events', { query });
      assert.equal(fromDocuments.statusCode, 200, fromDocuments.body);
      assert.equal(fromDocuments.json().events.length, 7);
      await change(h(), sql`update event_documents set item = 'x', entry = 'x', fingerprint = 'old'`);
      const live = await h().request('GET', '/events', { query });
      assert.equal(fromDocuments.body, live.body);
    });

    it('answers a create and an update from the documents the write stored, as the live render', async () => {
      const venue = await createLinked(h(), 'venues', { venue: 'Answer Hall', city: 'Porto' });
      const organizer = await createLinked(h(), 'organizers', { organizer: 'Answer Org' });
      const body = {
        title: 'Answered',
        description: '<p>From its <b>document</b></p>',
        start_date: '2031-07-01 18:00:00',
        end_date: '2031-07-01 20:00:00',
        venue: { id: venue.id },
        organizer: [{ id: organizer.id }],
        categories: ['Answers'],
        tags: ['answered', 'stored'],
      };
      const answers: Array<{ body: string; etag: string | undefined; id: number }> = [];
      const statements: string[] = [];
      statements.push(
        ...(await statementsDuring(h().store, async () => {
          const created = await h().request('POST', '/events', { as: h().users.administrator, body });
          assert.equal(created.statusCode, 201, created.body);
          answers.push({ body: created.body, etag: created.headers.etag as string, id: created.json().id });
        })),
      );
      const id = answers[0].id;
      statements.push(
        ...(await statementsDuring(h().store, async () => {
          const updated = await h().request('PATCH', `/events/${id}`, {
            as: h().users.administrator,
            body: { title: 'Answered from its document' },
          });
          assert.equal(updated.statusCode, 200, updated.body);
          answers.push({ body: updated.body, etag: updated.headers.etag as string, id });
        })),
      );
      // Outside the writes' transactions: the caller's authentication and the answers' reads, each answer's two forms
      // of the document (the list form it sends, the tag of GET's form) in one statement.
      assert.ok(statements.length <= 20, `${statements.length} statements outside the transactions`);
      const documentReads = statements.filter((text) => text.includes('from event_documents'));
      assert.equal(documentReads.length, 2, documentReads.join('\n'));
      // The same bytes rendered live: the documents set aside, a list entry and GET's tag.
      const last = answers[1];
      const liveItem = await h().request('GET', `/events/${id}`, { query: { context: 'view' } });
      assert.equal(last.etag, liveItem.headers.etag);
      await change(h(), sql`update event_documents set fingerprint = 'old' where event_id = ${id}`);
      const liveList = await h().request('GET', '/events', {
        query: { include: String(id), start_date: '2000-01-01' },
      });
      assert.equal(liveList.statusCode, 200, liveList.body);
      assert.equal(last.body, JSON.stringify(liveList.json().events[0]));
      assert.equal(JSON.parse(answers[0].body).title, body.title);
    });

    it('reads by id in one statement (one round trip) and a list page in four, three round trips (page and total sent together)', async () => {
      const venue = await createLinked(h(), 'venues', { venue: 'Round Hall' });
      const organizer = await createLinked(h(), 'organizers', { organizer: 'Round Org' });
      const category = await h().request('POST', '/categories', { as: h().users.editor, body: { name: 'Rounds' } });
      const events: Record<string, any>[] = [];
      for (let index = 0; index < 3; index++)
        events.push(
          await createEvent(h(), {
            venue: { id: venue.id },
            organizer: [{ id: organizer.id }],
            categories: [category.json().id],
            tags: ['round'],
            start_date: `2032-03-1${index} 10:00:00`,
            end_date: `2032-03-1${index} 12:00:00`,
          }),
        );
      const store = h().store;
      /**
       * Statements (Kysely's) and data version reads of one GET, after a first that warms the snapshot (and, for a
       * caller, has the credential remembered).
       */
      const cost = async (path: string, query: Record<string, string> = {}, as?: Credentials) => {
        await h().request('GET', path, { query: { ...query, warm: '1' }, as });
        let statements: string[] = [];
        const versionReads = await versionReadsDuring(store, async () => {
          statements = await statementsDuring(store, async () => {
            const answer = await h().request('GET', path, { query, as });
            assert.equal(answer.statusCode, 200, answer.body);
          });
        });
        return { statements, versionReads };
      };
      const byId = await cost(`/events/${events[0].id}`);
      // The read cache holds nothing for this URL: the version is read with the document, in its statement, and
      // serves the read cache and the term snapshot.
      assert.equal(byId.versionReads, 0, 'no data version read apart from the document');
      assert.equal(byId.statements.length, 1, byId.statements.join('\n'));
      assert.match(byId.statements[0], /from event_documents/);
      assert.match(byId.statements[0], /data_version/);
      // The same URL again: the answer is read as before, and kept this time (asked for again: http/recent-keys.ts);
      // a third read is served from it, after one read of the version (which must read as the statement's did, or
      // every read would miss).
      assert.equal((await h().request('GET', `/events/${events[0].id}`)).statusCode, 200);
      let again: string[] = [];
      const versionReads = await versionReadsDuring(store, async () => {
        again = await statementsDuring(store, async () => {
          const answer = await h().request('GET', `/events/${events[0].id}`);
          assert.equal(answer.statusCode, 200, answer.body);
        });
      });
      assert.deepEqual({ statements: again, versionReads }, { statements: [], versionReads: 1 });

      // A caller's read: the version its credential's check read serves the snapshot too.
      const byIdAuthenticated = await cost(`/events/${events[0].id}`, {}, h().users.editor);
      assert.equal(
        byIdAuthenticated.versionReads,
        1,
        'one data version read, shared by the credential and the snapshot',
      );
      assert.equal(byIdAuthenticated.statements.length, 1, byIdAuthenticated.statements.join('\n'));

      // Only these events: the other tests leave events whose documents are stale, and those render live.
      const page = await cost('/events', {
        per_page: '2',
        page: '2',
        start_date: '2032-03-01',
        end_date: '2032-03-31',
      });
      // None on its own: the read cache's version, which the snapshots check too, is read in the sync cursor's
      // statement (api/changes/header.ts readSyncCursor).
      assert.equal(page.versionReads, 0);
      // The sync cursor with the version, the page's ids and its total (summed from the counts, so not counted with the
      // page: sent together, in either order), and the documents of its events: three round trips on PostgreSQL.
      assert.equal(page.statements.length, 4, page.statements.join('\n'));
      assert.match(page.statements[0], /max\("seq"\).*data_version/s);
      const sentTogether = page.statements.slice(1, 3);
      const total = sentTogether.find((text) => /occurrence_counts/.test(text));
      const pageIds = sentTogether.find((text) => text !== total);
      assert.ok(total !== undefined && pageIds !== undefined, sentTogether.join('\n'));
      assert.doesNotMatch(pageIds, /occurrence_counts|over \(\)/);
      assert.match(page.statements[3], /from event_documents/);

      // A category's page: its filter is checked against the term snapshot at the version the cursor's statement read
      // (which the first request's read of the category's terms warmed), so no statement reads the terms; the sums of
      // its total, the window's and (a window this short) the category's in every window, sent together; the page, the
      // documents: four round trips on PostgreSQL.
      const filtered = await cost('/events', {
        categories: String(category.json().id),
        start_date: '2032-03-01',
        end_date: '2032-03-31',
      });
      assert.equal(filtered.versionReads, 0);
      assert.match(filtered.statements[0], /max\("seq"\).*data_version/s);
      assert.ok(!filtered.statements.some((text) => /from "terms"/.test(text)), filtered.statements.join('\n'));
      assert.equal(filtered.statements.length, 6, filtered.statements.join('\n'));
      assert.ok(
        filtered.statements.slice(1, 4).every((text) => /occurrence_counts/.test(text)),
        filtered.statements.join('\n'),
      );
    });

    it('keeps a read by id under the version read with its document: a write right after that read is seen next', async () => {
      const event = await createEvent(h(), { start_date: '2033-05-10 10:00:00', end_date: '2033-05-10 11:00:00' });
      const path = `/events/${event.id}`;
      // The write commits after the document's statement has read the document and the version, before the answer is
      // kept: the answer is the one before the write, kept under the version before it, which the write moved on.
      const race = writeAfterNextStatement(
        h().store,
        /from event_documents.*data_version|data_version.*from event_documents/s,
        async () => {
          const renamed = await h().request('POST', path, {
            as: h().users.editor,
            body: { title: 'Renamed meanwhile' },
          });
          assert.equal(renamed.statusCode, 200, renamed.body);
        },
      );
      try {
        const first = await h().request('GET', path);
        assert.equal(first.statusCode, 200, first.body);
        assert.ok(race.fired, 'the rename ran inside the read');
        assert.notEqual(first.json().title, 'Renamed meanwhile');
      } finally {
        race.restore();
      }
      const next = await h().request('GET', path);
      assert.equal(next.json().title, 'Renamed meanwhile');
    });

    it("reads a list's sync cursor with the version it answers at: a rename right after them is after the cursor", async () => {
      const category = await h().request('POST', '/categories', { as: h().users.editor, body: { name: 'Race old' } });
      assert.equal(category.statusCode, 201, category.body);
      const id = category.json().id;
      const event = await createEvent(h(), {
        categories: [id],
        start_date: '2033-04-10 10:00:00',
        end_date: '2033-04-10 11:00:00',
      });
      const query = { start_date: '2033-04-01', end_date: '2033-04-30' };
      // The process's term snapshot holds the old name at the current version.
      const warm = await h().request('GET', '/events', { query: { ...query, warm: '1' } });
      assert.equal(warm.json().events[0].categories[0].name, 'Race old');
      // The rename commits right after the statement that reads the cursor and the version, before anything else of
      // the list (no version is read on its own before it: a rename between the two cannot happen).
      const race = writeAfterNextStatement(h().store, /max\("seq"\).*data_version/s, async () => {
        const renamed = await h().request('POST', `/categories/${id}`, {
          as: h().users.editor,
          body: { name: 'Race new' },
        });
        assert.equal(renamed.statusCode, 200, renamed.body);
      });
      let cursor: string;
      try {
        const list = await h().request('GET', '/events', { query });
        assert.equal(list.statusCode, 200, list.body);
        assert.ok(race.fired, 'the rename ran inside the list request');
        cursor = list.headers['x-sync-cursor'] as string;
        assert.ok(cursor, 'the list sends its cursor');
      } finally {
        race.restore();
      }
      // Whatever name the list showed, the rename is after its cursor: following /changes from it tells the client
      // about the event again.
      const changes = await h().request('GET', '/changes', { query: { since: cursor } });
      assert.equal(changes.statusCode, 200, changes.body);
      const entry = (changes.json().changes as { type: string; id: number; item?: Record<string, any> }[]).find(
        (change) => change.type === 'event' && change.id === event.id,
      );
      assert.equal(entry?.item?.categories[0].name, 'Race new', changes.body);
      // And the next answer, at the version after the rename, shows it.
      const next = await h().request('GET', '/events', { query });
      assert.equal(next.json().events[0].categories[0].name, 'Race new');
    });

    it('ignores documents of another fingerprint and renders them again in the background', async () => {
      const venue = await createLinked(h(), 'venues', { venue: 'Hall' });
      const event = await createEvent(h(), { venue: { id: venue.id } });
      await change(h(), sql`update event_documents set fingerprint = 'old', item = '{"stale":true}'`);
      await change(h(), sql`update linked_documents set fingerprint = 'old'`);
      const answer = await assertSameAsLive(h(), event.id);
      assert.equal(answer.id, event.id, 'a stale document is never served');

      const run = await renderStaleDocuments(h().store, h().config);
      assert.ok(run.events >= 1 && run.linked >= 1, JSON.stringify(run));
      await assertServedFromDocument(h(), event.id);
      await assertSameAsLive(h(), event.id);
      const again = await renderStaleDocuments(h().store, h().config);
      assert.deepEqual([again.events, again.linked], [0, 0], 'nothing left');
    });
  },
  // The item cache, which would answer a second read of an event before its document, is left out: the documents are
  // what is under test.
  { ITEM_CACHE_BYTES: '0' },
);
