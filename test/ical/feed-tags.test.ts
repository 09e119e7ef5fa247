// D22 for the iCalendar feeds (ical/feed-tags.ts): a poll whose If-None-Match holds the feed's last tag is answered 304
// without the feed being selected or written, and only while nothing it shows can have changed: no write (by this
// process or another), no scheduled event come due, no cancelled event past its days, the same reader, parameters and
// window. On both databases, through the HTTP surface; whether a feed was written is read from the statements run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { FeedTags } from '../../src/ical/feed-tags.ts';
import { describeEachDatabase, type Credentials } from '../helpers/harness.ts';
import { statementsWithParameters, queryPlan, statementsDuring } from '../helpers/queries.ts';
import { createEvent } from '../resources/events-support.ts';

const NOW = '2031-05-01T12:00:00Z';
/** A window of its own, so that no other test's events are in these feeds. */
const WINDOW = { start_date: '2031-06-01', end_date: '2031-06-30' };

/** Whether a statement selects a feed's events (the list's page, from the occurrences). */
const selectsEvents = (statements: readonly string[]) => statements.some((text) => /from "occurrences"/.test(text));

describeEachDatabase('feed tags (D22, D26)', (h) => {
  const admin = () => h().users.administrator;

  /** A GET of the feed with `tag` as If-None-Match: the answer, and whether the feed was selected for it. */
  async function poll(tag: string | undefined, options: { as?: Credentials; query?: Record<string, string> } = {}) {
    let answer!: Awaited<ReturnType<ReturnType<typeof h>['request']>>;
    const statements = await statementsDuring(h().store, async () => {
      answer = await h().request('GET', '/events.ics', {
        as: options.as,
        query: options.query ?? WINDOW,
        headers: tag === undefined ? {} : { 'if-none-match': tag },
      });
    });
    return { answer, selected: selectsEvents(statements), statements };
  }

  const event = (title: string, extra: Record<string, unknown> = {}) =>
    createEvent(
      h(),
      { title, status: 'publish', start_date: '2031-06-10 10:00:00', end_date: '2031-06-10 11:00:00', ...extra },
      admin(),
    );

  it('answers a poll with the last tag 304 without selecting the feed, until a write', async () => {
    h().setNow(NOW);
    const first = await event('Tagged concert');
    const full = await poll(undefined);
    assert.equal(full.answer.statusCode, 200);
    const tag = String(full.answer.headers.etag);
    assert.match(tag, /^"[\w-]+"$/);

    const again = await poll(tag);
    assert.equal(again.answer.statusCode, 304);
    assert.equal(again.answer.headers.etag, tag);
    assert.equal(again.answer.body, '');
    assert.equal(again.answer.headers['content-disposition'], 'inline; filename="events.ics"');
    assert.equal(again.selected, false, again.statements.join('\n'));
    assert.ok(again.statements.length <= 3, `${again.statements.length} statements: ${again.statements.join('\n')}`);
    // Each of them a seek: the trashed posts' own index for the cancelled days (migration 0026).
    h().setNow('2031-05-01T12:00:05Z');
    const checks = await statementsWithParameters(h().store, () =>
      h().request('GET', '/events.ics', { query: WINDOW, headers: { 'if-none-match': tag } }),
    );
    const trashed = checks.find((query) => query.sql.includes("'trash'"));
    assert.ok(trashed, checks.map((query) => query.sql).join('\n'));
    assert.match(await queryPlan(h(), trashed), /posts_trashed_modified/);
    h().setNow(NOW);
    // Another tag, or none: the feed as before.
    const other = await poll('"something-else"');
    assert.equal(other.answer.statusCode, 200);
    assert.equal(other.answer.headers.etag, tag);

    const patched = await h().request('PATCH', `/events/${first.id}`, { as: admin(), body: { title: 'Renamed' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const changed = await poll(tag);
    assert.equal(changed.answer.statusCode, 200);
    assert.equal(changed.selected, true);
    assert.notEqual(changed.answer.headers.etag, tag);
    assert.match(changed.answer.body, /SUMMARY:Renamed/);
  });

  it('writes the feed again after a write by another process on the same database', async () => {
    h().setNow(NOW);
    const query = { ...WINDOW, search: 'Elsewhere show' };
    const shown = await event('Elsewhere show');
    const first = await poll(undefined, { query });
    const tag = String(first.answer.headers.etag);
    assert.equal((await poll(tag, { query })).answer.statusCode, 304);
    const another = await h().openAnotherStore();
    try {
      await another.transaction((trx) =>
        trx
          .updateTable('posts')
          .set({ title: 'Elsewhere show, moved by another process' })
          .where('id', '=', shown.id)
          .execute(),
      );
    } finally {
      await another.close();
    }
    const after = await poll(tag, { query });
    assert.equal(after.selected, true, 'the data version moved');
    assert.equal(after.answer.statusCode, 200);
    assert.notEqual(after.answer.headers.etag, tag);
  });

  it('writes the feed again once a scheduled event comes due, with no write in between', async () => {
    h().setNow(NOW);
    const scheduled = await event('Scheduled gig', { status: 'future', date: '2031-05-01 14:00:00' });
    const before = await poll(undefined, { query: { ...WINDOW, search: 'Scheduled gig' } });
    assert.doesNotMatch(before.answer.body, /Scheduled gig/);
    const tag = String(before.answer.headers.etag);
    assert.equal((await poll(tag, { query: { ...WINDOW, search: 'Scheduled gig' } })).answer.statusCode, 304);

    h().setNow('2031-05-01T15:00:00Z');
    const due = await poll(tag, { query: { ...WINDOW, search: 'Scheduled gig' } });
    assert.equal(due.answer.statusCode, 200);
    assert.equal(due.selected, true);
    assert.match(due.answer.body, /SUMMARY:Scheduled gig/);
    assert.ok(scheduled.id);
  });

  it('writes the feed again once a cancelled event leaves its thirty days', async () => {
    h().setNow(NOW);
    const query = { ...WINDOW, search: 'Called off gig' };
    const called = await event('Called off gig');
    assert.equal((await h().request('DELETE', `/events/${called.id}`, { as: admin() })).statusCode, 200);
    const cancelled = await poll(undefined, { query });
    assert.match(cancelled.answer.body, /STATUS:CANCELLED/);
    const tag = String(cancelled.answer.headers.etag);

    h().setNow('2031-05-20T12:00:00Z');
    assert.equal((await poll(tag, { query })).answer.statusCode, 304, 'still within its days');
    h().setNow('2031-06-01T12:00:00Z');
    const gone = await poll(tag, { query });
    assert.equal(gone.answer.statusCode, 200);
    assert.doesNotMatch(gone.answer.body, /Called off gig/);
  });

  it('keeps each reader, parameter and window apart, and writes again when the clock goes back', async () => {
    h().setNow(NOW);
    await event('Public show');
    await event('Draft show', { status: 'draft' });
    const asAdmin = await poll(undefined, { as: admin() });
    assert.match(asAdmin.answer.body, /Draft show/);
    const adminTag = String(asAdmin.answer.headers.etag);
    const adminPoll = await poll(adminTag, { as: admin() });
    assert.equal(adminPoll.answer.statusCode, 304);
    assert.equal(adminPoll.selected, false);
    assert.equal(
      adminPoll.answer.headers['cache-control'],
      asAdmin.answer.headers['cache-control'],
      'D12 as on the 200',
    );
    assert.match(String(adminPoll.answer.headers['cache-control']), /no-store/);

    // The administrator's tag is not the anonymous feed's: that one is written, without the draft.
    const anonymous = await poll(adminTag);
    assert.equal(anonymous.answer.statusCode, 200);
    assert.equal(anonymous.selected, true);
    assert.doesNotMatch(anonymous.answer.body, /Draft show/);
    const anonymousTag = String(anonymous.answer.headers.etag);
    const utc = await poll(anonymousTag, { query: { ...WINDOW, utc: '1' } });
    assert.equal(utc.selected, true, 'another parameter is another feed');

    // The default window starts 30 days back: a day later it is another window, selected again.
    const defaults = await poll(undefined, { query: {} });
    const defaultTag = String(defaults.answer.headers.etag);
    assert.equal((await poll(defaultTag, { query: {} })).selected, false);
    h().setNow('2031-05-02T12:00:00Z');
    assert.equal((await poll(defaultTag, { query: {} })).selected, true);

    h().setNow('2031-04-30T12:00:00Z');
    const back = await poll(anonymousTag);
    assert.equal(back.selected, true, 'a clock that went back may undo what it showed');
  });

  it('never remembers a feed asked for with an event password', async () => {
    h().setNow(NOW);
    await event('Locked show', { password: 'sesame' });
    const query = { ...WINDOW, password: 'sesame' };
    const unlocked = await poll(undefined, { query });
    assert.equal(unlocked.answer.statusCode, 200);
    assert.doesNotMatch(unlocked.answer.body, /Locked show/, 'an anonymous feed leaves protected events out (D26)');
    const again = await poll(String(unlocked.answer.headers.etag), { query });
    assert.equal(again.answer.statusCode, 304, 'the same bytes');
    assert.equal(again.selected, true, 'written again: each such request is a guess');
  });
});

describe('FeedTags', () => {
  const tag = (name: string) => ({ tag: `"${name}"`, version: '1', at: DateTime.utc(2031), truncated: false });

  it('keeps at most its bound of feeds, dropping the least recently used', () => {
    const tags = new FeedTags(2);
    tags.remember('a', tag('a'));
    tags.remember('b', tag('b'));
    assert.equal(tags.get('a')?.tag, '"a"');
    tags.remember('c', tag('c'));
    assert.equal(tags.size, 2);
    assert.equal(tags.get('b'), undefined, 'b was used least lately');
    assert.equal(tags.get('a')?.tag, '"a"');
    assert.equal(tags.get('c')?.tag, '"c"');
    tags.remember('a', tag('a2'));
    assert.equal(tags.get('a')?.tag, '"a2"');
    assert.equal(new FeedTags(0).size, 0);
  });
});
