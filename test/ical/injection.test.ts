// iCalendar injection: no value, whatever it holds, may end its line in a feed. URLs with control characters are
// refused when written through the API; the writer makes every value safe whatever the database holds; TEXT values
// never carry a bare CR (which Python's splitlines, Java's readLine and .NET end a line at).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeCalendar, type IcalEvent } from '../../src/ical/write.ts';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';
import { byUid, getFeed, icalEvent, parseFeed, prop, uidOf } from './support.ts';

/** Lines as a parser that ends a line at CR, LF or CRLF sees them (Python's `str.splitlines`, Java's `readLine`). */
const splitLines = (text: string) => text.split(/\r\n|\r|\n/);
const countLines = (text: string, line: string) => splitLines(text).filter((each) => each === line).length;

/** A payload that, unescaped, ends the VEVENT and starts another one with someone else's UID, cancelled. */
const payload = (breakWith: string) =>
  ['END:VEVENT', 'BEGIN:VEVENT', 'UID:4@victim.example', 'SEQUENCE:99', 'STATUS:CANCELLED', 'SUMMARY:gone'].join(
    breakWith,
  );

describeEachDatabase('iCalendar injection', (h) => {
  const admin = () => h().users.administrator;

  it('refuses control characters in every URL field: event image, venue and organizer website, webhook URL', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    for (const breakWith of ['\n', '\r', '\r\n', '\t', '\u0000', '\u007f']) {
      const url = `https://cdn.example.com/p.png${breakWith}${payload(breakWith)}`;
      const event = await h().request('POST', '/events', {
        as: admin(),
        body: { title: 'Injected', start_date: '2027-03-10 10:00:00', end_date: '2027-03-10 11:00:00', image: url },
      });
      assert.equal(event.statusCode, 400, `image with ${JSON.stringify(breakWith)}: ${event.body}`);
      assert.equal(event.json().code, 'rest_invalid_param');
      for (const type of ['venues', 'organizers']) {
        const name = type === 'venues' ? 'venue' : 'organizer';
        const response = await h().request('POST', `/${type}`, {
          as: admin(),
          body: { [name]: `Injected ${type}`, website: `https://example.com/${breakWith}x` },
        });
        assert.equal(response.statusCode, 400, `${type} website with ${JSON.stringify(breakWith)}: ${response.body}`);
      }
      const hook = await h().request('POST', '/webhooks', {
        as: admin(),
        body: { url: `https://hooks.example.com/${breakWith}x`, events: ['*'] },
      });
      assert.equal(hook.statusCode, 400, `webhook url with ${JSON.stringify(breakWith)}: ${hook.body}`);
    }
    const listed = (await h().request('GET', '/events', { as: admin(), query: { status: 'publish,draft' } })).json();
    assert.equal(listed.events?.length ?? 0, 0, 'nothing was written');
  });

  it('writes a description with bare CRs, CRLFs and &#13; entities as escaped line breaks: one VEVENT, its own UID', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const descriptions = [
      `hello\r${payload('\r')}`,
      `hello&#13;${payload('&#13;')}`,
      `hello&#13;&#10;${payload('&#13;&#10;')}`,
      `hello\r\n${payload('\r\n')}`,
    ];
    const ids: number[] = [];
    for (const [index, description] of descriptions.entries()) {
      const event = await createEvent(
        h(),
        {
          title: `Described ${index}`,
          status: 'publish',
          description,
          start_date: '2027-03-10 10:00:00',
          end_date: '2027-03-10 11:00:00',
        },
        admin(),
      );
      ids.push(event.id);
    }
    const feed = await getFeed(h(), '/events.ics');
    assert.ok(!/\r(?!\n)/.test(feed.text), 'no bare CR anywhere in the feed');
    assert.equal(
      countLines(feed.text, 'BEGIN:VEVENT'),
      ids.length,
      'a line-splitting parser sees one VEVENT per event',
    );
    assert.equal(countLines(feed.text, 'UID:4@victim.example'), 0);
    assert.equal(feed.events.length, ids.length);
    const host = new URL(h().config.siteUrl).hostname;
    for (const id of ids) {
      const vevent = byUid(feed, `${id}@${host}`);
      assert.ok(vevent, `event ${id} is in the feed`);
      assert.match(
        String(prop(vevent, 'description')),
        /^hello\n+END:VEVENT\n+BEGIN:VEVENT/,
        'the breaks are line breaks inside the text',
      );
      assert.notEqual(prop(vevent, 'status'), 'CANCELLED');
    }
  });
});

describe('iCalendar writer: values made safe whatever they hold', () => {
  const hostile = (breakWith: string) => `x${breakWith}${payload(breakWith)}`;
  const event = (breakWith: string): IcalEvent =>
    icalEvent({
      uid: `1@example.org${breakWith}UID:2@example.org`,
      summary: hostile(breakWith),
      description: hostile(breakWith),
      html: `<p>${hostile(breakWith)}</p>`,
      url: `https://example.org/e${breakWith}${payload(breakWith)}`,
      image: `https://cdn.example.com/p.png${breakWith}${payload(breakWith)}`,
      venue: { name: hostile(breakWith), address: hostile(breakWith), geo: { lat: 1, lng: 2 } },
      organizer: { name: hostile(breakWith), email: `a@b.example${breakWith}${payload(breakWith)}`, url: '' },
      categories: [hostile(breakWith), 'plain'],
      recurrence: [`RRULE:FREQ=WEEKLY;COUNT=2${breakWith}${payload(breakWith)}`],
    });

  for (const [label, breakWith] of [
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
    ['NUL', '\u0000'],
    ['vertical tab', '\u000b'],
    ['DEL', '\u007f'],
  ] as const) {
    it(`keeps every line of a VEVENT whose every value holds ${label}`, async () => {
      const { text } = await writeCalendar(
        { prodId: `-//x//y//EN${breakWith}X-INJECTED:1`, name: hostile(breakWith), timezone: 'UTC' },
        [{ event: event(breakWith) }],
      );
      assert.ok(
        !/\r(?!\n)/.test(text) && !/(?<!\r)\n/.test(text),
        'every line ends with CRLF, nothing else breaks a line',
      );
      assert.ok(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the test looks for
        !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text.replace(/\r\n/g, '')),
        'no control character is written',
      );
      assert.equal(countLines(text, 'BEGIN:VEVENT'), 1);
      assert.equal(countLines(text, 'STATUS:CANCELLED'), 0);
      assert.equal(countLines(text, 'X-INJECTED:1'), 0);
      const parsed = parseFeed(text);
      assert.equal(parsed.events.length, 1);
      const [vevent] = parsed.events;
      assert.equal(
        uidOf(vevent),
        breakWith === '\n' || breakWith === '\r' || breakWith === '\r\n'
          ? '1@example.org\nUID:2@example.org'
          : '1@example.orgUID:2@example.org',
      );
      assert.equal(String(prop(vevent, 'rrule')), 'FREQ=WEEKLY;COUNT=2', 'a recurrence line keeps only its own rule');
      assert.equal(prop(vevent, 'status'), 'CONFIRMED');
      assert.ok(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the test looks for
        !/[\s\u0000-\u001f\u007f]/.test(String(prop(vevent, 'attach'))),
        'the image URI has no control character or space',
      );
    });
  }
});
