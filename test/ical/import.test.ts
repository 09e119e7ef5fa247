// D26 `npm run cli -- import <file.ics>` on hand-written exports in the formats of Google Calendar, Outlook/Exchange and
// Apple Calendar, bad input, and a round trip through our own feed; on both databases, read back through HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, it } from 'node:test';
import { runCli } from '../../src/cli/main.ts';
import { ImportFileError, legacyUnitDigest, parseCalendar } from '../../src/ical/import.ts';
import { runImportCommand } from '../../src/ical/import-command.ts';
import { createHarness, describeEachDatabase, type Harness } from '../helpers/harness.ts';
import { getFeed } from './support.ts';
import { rowCount } from '../helpers/queries.ts';

const FIXTURES = new URL('../fixtures/ical/', import.meta.url);
const fixture = (name: string) => new URL(name, FIXTURES).pathname;

describeEachDatabase('.ics import (D26)', (h) => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'ics-import-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  const run = async (harness: Harness, file: string) => {
    const lines: string[] = [];
    await runCli(['import', file], harness.store, (line) => lines.push(line), harness.config);
    return lines;
  };
  const events = async (harness: Harness = h()) =>
    (
      await harness.request('GET', '/events', {
        as: harness.users.administrator,
        query: { start_date: '2027-01-01', per_page: 100 },
      })
    ).json().events as Array<Record<string, any>>;
  const byTitle = async (title: string) => (await events()).filter((event) => event.title === title);
  const eventCount = () => rowCount(h().store, 'events');

  it('imports a Google Calendar export (CRLF, X-WR-TIMEZONE, UTC and DATE values, folded lines, a series with an exception)', async () => {
    assert.match(readFileSync(fixture('google.ics'), 'utf8'), /\r\n /, 'the fixture has CRLF and folded lines');
    const lines = await run(h(), fixture('google.ics'));
    assert.match(lines[0], /google\.ics: 4 created, 0 updated, 0 unchanged, 0 refused$/);
    const [jazz] = await byTitle('Jazz night');
    assert.deepEqual(
      [jazz.start_date, jazz.end_date, jazz.timezone, jazz.utc_start_date],
      ['2027-05-10 19:00:00', '2027-05-10 21:30:00', 'Europe/Berlin', '2027-05-10 17:00:00'],
    );
    assert.equal(jazz.status, 'publish');
    assert.match(jazz.description, /new compositions by local musicians\. Doors open at 18:30\./);
    assert.match(jazz.description, /cash only\./);
    assert.deepEqual(
      jazz.organizer.map((organizer: any) => [organizer.organizer, organizer.email]),
      [['Community Centre', 'events@community.example']],
    );
    // A time in UTC is shown in the calendar's zone (X-WR-TIMEZONE).
    const [slam] = await byTitle('Poetry slam');
    assert.deepEqual(
      [slam.start_date, slam.timezone, slam.utc_start_date],
      ['2027-05-12 18:00:00', 'Europe/Berlin', '2027-05-12 16:00:00'],
    );
    assert.equal(slam.venue.id, jazz.venue.id, 'one venue for one LOCATION');
    assert.equal(jazz.venue.venue, 'Kulturhaus, Hauptstraße 12, 10827 Berlin, Germany');
    const [festival] = await byTitle('Street food festival');
    assert.deepEqual(
      [festival.all_day, festival.start_date, festival.end_date],
      [true, '2027-06-01 00:00:00', '2027-06-02 23:59:59'],
    );
    const choir = (await events()).filter((event) => event.series_id !== null && event.recurrence.length > 0);
    assert.deepEqual(
      choir.map((event) => [event.title, event.start_date]),
      [
        ['Weekly choir rehearsal', '2027-05-03 18:00:00'],
        ['Choir rehearsal (one hour later)', '2027-05-10 19:00:00'],
        ['Weekly choir rehearsal', '2027-05-17 18:00:00'],
        ['Weekly choir rehearsal', '2027-05-24 18:00:00'],
      ],
    );
    assert.deepEqual(choir[0].recurrence, ['RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=MO']);
  });

  it('changes nothing when the same file is imported again, and updates in place from an updated file', async () => {
    const before = JSON.stringify(await events());
    const count = await eventCount();
    const lines = await run(h(), fixture('google.ics'));
    assert.match(lines[0], /0 created, 0 updated, 4 unchanged, 0 refused$/);
    assert.equal(JSON.stringify(await events()), before, 'not a byte of any event changed');
    assert.equal(await eventCount(), count);

    const [jazz] = await byTitle('Jazz night');
    const updated = readFileSync(fixture('google.ics'), 'utf8')
      .replace('SUMMARY:Jazz night', 'SUMMARY:Jazz night (moved)')
      .replace(
        'DTSTART;TZID=Europe/Berlin:20270510T190000\r\nDTEND;TZID=Europe/Berlin:20270510T213000',
        'DTSTART;TZID=Europe/Berlin:20270511T200000\r\nDTEND;TZID=Europe/Berlin:20270511T223000',
      )
      .replace(/DTSTAMP:\d{8}T\d{6}Z/g, 'DTSTAMP:20270401T000000Z');
    const file = join(directory, 'google-updated.ics');
    writeFileSync(file, updated);
    assert.match((await run(h(), file))[0], /0 created, 1 updated, 3 unchanged, 0 refused$/);
    const [moved] = await byTitle('Jazz night (moved)');
    assert.deepEqual([moved.id, moved.start_date], [jazz.id, '2027-05-11 20:00:00']);
    assert.equal(await eventCount(), count);
  });

  it('finds unchanged the units an earlier version of the import stored under its digest of the written-out text', async () => {
    const text = readFileSync(fixture('google.ics'), 'utf8');
    const units = parseCalendar(text).units;
    // What the import stored before its digest took its present form: each event's digest as that version made it.
    await h().store.transaction(async (trx) => {
      for (const unit of units)
        await trx
          .updateTable('events')
          .set({ ical_hash: legacyUnitDigest(unit) })
          .where('ical_uid', '=', unit.uid)
          .execute();
    });
    const legacy = await h()
      .store.db.selectFrom('events')
      .select('ical_hash')
      .where(
        'ical_uid',
        'in',
        units.map((unit) => unit.uid),
      )
      .execute();
    assert.ok(legacy.length >= units.length && legacy.every((row) => !row.ical_hash?.startsWith('j1:')));
    const before = JSON.stringify(await events());
    assert.match((await run(h(), fixture('google.ics')))[0], /0 created, 0 updated, 4 unchanged, 0 refused$/);
    assert.equal(JSON.stringify(await events()), before, 'not a byte of any event changed');
    // A changed unit is updated, and stores the present form.
    const file = join(directory, 'google-retitled.ics');
    writeFileSync(file, text.replace('SUMMARY:Jazz night', 'SUMMARY:Jazz night (retitled)'));
    assert.match((await run(h(), file))[0], /0 created, 1 updated, 3 unchanged, 0 refused$/);
    const [retitled] = await byTitle('Jazz night (retitled)');
    const stored = await h()
      .store.db.selectFrom('events')
      .select('ical_hash')
      .where('id', '=', retitled.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.ical_hash ?? '', /^j1:/);
  });

  it('imports an Outlook/Exchange export: Windows zone names, quoted TZIDs, all-day events, categories', async () => {
    const lines = await run(h(), fixture('outlook.ics'));
    assert.match(lines[0], /3 created, 0 updated, 0 unchanged, 0 refused$/);
    const [review] = await byTitle('Roadmap review');
    assert.deepEqual(
      [review.timezone, review.start_date, review.utc_start_date],
      ['Europe/Berlin', '2027-05-20 10:00:00', '2027-05-20 08:00:00'],
    );
    assert.deepEqual(review.categories.map((term: any) => term.name).sort(), ['Business', 'Planning']);
    assert.equal(review.venue.venue, 'Conference room Zürich');
    assert.match(review.description, /Agenda:.*1\. Results.*2\. Plans/s);
    const [sync] = await byTitle('West coast sync');
    assert.deepEqual([sync.timezone, sync.utc_start_date], ['America/Los_Angeles', '2027-05-21 16:00:00']);
    const [offsite] = await byTitle('Company offsite');
    assert.deepEqual(
      [offsite.all_day, offsite.start_date, offsite.end_date],
      [true, '2027-06-14 00:00:00', '2027-06-14 23:59:59'],
    );
  });

  it('imports an Apple Calendar export: LF line ends, structured locations, floating times, DATE-only events', async () => {
    assert.doesNotMatch(readFileSync(fixture('apple.ics'), 'utf8'), /\r/, 'the fixture has bare LF line ends');
    const venue = (
      await h().request('POST', '/venues', { as: h().users.administrator, body: { venue: 'the fillmore' } })
    ).json();
    assert.match((await run(h(), fixture('apple.ics')))[0], /3 created, 0 updated, 0 unchanged, 0 refused$/);
    const [concert] = await byTitle('Concert at the Fillmore');
    assert.deepEqual(
      [concert.timezone, concert.start_date, concert.utc_start_date],
      ['America/Los_Angeles', '2027-05-22 19:30:00', '2027-05-23 02:30:00'],
    );
    assert.equal(concert.venue.id, venue.id, 'an existing venue of an equal name is reused');
    const [brunch] = await byTitle('Brunch (floating time)');
    assert.deepEqual(
      [brunch.timezone, brunch.start_date, brunch.utc_start_date],
      ['America/Los_Angeles', '2027-05-23 10:30:00', '2027-05-23 17:30:00'],
    );
    assert.match(
      brunch.description,
      /folds over several lines, exactly as RFC 5545 section 3\.1 says: the break is followed by a single space\./,
    );
    const [holiday] = await byTitle('Independence Day');
    assert.deepEqual(
      [holiday.all_day, holiday.start_date, holiday.end_date],
      [true, '2027-07-04 00:00:00', '2027-07-04 23:59:59'],
    );
  });

  it('serves every imported fixture in a feed that ical.js parses, under the UIDs of the files', async () => {
    const feed = await getFeed(h(), '/events.ics', {
      as: h().users.administrator,
      query: { start_date: '2027-01-01', end_date: '2027-12-31' },
    });
    const uids = new Set(feed.events.map((event) => String(event.getFirstPropertyValue('uid'))));
    for (const name of ['google.ics', 'outlook.ics', 'apple.ics']) {
      for (const match of readFileSync(fixture(name), 'utf8')
        .replace(/\r?\n[ \t]/g, '')
        .matchAll(/^UID:(.+?)\r?$/gm))
        assert.ok(uids.has(match[1]), `${name}: ${match[1]}`);
    }
    const choir = feed.events.filter(
      (event) => event.getFirstPropertyValue('uid') === '9w8e7r6t5y4u3i2o1p0a9s8d7f@google.com',
    );
    assert.equal(choir.length, 2, 'the series and its edited occurrence');
  });

  it('imports as a contributor: a LOCATION naming a private venue she cannot read gives her a venue of her own, and no media', async () => {
    const admin = h().users.administrator;
    const hidden = (
      await h().request('POST', '/venues', {
        as: admin,
        body: { venue: 'Secret Loft', status: 'private', address: '9 Hidden Way' },
      })
    ).json();
    assert.equal(hidden.status, 'private');
    const file = join(directory, 'contributor.ics');
    writeFileSync(
      file,
      [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//test//EN',
        'BEGIN:VEVENT',
        'UID:contributor-1@example.com',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270310T180000Z',
        'DTEND:20270310T200000Z',
        'SUMMARY:Contributed evening',
        'LOCATION:Secret Loft',
        'ATTACH:https://cdn.example.com/contributed.png',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n'),
    );
    const lines: string[] = [];
    await runCli(
      ['import', file, '--as', h().users.contributor.login],
      h().store,
      (line) => lines.push(line),
      h().config,
    );
    assert.match(lines[0], /1 created, 0 updated, 0 unchanged, 0 refused$/, lines.join('\n'));
    const [event] = await byTitle('Contributed evening');
    assert.ok(event, 'the event was created');
    assert.notEqual(event.venue?.id, hidden.id, 'the private venue is not linked');
    const own = (await h().request('GET', `/venues/${event.venue.id}`, { as: admin })).json();
    assert.equal(own.venue, 'Secret Loft');
    assert.equal(own.author, String(h().users.contributor.id));
    assert.equal(event.image, false, 'a contributor adds no image record');
    assert.equal(
      (await h().request('GET', `/venues/${hidden.id}`, { as: admin })).json().address,
      '9 Hidden Way',
      'the private venue is untouched',
    );
  });

  it('imports a calcurse export, whose VEVENTs have no UID, under UIDs derived from their content: again, nothing changes', async () => {
    const first = await run(h(), fixture('calcurse-no-uid.ics'));
    assert.match(first[0], /3 created, 0 updated, 0 unchanged, 0 refused$/, first.join('\n'));
    const again = await run(h(), fixture('calcurse-no-uid.ics'));
    assert.match(again[0], /0 created, 0 updated, 3 unchanged, 0 refused$/, again.join('\n'));
    assert.equal((await byTitle('Dentist')).length, 1);
    assert.equal((await byTitle('Standup')).length, 3, 'the weekly series has its three occurrences');
    assert.equal((await byTitle('Holiday')).length, 1);
    const feed = await getFeed(h(), '/events.ics', { as: h().users.administrator });
    const uids = feed.events
      .filter((event) => ['Dentist', 'Standup', 'Holiday'].includes(String(event.getFirstPropertyValue('summary'))))
      .map((event) => String(event.getFirstPropertyValue('uid')));
    assert.equal(uids.length, 3);
    for (const uid of uids) assert.match(uid, /^derived-[0-9a-f]{32}@import\.invalid$/);
  });

  it('refuses, before parsing, a file with a property of too many parameters or an over-long line: nothing is written', async () => {
    const before = await eventCount();
    const head = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:limits@example.com',
      'DTSTART:20270601T100000Z',
    ];
    const tail = ['END:VEVENT', 'END:VCALENDAR', ''];
    const manyParameters = join(directory, 'parameters.ics');
    writeFileSync(manyParameters, [...head, `SUMMARY${';X=1'.repeat(101)}:Exploding`, ...tail].join('\r\n'));
    await assert.rejects(
      runImportCommand(manyParameters, h().store, h().config, () => {}),
      (error: Error) =>
        error instanceof ImportFileError &&
        /line 6 has more than 100 parameters/.test(error.message) &&
        /Nothing was imported/.test(error.message),
    );
    // A million parameters on one property (4 MB, the testers' file): ical.js alone would take most of a minute on it.
    writeFileSync(manyParameters, [...head, `SUMMARY${';X=1'.repeat(1_000_000)}:Exploding`, ...tail].join('\r\n'));
    await assert.rejects(
      runImportCommand(manyParameters, h().store, h().config, () => {}),
      (error: Error) =>
        error instanceof ImportFileError && /line 6 (has more than 100 parameters|is longer than)/.test(error.message),
    );
    const longLine = join(directory, 'long-line.ics');
    // Folded at 75 octets as a writer would: the limit is on the line unfolded.
    const description = `DESCRIPTION:${'a'.repeat(1024 * 1024)}`;
    const folded = description.match(/.{1,74}/g)!.join('\r\n ');
    writeFileSync(longLine, [...head, folded, ...tail].join('\r\n'));
    await assert.rejects(
      runImportCommand(longLine, h().store, h().config, () => {}),
      (error: Error) =>
        error instanceof ImportFileError &&
        /line 6 is longer than 1048576 characters once unfolded/.test(error.message),
    );
    assert.equal(await eventCount(), before);
    // Within the limits (100 parameters), the same shape imports.
    const fine = join(directory, 'fine.ics');
    writeFileSync(fine, [...head, `SUMMARY${';X=1'.repeat(100)}:Within limits`, ...tail].join('\r\n'));
    const lines = await run(h(), fine);
    assert.match(lines[0], /1 created/, lines.join('\n'));
  });

  it('refuses broken components with their reasons and imports the rest', async () => {
    const lines = await run(h(), fixture('bad-components.ics'));
    assert.match(lines[0], /1 created, 0 updated, 0 unchanged, 4 refused$/);
    const reasons = lines.slice(1).join('\n');
    assert.match(reasons, /refused no-start@example\.com: the VEVENT has no DTSTART/);
    assert.match(reasons, /refused unknown-zone@example\.com: unknown time zone "Mars\/Olympus_Mons"/);
    assert.match(reasons, /refused backwards@example\.com: .*end_date must not be before start_date/);
    assert.match(reasons, /refused bad-rule@example\.com: .*recurrence/);
    assert.equal((await byTitle('The good one')).length, 1);
    for (const title of ['No start', 'Unknown zone', 'Ends before it starts', 'Secondly'])
      assert.equal((await byTitle(title)).length, 0, title);
  });

  it('writes nothing for a file that is empty, binary, too large or does not parse', async () => {
    const count = await eventCount();
    const cases: Array<[string, Buffer | string, RegExp]> = [
      ['empty.ics', '', /empty/],
      [
        'binary.ics',
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe]),
        /binary data/,
      ],
      ['latin1.ics', Buffer.from('BEGIN:VCALENDAR\r\nSUMMARY:caf\xe9\r\nEND:VCALENDAR\r\n', 'latin1'), /not UTF-8/],
      ['not-ical.ics', 'Subject: hello\r\n\r\nThis is an e-mail.\r\n', /not an iCalendar file/],
      [
        'broken.ics',
        `${readFileSync(fixture('google.ics'), 'utf8').replace('SUMMARY:Poetry slam', 'SUMMARY Poetry slam')}`,
        /does not parse/,
      ],
    ];
    for (const [name, content, message] of cases) {
      const file = join(directory, name);
      writeFileSync(file, content);
      await assert.rejects(
        run(h(), file),
        (error: Error) => error instanceof ImportFileError && message.test(error.message),
        name,
      );
    }
    // 50 MB: refused from its size, before it is read (a sparse file: nothing is written to disk).
    const huge = join(directory, 'huge.ics');
    writeFileSync(huge, 'BEGIN:VCALENDAR\r\n');
    await truncate(huge, 50 * 1024 * 1024);
    await assert.rejects(
      run(h(), huge),
      (error: Error) =>
        error instanceof ImportFileError &&
        /50\.0 MiB, more than the 20\.0 MiB .*ICAL_IMPORT_MAX_BYTES/.test(error.message),
    );
    await assert.rejects(run(h(), join(directory, 'missing.ics')), /cannot read/);
    assert.equal(await eventCount(), count);
  });

  it('shows a progress bar on a terminal only', async () => {
    const capture = (tty: boolean) => {
      const stream = Object.assign(new PassThrough(), {
        isTTY: tty,
        columns: 100,
        cursorTo: () => true,
        clearLine: () => true,
        moveCursor: () => true,
      }) as unknown as NodeJS.WriteStream;
      let written = '';
      (stream as unknown as PassThrough).on('data', (chunk) => {
        written += String(chunk);
      });
      return { stream, written: () => written };
    };
    const terminal = capture(true);
    const piped = capture(false);
    await runImportCommand(fixture('apple.ics'), h().store, h().config, () => {}, { progressStream: terminal.stream });
    await runImportCommand(fixture('apple.ics'), h().store, h().config, () => {}, { progressStream: piped.stream });
    assert.match(terminal.written(), /importing \[.*\] 3\/3 events/);
    assert.equal(piped.written(), '');
  });

  it('round-trips: a feed exported here and imported into an empty database gives equal events', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const admin = h().users.administrator;
    const venue = (
      await h().request('POST', '/venues', {
        as: admin,
        body: {
          venue: 'Round Trip Hall',
          address: '5 Loop Rd',
          city: 'Lyon',
          country: 'France',
          geo_lat: 45.76,
          geo_lng: 4.83,
        },
      })
    ).json();
    const bodies = [
      {
        title: 'Round trip: timed & "quoted"',
        description: '<p>Line one<br />\nLine <strong>two</strong>, with; punctuation</p>',
        timezone: 'Europe/Paris',
        start_date: '2027-09-01 18:00:00',
        end_date: '2027-09-01 20:00:00',
        venue: venue.id,
        organizer: { organizer: 'Round Trip Org', email: 'trip@example.com' },
        categories: ['Round Trip Cat', 'Ünïcode'],
        image: 'https://img.example/trip.png',
      },
      {
        title: 'Round trip: all day',
        all_day: true,
        start_date: '2027-09-05',
        end_date: '2027-09-06',
        categories: ['Round Trip Cat'],
      },
      {
        title: 'Round trip: Tokyo',
        timezone: 'Asia/Tokyo',
        start_date: '2027-10-01 09:00:00',
        end_date: '2027-10-01 09:30:00',
      },
      {
        title: 'Round trip: series',
        timezone: 'America/New_York',
        start_date: '2027-11-01 10:00:00',
        end_date: '2027-11-01 11:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      },
    ];
    for (const body of bodies)
      assert.equal(
        (await h().request('POST', '/events', { as: admin, body: { status: 'publish', ...body } })).statusCode,
        201,
      );
    const feed = await getFeed(h(), '/events.ics', { query: { search: 'Round trip' } });
    assert.equal(feed.events.length, 4);
    const file = join(directory, 'round-trip.ics');
    writeFileSync(file, feed.text);

    const empty = await createHarness(h().database);
    try {
      empty.setNow('2027-03-01T12:00:00Z');
      assert.match((await run(empty, file))[0], /4 created, 0 updated, 0 unchanged, 0 refused$/);
      const comparable = (list: Array<Record<string, any>>) =>
        list
          .filter((event) => event.title.startsWith('Round trip'))
          .map((event) => ({
            title: event.title,
            description: event.description,
            all_day: event.all_day,
            timezone: event.timezone,
            start_date: event.start_date,
            end_date: event.end_date,
            utc_start_date: event.utc_start_date,
            utc_end_date: event.utc_end_date,
            venue: Array.isArray(event.venue) ? null : [event.venue.venue, event.venue.geo_lat, event.venue.geo_lng],
            organizer: event.organizer.map((organizer: any) => [organizer.organizer, organizer.email]),
            categories: event.categories.map((term: any) => term.name).sort(),
            image: event.image ? event.image.url : false,
            recurrence: event.recurrence,
            status: event.status,
          }));
      const original = comparable(await events());
      assert.equal(original.length, 6);
      assert.deepEqual(comparable(await events(empty)), original);
      // And back out: the imported events keep the UIDs of the feed they came from.
      const again = await getFeed(empty, '/events.ics', { query: { search: 'Round trip' } });
      assert.deepEqual(
        again.events.map((event) => event.getFirstPropertyValue('uid')).sort(),
        feed.events.map((event) => event.getFirstPropertyValue('uid')).sort(),
      );
      assert.match((await run(empty, file))[0], /0 created, 0 updated, 4 unchanged, 0 refused$/);
    } finally {
      await empty.close();
    }
  });
});
