// The pure parts of D26: the SEQUENCE rule, the writer (folding, escaping, zones, the byte budget) and the zone names
// an import understands.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveZone, decodeText, ImportFileError, parseCalendar } from '../../src/ical/import.ts';
import { sequenceChanges, type SequenceFields } from '../../src/domain/ical-sequence.ts';
import { dayAfter, htmlToText, writeCalendar, WrittenEntries, zoneBlock } from '../../src/ical/write.ts';
import { byUid, icalEvent, parseFeed, prop } from './support.ts';

const base: SequenceFields = {
  title: 'A',
  status: 'publish',
  start_local: '2027-01-01 10:00:00',
  end_local: '2027-01-01 11:00:00',
  timezone: 'UTC',
  all_day: 0,
  venue_id: null,
};

const head = { prodId: '-//example.org//calendar-events//EN', name: 'Events', timezone: 'UTC' };

describe('iCalendar units (D26)', () => {
  it('grows SEQUENCE for dates, zone, all-day, title, venue and status only', () => {
    assert.equal(sequenceChanges(base, { ...base }), false);
    for (const change of [
      { title: 'B' },
      { status: 'trash' },
      { start_local: '2027-01-02 10:00:00' },
      { end_local: '2027-01-01 12:00:00' },
      { timezone: 'Europe/Paris' },
      { all_day: 1 },
      { venue_id: 5 },
    ]) {
      assert.equal(sequenceChanges(base, { ...base, ...change }), true, JSON.stringify(change));
    }
  });

  it('writes the day after (DTEND of all-day events), plain text of HTML, and VTIMEZONEs by canonical name', () => {
    assert.deepEqual(
      [dayAfter('2027-02-28'), dayAfter('2028-02-28'), dayAfter('2027-12-31')],
      ['2027-03-01', '2028-02-29', '2028-01-01'],
    );
    assert.equal(
      htmlToText('<p>One &amp; <b>two</b><br />three</p><ul><li>x</li></ul>&#8217;&hellip;'),
      'One & two\nthree\n\n• x\n\n’…',
    );
    assert.equal(zoneBlock('US/Eastern')?.tzid, 'America/New_York');
    assert.equal(zoneBlock('UTC+5'), null);
    assert.equal(zoneBlock('UTC'), null);
  });

  it('escapes text, folds long lines within 75 octets, and stops at the byte budget', async () => {
    const tricky = icalEvent({
      summary: 'Commas, semicolons; backslashes \\ and\nnew lines — ünïcødé '.repeat(4),
      html: '<p>x</p>',
    });
    const { text } = await writeCalendar(head, [{ event: tricky }]);
    const feed = parseFeed(text);
    assert.equal(prop(byUid(feed, '1@example.org')!, 'summary'), tricky.summary);
    assert.equal(prop(byUid(feed, '1@example.org')!, 'description'), 'x');
    const many = Array.from({ length: 20 }, (_, index) => ({ event: icalEvent({ uid: `${index}@example.org` }) }));
    const whole = await writeCalendar(head, many);
    assert.equal(whole.truncated, false);
    const cut = await writeCalendar(head, many, 5_000);
    assert.equal(cut.truncated, true);
    const kept = parseFeed(cut.text).events.length;
    assert.ok(kept > 0 && kept < 20, String(kept));
  });

  it("keeps the VEVENTs it writes in the memo it is given, within the memo's bound, and writes the same text", async () => {
    const entries = Array.from({ length: 200 }, (_, index) => ({ event: icalEvent({ uid: `${index}@example.org` }) }));
    const unmemoised = (await writeCalendar(head, entries)).text;
    const memo = new WrittenEntries(64 * 1024);
    assert.equal((await writeCalendar(head, entries, Number.POSITIVE_INFINITY, memo)).text, unmemoised);
    assert.ok(memo.bytes > 0 && memo.bytes <= 64 * 1024, `${memo.bytes} characters kept`);
    assert.equal(
      (await writeCalendar(head, entries, Number.POSITIVE_INFINITY, memo)).text,
      unmemoised,
      'written again, partly from the memo',
    );
    const off = new WrittenEntries(0);
    assert.equal((await writeCalendar(head, entries, Number.POSITIVE_INFINITY, off)).text, unmemoised);
    assert.equal(off.bytes, 0, 'a memo of 0 keeps nothing');
  });

  it('reads zone names as IANA, Windows (Outlook) or a VTIMEZONE location, and refuses what is not text', () => {
    assert.equal(resolveZone('Europe/Berlin'), 'Europe/Berlin');
    assert.equal(resolveZone('"W. Europe Standard Time"'), 'Europe/Berlin');
    assert.equal(resolveZone('Pacific Standard Time'), 'America/Los_Angeles');
    assert.equal(resolveZone('/mozilla.org/20070129_1/Europe/Paris'), 'Europe/Paris');
    assert.equal(resolveZone('Custom zone', new Map([['Custom zone', 'Asia/Tokyo']])), 'Asia/Tokyo');
    assert.equal(resolveZone('Mars/Olympus_Mons'), undefined);
    assert.throws(() => decodeText(new Uint8Array()), ImportFileError);
    assert.throws(() => decodeText(new Uint8Array([0x42, 0x00])), ImportFileError);
    assert.throws(() => decodeText(new Uint8Array([0xc3, 0x28])), ImportFileError);
    assert.throws(() => parseCalendar('BEGIN:VCALENDAR\r\nnot a line\r\nEND:VCALENDAR\r\n'), ImportFileError);
    assert.equal(parseCalendar('\uFEFFBEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n').units.length, 0);
  });
});
