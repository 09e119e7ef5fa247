// D26 .ics import, many units to a transaction: each unit still checked as the API checks it, a refused one reported
// with its reason and nothing of it written (also when it is refused after it wrote), the others written as one
// createEvent/updateEvent each would write them, in a bounded number of statements. On both databases.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Role } from '../../src/domain/access.ts';
import { onChangesRecorded } from '../../src/core/change-log/log.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { importCalendar, parseCalendar, UNITS_PER_TRANSACTION, type ImportReport } from '../../src/ical/import.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachDatabase, type Credentials, type Harness } from '../helpers/harness.ts';
import { everyStatementDuring } from '../helpers/queries.ts';

/** A VCALENDAR of these VEVENTs (each given as its property lines, without BEGIN/END). */
const calendar = (...events: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//batch//EN',
    ...events.flatMap((lines) => ['BEGIN:VEVENT', 'DTSTAMP:20270101T000000Z', ...lines, 'END:VEVENT']),
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/** A VCALENDAR of `count` VEVENTs, the N-th with UID `<prefix>-N@example.com` and the lines `linesOf(N)` gives. */
const generated = (prefix: string, count: number, linesOf: (index: number) => string[]) =>
  calendar(...Array.from({ length: count }, (_, index) => [`UID:${prefix}-${index}@example.com`, ...linesOf(index)]));

/** The N-th generated event's day of the month (1–28) and hour (8–17), as `DDTHH0000`. */
const dayAndHour = (index: number) =>
  `${String(1 + (index % 28)).padStart(2, '0')}T${String(8 + (index % 10)).padStart(2, '0')}0000`;

const event = (uid: string, summary: string, ...more: string[]) => [
  `UID:${uid}`,
  `SUMMARY:${summary}`,
  'DTSTART;TZID=Europe/Berlin:20270610T190000',
  'DTEND;TZID=Europe/Berlin:20270610T210000',
  ...more,
];

const importText = (h: Harness, text: string, as: Credentials, store: Store = h.store): Promise<ImportReport> =>
  importCalendar(store, h.config, parseCalendar(text), { viewer: { id: as.id, role: as.role as Role } });

/** The change log's rows after `seq`. */
const changesAfter = async (h: Harness, seq: number) =>
  (await h.store.db.selectFrom('changes').selectAll().where('seq', '>', seq).orderBy('seq').execute()).map(
    ({ type, id, action }) => ({ type, id, action }),
  );

const lastSeq = async (h: Harness) =>
  Number(
    (
      await h.store.db
        .selectFrom('changes')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst()
    )?.seq ?? 0,
  );

const postsTitled = async (h: Harness, type: 'event' | 'venue' | 'organizer', title: string) =>
  h.store.db.selectFrom('posts').selectAll().where('type', '=', type).where('title', '=', title).execute();

const eventIdOf = async (h: Harness, uid: string) =>
  (await h.store.db.selectFrom('events').select('id').where('ical_uid', '=', uid).executeTakeFirst())?.id;

/** How many statements `store` sends while `run` runs, its transactions' included (helpers/queries.ts). */
const statementsDuring = async (store: Store, run: () => Promise<unknown>): Promise<number> =>
  (await everyStatementDuring(store, run)).length;

describeEachDatabase('.ics import in batches (D26)', (h) => {
  it('refuses units of a transaction with their reasons, writes the others, and nothing of the refused ones', async () => {
    const before = await lastSeq(h());
    const report = await importText(
      h(),
      calendar(
        event('batch-a@example.com', 'Batch A', 'LOCATION:Batch Hall', 'CATEGORIES:Batch category'),
        ['UID:batch-b@example.com', 'SUMMARY:Batch B', 'LOCATION:Only B Hall'],
        [
          'UID:batch-c@example.com',
          'SUMMARY:Batch C',
          'DTSTART;TZID=Mars/Olympus_Mons:20270610T190000',
          'LOCATION:Only C Hall',
        ],
        event('batch-d@example.com', 'Batch D', 'LOCATION:Batch Hall', 'ORGANIZER;CN=Batch Org:mailto:org@example.com'),
        [
          'UID:batch-e@example.com',
          'SUMMARY:Batch E',
          'DTSTART;TZID=Europe/Berlin:20270610T190000',
          'DTEND;TZID=Europe/Berlin:20270610T180000',
          'LOCATION:Only E Hall',
          'CATEGORIES:Only E category',
        ],
        event('batch-f@example.com', 'Batch F', 'RRULE:FREQ=SECONDLY;COUNT=3', 'LOCATION:Only F Hall'),
        event('batch-g@example.com', 'Batch G', 'CATEGORIES:Batch category'),
      ),
      h().users.administrator,
    );
    assert.deepEqual(report.created, ['batch-a@example.com', 'batch-d@example.com', 'batch-g@example.com']);
    assert.deepEqual(
      report.refused.map(({ uid }) => uid),
      ['batch-b@example.com', 'batch-c@example.com', 'batch-e@example.com', 'batch-f@example.com'],
    );
    const reasons = Object.fromEntries(report.refused.map(({ uid, reason }) => [uid, reason]));
    assert.equal(reasons['batch-b@example.com'], 'the VEVENT has no DTSTART');
    assert.match(reasons['batch-c@example.com'], /unknown time zone "Mars\/Olympus_Mons"/);
    assert.match(reasons['batch-e@example.com'], /end_date must not be before start_date/);
    assert.match(reasons['batch-f@example.com'], /recurrence/);

    for (const uid of ['b', 'c', 'e', 'f'].map((unit) => `batch-${unit}@example.com`))
      assert.equal(await eventIdOf(h(), uid), undefined, uid);
    for (const title of ['Only B Hall', 'Only C Hall', 'Only E Hall', 'Only F Hall'])
      assert.equal((await postsTitled(h(), 'venue', title)).length, 0, title);
    assert.equal(
      (await h().store.db.selectFrom('terms').select('id').where('name', '=', 'Only E category').execute()).length,
      0,
    );
    const [hall] = await postsTitled(h(), 'venue', 'Batch Hall');
    const [org] = await postsTitled(h(), 'organizer', 'Batch Org');
    const a = await eventIdOf(h(), 'batch-a@example.com');
    const d = await eventIdOf(h(), 'batch-d@example.com');
    const g = await eventIdOf(h(), 'batch-g@example.com');
    const category = await h()
      .store.db.selectFrom('terms')
      .select(['id', 'published_count'])
      .where('name', '=', 'Batch category')
      .executeTakeFirstOrThrow();
    assert.equal(category.published_count, 2, 'both events count for their category');
    // Read back as the API serves them: one venue for one LOCATION, within one transaction too.
    const read = async (id: number | undefined) =>
      (await h().request('GET', `/events/${id}`, { as: h().users.administrator })).json();
    assert.equal((await read(a)).venue.id, hall.id);
    assert.equal((await read(d)).venue.id, hall.id);
    assert.deepEqual(
      (await read(d)).organizer.map((organizer: { id: number }) => organizer.id),
      [org.id],
    );
    assert.deepEqual(
      (await read(g)).categories.map((term: { id: number }) => term.id),
      [category.id],
    );
    // The change log: one change per item written, none for what was refused.
    const changes = await changesAfter(h(), before);
    assert.deepEqual(
      [...changes].sort((x, y) => `${x.type}${x.id}`.localeCompare(`${y.type}${y.id}`)),
      [
        { type: 'category', id: category.id, action: 'created' },
        { type: 'event', id: a!, action: 'created' },
        { type: 'event', id: d!, action: 'created' },
        { type: 'event', id: g!, action: 'created' },
        { type: 'organizer', id: org.id, action: 'created' },
        { type: 'venue', id: hall.id, action: 'created' },
      ].sort((x, y) => `${x.type}${x.id}`.localeCompare(`${y.type}${y.id}`)),
    );
  });

  it('refuses a contributor the categories she may not create, unit by unit, and writes her others', async () => {
    const report = await importText(
      h(),
      calendar(
        event('contrib-a@example.com', 'Contributed A', 'CATEGORIES:Batch category'),
        event('contrib-b@example.com', 'Contributed B', 'CATEGORIES:Batch category,Brand new category'),
        event('contrib-c@example.com', 'Contributed C'),
      ),
      h().users.contributor,
    );
    assert.deepEqual(report.created, ['contrib-a@example.com', 'contrib-c@example.com']);
    assert.deepEqual(
      report.refused.map(({ uid }) => uid),
      ['contrib-b@example.com'],
    );
    assert.match(
      report.refused[0].reason,
      /categories: "Brand new category" does not exist, and you are not allowed to create it\./,
    );
    assert.equal(await eventIdOf(h(), 'contrib-b@example.com'), undefined);
  });

  it('rolls back only the unit that fails after it wrote: the others of its transaction are written', async () => {
    const before = await lastSeq(h());
    // A failure injected in the middle of a unit's writes: its new venue is written, then its new organizer fails.
    const failing: Store = {
      ...h().store,
      lock: async (trx, key) => {
        if (key === 'organizer-name:boom organizer')
          throw new DomainError('invalid', 'injected', 'injected failure after the venue was written');
        return h().store.lock(trx, key);
      },
      // The transaction's new organizers are written together first: that fails too, is undone, and each event then
      // writes its own, the failing one refused alone.
      lockAll: async (trx, keys) => {
        if (keys.includes('organizer-name:boom organizer'))
          throw new DomainError('invalid', 'injected', 'injected failure after the venues were written');
        return h().store.lockAll(trx, keys);
      },
    };
    const report = await importText(
      h(),
      calendar(
        event('mid-x@example.com', 'Mid X', 'LOCATION:Mid Hall X', 'ORGANIZER;CN=Mid Org X:mailto:x@example.com'),
        event('mid-y@example.com', 'Mid Y', 'LOCATION:Boom Hall', 'ORGANIZER;CN=Boom Organizer:mailto:b@example.com'),
        event('mid-z@example.com', 'Mid Z', 'LOCATION:Mid Hall Z'),
      ),
      h().users.administrator,
      failing,
    );
    assert.deepEqual(report.created, ['mid-x@example.com', 'mid-z@example.com']);
    assert.deepEqual(report.refused, [
      { uid: 'mid-y@example.com', reason: 'injected failure after the venue was written' },
    ]);
    assert.equal(await eventIdOf(h(), 'mid-y@example.com'), undefined);
    assert.equal((await postsTitled(h(), 'venue', 'Boom Hall')).length, 0, 'the venue it wrote is rolled back');
    assert.equal((await postsTitled(h(), 'venue', 'Mid Hall X')).length, 1);
    assert.equal((await postsTitled(h(), 'venue', 'Mid Hall Z')).length, 1);
    const changes = await changesAfter(h(), before);
    assert.equal(changes.filter((change) => change.type === 'event').length, 2, 'one change per event written');
    assert.equal(changes.filter((change) => change.type === 'venue').length, 2);
    for (const change of changes) {
      const table = change.type === 'category' || change.type === 'tag' ? 'terms' : 'posts';
      assert.ok(
        await (h().store.db as Kysely<any>)
          .selectFrom(table)
          .select('id')
          .where('id', '=', change.id)
          .executeTakeFirst(),
        `the logged ${change.type} ${change.id} exists`,
      );
    }

    // Refused by the events service itself after it wrote: a contributor's update that names a category she may
    // not create is refused by the write after the event's own row changed.
    const contributor = h().users.contributor;
    const v1 = calendar(
      event('upd-1@example.com', 'Update one', 'CATEGORIES:Batch category'),
      event('upd-2@example.com', 'Update two', 'CATEGORIES:Batch category'),
      event('upd-3@example.com', 'Update three', 'CATEGORIES:Batch category'),
    );
    assert.equal((await importText(h(), v1, contributor)).created.length, 3);
    const beforeUpdate = await lastSeq(h());
    const v2 = calendar(
      event('upd-1@example.com', 'Update one, renamed', 'CATEGORIES:Batch category'),
      event('upd-2@example.com', 'Update two, renamed', 'LOCATION:Hall of the refused', 'CATEGORIES:Never seen'),
      event('upd-3@example.com', 'Update three, renamed', 'CATEGORIES:Batch category'),
    );
    const updated = await importText(h(), v2, contributor);
    assert.deepEqual(updated.updated, ['upd-1@example.com', 'upd-3@example.com']);
    assert.deepEqual(
      updated.refused.map(({ uid }) => uid),
      ['upd-2@example.com'],
    );
    assert.match(updated.refused[0].reason, /"Never seen" does not exist, and you are not allowed to create it/);
    assert.equal((await postsTitled(h(), 'event', 'Update two')).length, 1, 'the refused update left its event');
    assert.equal((await postsTitled(h(), 'event', 'Update two, renamed')).length, 0);
    assert.equal((await postsTitled(h(), 'venue', 'Hall of the refused')).length, 0);
    const ids = [await eventIdOf(h(), 'upd-1@example.com'), await eventIdOf(h(), 'upd-3@example.com')];
    assert.deepEqual(
      (await changesAfter(h(), beforeUpdate)).filter((change) => change.type === 'event'),
      ids.map((id) => ({ type: 'event', id, action: 'updated' })),
    );
    // The refused unit is tried again by the next import (its digest was not stored), the others are unchanged.
    const again = await importText(h(), v2, contributor);
    assert.deepEqual(again.unchanged, ['upd-1@example.com', 'upd-3@example.com']);
    assert.deepEqual(
      again.refused.map(({ uid }) => uid),
      ['upd-2@example.com'],
    );
  });

  it('leaves nothing of a transaction whose commit fails, and keeps what another transaction wrote', async () => {
    const store = await h().openAnotherStore();
    let transactions = 0;
    // What runs between a transaction's work and its commit fails on the second transaction to get there.
    const stop = onChangesRecorded(store, async () => {
      if (++transactions === 2) throw new Error('the commit failed');
    });
    const before = await lastSeq(h());
    const units = Array.from({ length: UNITS_PER_TRANSACTION + 50 }, (_, index) =>
      event(`commit-${index}@example.com`, `Commit ${index}`, `LOCATION:Commit Hall ${index}`),
    );
    try {
      await assert.rejects(importText(h(), calendar(...units), h().users.administrator, store), /the commit failed/);
    } finally {
      stop();
      await store.close();
    }
    const written = new Set(
      (await h().store.db.selectFrom('events').select('ical_uid').where('ical_uid', 'like', 'commit-%').execute()).map(
        (row) => row.ical_uid,
      ),
    );
    // The two ranges of units (the first UNITS_PER_TRANSACTION, then 50): one after the other on SQLite, at once where
    // the store keeps two batch transactions in flight (PostgreSQL), where either may get to its commit first.
    const ranges = [
      { from: 0, to: UNITS_PER_TRANSACTION },
      { from: UNITS_PER_TRANSACTION, to: UNITS_PER_TRANSACTION + 50 },
    ];
    const kept = ranges.filter(({ from }) => written.has(`commit-${from}@example.com`));
    assert.equal(kept.length, 1, 'one transaction stays, the other leaves nothing');
    if (h().store.batchConcurrency === 1) assert.equal(kept[0].from, 0, 'the first transaction stays');
    const [stays] = kept;
    const lost = ranges.find((range) => range !== stays)!;
    assert.equal(written.size, stays.to - stays.from);
    for (let index = stays.from; index < stays.to; index++) assert.ok(written.has(`commit-${index}@example.com`));
    assert.equal(await eventIdOf(h(), `commit-${lost.from}@example.com`), undefined);
    assert.equal((await postsTitled(h(), 'venue', `Commit Hall ${lost.from}`)).length, 0);
    assert.equal((await postsTitled(h(), 'venue', `Commit Hall ${lost.to - 1}`)).length, 0);
    assert.equal((await postsTitled(h(), 'venue', `Commit Hall ${stays.to - 1}`)).length, 1);
    const changes = await changesAfter(h(), before);
    assert.equal(changes.filter((change) => change.type === 'event').length, stays.to - stays.from);
    assert.equal(changes.filter((change) => change.type === 'venue').length, stays.to - stays.from);
  });

  it('writes as many ranges at once as the store keeps batch transactions in flight, and reports in the file’s order', async () => {
    const store = h().store;
    let inFlight = 0;
    let most = 0;
    // The store the import writes through, its batch transactions counted as they run.
    const counted: Store = {
      ...store,
      batchTransaction: async (work) => {
        most = Math.max(most, ++inFlight);
        try {
          return await store.batchTransaction(work);
        } finally {
          inFlight--;
        }
      },
    };
    // Three ranges, sharing a venue, an organizer and a category that none of them finds: each is written once.
    const units = Array.from({ length: 2 * UNITS_PER_TRANSACTION + 20 }, (_, index) =>
      event(
        `order-${index}@example.com`,
        `In order ${index}`,
        'LOCATION:Shared Order Hall',
        'ORGANIZER;CN=Shared Order Org:mailto:order@example.com',
        'CATEGORIES:Shared order category',
      ),
    );
    const report = await importText(h(), calendar(...units), h().users.administrator, counted);
    assert.equal(most, store.batchConcurrency);
    assert.deepEqual(
      report.created,
      units.map((_, index) => `order-${index}@example.com`),
    );
    assert.deepEqual(report.refused, []);
    assert.equal((await postsTitled(h(), 'venue', 'Shared Order Hall')).length, 1);
    assert.equal((await postsTitled(h(), 'organizer', 'Shared Order Org')).length, 1);
    const category = await h().request('GET', '/categories', { query: { search: 'Shared order category' } });
    assert.deepEqual(
      category.json().categories.map((term: { count: number }) => term.count),
      [units.length],
    );
  });

  it('writes a new event as POST /events writes the same fields', async () => {
    const admin = h().users.administrator;
    const report = await importText(
      h(),
      calendar(
        event(
          'same-1@example.com',
          'Same as posted',
          'DESCRIPTION:Bring a friend\\, or two.',
          'LOCATION:Batch Hall',
          'ORGANIZER;CN=Batch Org:mailto:org@example.com',
          'CATEGORIES:Batch category',
          'RRULE:FREQ=WEEKLY;COUNT=3',
        ),
      ),
      admin,
    );
    assert.deepEqual(report.created, ['same-1@example.com']);
    const imported = (
      await h().request('GET', `/events/${await eventIdOf(h(), 'same-1@example.com')}`, { as: admin })
    ).json();
    const posted = await h().request('POST', '/events', {
      as: admin,
      body: {
        title: 'Same as posted',
        description: 'Bring a friend, or two.',
        start_date: '2027-06-10 19:00:00',
        end_date: '2027-06-10 21:00:00',
        timezone: 'Europe/Berlin',
        all_day: false,
        status: 'publish',
        categories: ['Batch category'],
        venue: { id: imported.venue.id },
        organizer: [{ id: imported.organizer[0].id }],
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      },
    });
    assert.equal(posted.statusCode, 201, posted.body);
    const created = (await h().request('GET', `/events/${posted.json().id}`, { as: admin })).json();
    // What depends on the id, the slug or the moment of the write aside, the two are the same.
    const volatile = new Set(['id', 'series_id', 'global_id', 'global_id_lineage', 'slug', 'url', 'rest_url']);
    for (const key of ['date', 'date_utc', 'modified', 'modified_utc', 'json_ld', 'count', 'website'])
      volatile.add(key);
    const comparable = (object: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(object, (key, value) => (volatile.has(key) ? undefined : value)));
    assert.deepEqual(comparable(imported), comparable(created));
    const occurrences = async (id: number) =>
      (await h().store.db.selectFrom('events').select('id').where('series_id', '=', id).execute()).length;
    assert.equal(await occurrences(imported.id), 3);
    assert.equal(await occurrences(created.id), 3);
  });

  it('writes a transaction of new events in a bounded number of statements, whatever their number', async () => {
    const admin = h().users.administrator;
    const names = (index: number) => [
      `LOCATION:Counted Hall ${index % 7}`,
      `ORGANIZER;CN=Counted Org ${index % 5}:mailto:org${index % 5}@example.com`,
      `CATEGORIES:Counted ${index % 4}`,
    ];
    const file = (prefix: string, count: number) =>
      generated(prefix, count, (index) => [
        `SUMMARY:Counted ${prefix} ${index}`,
        `DTSTART;TZID=America/New_York:202708${dayAndHour(index)}`,
        'DURATION:PT2H',
        `DESCRIPTION:Number ${index}.`,
        ...names(index),
      ]);
    // The venues, organizers and categories first, so that the count is that of events linking existing ones.
    assert.equal((await importText(h(), file('first', 20), admin)).created.length, 20);
    const events = 400;
    // A store of the import's own: what the service's store follows its recorded changes with (stored documents,
    // counts) is that follower's work, counted by its own tests.
    const store = await h().openAnotherStore();
    try {
      let report: ImportReport | undefined;
      const statements = await statementsDuring(store, async () => {
        report = await importText(h(), file('counted', events), admin, store);
      });
      assert.equal(report!.created.length, events);
      // Per transaction of up to UNITS_PER_TRANSACTION units: its reads of UIDs, names and terms, its few inserts, the term counts and
      // the change log; nothing per event.
      assert.ok(statements <= 0.25 * events, `${statements} statements for ${events} events`);
    } finally {
      await store.close();
    }
  });

  it('keeps the documents and counts of new events without reading them back, each document as the live render', async () => {
    const admin = h().users.administrator;
    const file = (prefix: string, count: number) =>
      generated(prefix, count, (index) => [
        `SUMMARY:Followed ${prefix} ${index}`,
        `DTSTART;TZID=Asia/Tokyo:202710${dayAndHour(index)}`,
        'DURATION:PT90M',
        `DESCRIPTION:Number ${index}\\, with <b>markup</b>.`,
        `LOCATION:Followed Hall ${index % 6}`,
        `ORGANIZER;CN=Followed Org ${index % 4}:mailto:followed${index % 4}@example.com`,
        `CATEGORIES:Followed ${index % 3},Followed shared`,
        // One series among them: its occurrences are read by the followers, the other new events still not.
        ...(index === 7 ? ['RRULE:FREQ=WEEKLY;COUNT=3'] : []),
      ]);
    // The venues, organizers and categories first: the count is then that of events linking existing ones.
    assert.equal((await importText(h(), file('early', 12), admin)).created.length, 12);
    const events = 300;
    let report: ImportReport | undefined;
    // The service's own store: the stored documents' renderer and the counts follow its transactions.
    const statements = await statementsDuring(h().store, async () => {
      report = await importText(h(), file('batched', events), admin);
    });
    assert.equal(report!.created.length, events);
    // The followers read what the events link to and the series' occurrences, not the other events the transaction
    // wrote (they were told how it left them): 40 statements on SQLite and 57 on PostgreSQL; 70 and 87 when they read
    // every event of a transaction back once one of them was not a batch create.
    assert.ok(statements <= 0.2 * events, `${statements} statements for ${events} events`);
    const ids = await h()
      .store.db.selectFrom('events')
      .select('id')
      .where('ical_uid', 'like', 'batched-%')
      .orderBy('id')
      .execute();
    assert.equal(ids.length, events);
    const documents = await h()
      .store.db.selectFrom('event_documents')
      .select('event_id')
      .where(
        'event_id',
        'in',
        ids.map(({ id }) => id),
      )
      .execute();
    assert.equal(documents.length, events, 'every new event has its document');
    for (const { id } of [ids[0], ids[137], ids[events - 1]]) {
      const stored = await h().request('GET', `/events/${id}`);
      const live = await h().request('GET', `/events/${id}`, { query: { context: 'view' } });
      assert.equal(stored.statusCode, 200, stored.body);
      assert.equal(stored.body, live.body);
      assert.equal(stored.headers.etag, live.headers.etag);
    }
    const shared = await h().request('GET', '/categories', { query: { search: 'Followed shared' } });
    assert.deepEqual(
      shared.json().categories.map((term: { count: number }) => term.count),
      [12 + events],
    );
    const listed = await h().request('GET', '/events', {
      query: { search: 'batched', start_date: '2027-10-01', end_date: '2027-10-31 23:59:59', per_page: '50' },
    });
    assert.equal(listed.statusCode, 200, listed.body);
    // The series lists each of its three occurrences.
    assert.equal(listed.headers['x-wp-total'], String(events + 2));
    // A window's total is a sum of the counts the import wrote (many rows a transaction, through the row writer).
    const month = await h().request('GET', '/events', {
      query: { start_date: '2027-10-01', end_date: '2027-10-31 23:59:59', per_page: '1' },
    });
    // Each file's eighth event is the series.
    assert.equal(month.headers['x-wp-total'], String(12 + 2 + events + 2));
  });

  it('writes the new venues and organizers of a transaction together, one per name, whatever their number', async () => {
    const admin = h().users.administrator;
    const events = 300;
    // Each event names a venue of its own, except that every tenth shares the previous one's (in other letter case);
    // organizers are shared by three.
    const venueOf = (index: number) => (index % 10 === 9 ? `FRESH HALL ${index - 1}` : `Fresh Hall ${index}`);
    const text = calendar(
      ...Array.from({ length: events }, (_, index) => [
        `UID:fresh-${index}@example.com`,
        `SUMMARY:Fresh ${index}`,
        `DTSTART;TZID=Europe/Rome:202709${String(1 + (index % 28)).padStart(2, '0')}T190000`,
        'DURATION:PT2H',
        `LOCATION:${venueOf(index)}`,
        `ORGANIZER;CN=Fresh Org ${Math.floor(index / 3)}:mailto:fresh${Math.floor(index / 3)}@example.com`,
      ]),
    );
    const store = await h().openAnotherStore();
    try {
      let report: ImportReport | undefined;
      const statements = await statementsDuring(store, async () => {
        report = await importText(h(), text, admin, store);
      });
      assert.equal(report!.created.length, events);
      // A new item cost several statements each when every event wrote its own (a lock, a duplicate check, a slug,
      // the post, its row): 270 venues and 100 organizers would be over a thousand.
      assert.ok(statements <= 0.25 * events, `${statements} statements for ${events} events`);
    } finally {
      await store.close();
    }
    const venueIdOf = async (uid: string) =>
      (await h().store.db.selectFrom('events').select('venue_id').where('ical_uid', '=', uid).executeTakeFirstOrThrow())
        .venue_id;
    for (const index of [8, 18, 298]) {
      assert.equal((await postsTitled(h(), 'venue', `Fresh Hall ${index}`)).length, 1, `one venue Fresh Hall ${index}`);
      assert.equal(await venueIdOf(`fresh-${index + 1}@example.com`), await venueIdOf(`fresh-${index}@example.com`));
    }
    const venues = await h()
      .store.db.selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'venue')
      .where('title', 'like', 'Fresh Hall %')
      .executeTakeFirstOrThrow();
    assert.equal(Number(venues.n), 270);
    const organizers = await h()
      .store.db.selectFrom('event_organizers')
      .innerJoin('events', 'events.id', 'event_organizers.event_id')
      .select('event_organizers.organizer_id')
      .distinct()
      .where('events.ical_uid', 'like', 'fresh-%')
      .execute();
    assert.equal(organizers.length, 100);
  });
});
