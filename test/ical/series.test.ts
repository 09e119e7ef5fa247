// D25 in D26: a recurring series is one VEVENT with its rule, plus one VEVENT per edited occurrence (RECURRENCE-ID);
// the occurrences ical.js expands from the feed are the API's occurrences.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import ICAL from 'ical.js';
import { describeEachDatabase, type Harness } from '../helpers/harness.ts';
import {
  createEvent,
  listedOccurrences,
  moveThirdCancelFourth,
  WEEKLY_ACROSS_DST,
} from '../resources/events-support.ts';
import { getFeed, prop, uidOf, utcOf } from './support.ts';

/** The series' VEVENTs in a feed: the one with its rule and the edited occurrences (RECURRENCE-ID). */
async function seriesInFeed(h: Harness, path: string, seriesId: number) {
  const feed = await getFeed(h, path);
  const mine = feed.events.filter((event) => uidOf(event) === `${seriesId}@${new URL(h.config.siteUrl).hostname}`);
  return {
    mine,
    master: mine.find((event) => !event.hasProperty('recurrence-id'))!,
    exceptions: mine.filter((event) => event.hasProperty('recurrence-id')),
  };
}

/** What ical.js expands the series to, exceptions applied: each occurrence's start (as `start` gives it) and summary. */
function expand(
  master: ICAL.Component,
  exceptions: ICAL.Component[],
  start: (time: ICAL.Time) => string,
): Array<[string, string]> {
  const event = new ICAL.Event(master, { exceptions: exceptions.map((exception) => new ICAL.Event(exception)) });
  const expanded: Array<[string, string]> = [];
  const iterator = event.iterator();
  for (let next = iterator.next(); next; next = iterator.next()) {
    const details = event.getOccurrenceDetails(next);
    expanded.push([start(details.startDate), details.item.summary]);
  }
  return expanded;
}

describeEachDatabase('iCalendar feeds of recurring series (D25, D26)', (h) => {
  it('writes the series once, with EXDATEs and RECURRENCE-ID exceptions, and expands to the API occurrences', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const admin = h().users.administrator;
    const series = await createEvent(h(), WEEKLY_ACROSS_DST, admin);
    const listed = () => listedOccurrences(h(), series.id);
    const occurrences = await listed();
    assert.equal(occurrences.length, 5);
    const moved = occurrences[2];
    await moveThirdCancelFourth(h(), admin, occurrences);
    const api = await listed();

    for (const path of ['/events.ics', `/events/${moved.id}.ics`]) {
      const { mine, master, exceptions } = await seriesInFeed(h(), path, series.id);
      assert.equal(mine.length, 2, path);
      assert.equal(String(prop(master, 'rrule')), 'FREQ=WEEKLY;COUNT=5');
      assert.ok(master.hasProperty('exdate'));
      assert.equal(prop(master, 'sequence'), 1, 'a cancelled occurrence changes the series (a new EXDATE)');
      assert.equal(prop(exceptions[0], 'sequence'), 1, 'the moved occurrence has its own SEQUENCE');
      assert.equal(prop(exceptions[0], 'summary'), 'Moved once');
      assert.equal(utcOf(prop(exceptions[0], 'recurrence-id')), moved.occurrence_start_utc);

      assert.deepEqual(
        expand(master, exceptions, utcOf),
        api.map((occurrence: any) => [occurrence.utc_start_date, occurrence.title]),
      );
    }
  });

  it('leaves an occurrence the caller may not list out of the series in its feed (an EXDATE), as GET /events does', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const admin = h().users.administrator;
    const series = await createEvent(
      h(),
      {
        title: 'Weekly with a private week',
        status: 'publish',
        timezone: 'Europe/Berlin',
        start_date: '2027-03-15 09:00:00',
        end_date: '2027-03-15 10:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
      admin,
    );
    const occurrences = await listedOccurrences(h(), series.id);
    assert.equal(occurrences.length, 4);
    const hiddenOne = occurrences[1];
    assert.equal(
      (await h().request('PATCH', `/events/${hiddenOne.id}`, { as: admin, body: { status: 'private' } })).statusCode,
      200,
    );
    const anonymous = await listedOccurrences(h(), series.id);
    assert.deepEqual(
      anonymous.map((occurrence: any) => occurrence.id),
      [occurrences[0].id, occurrences[2].id, occurrences[3].id],
    );

    const { master, exceptions } = await seriesInFeed(h(), '/events.ics', series.id);
    assert.equal(exceptions.length, 0, 'the private occurrence is not written for an anonymous caller');
    assert.deepEqual(
      expand(master, exceptions, utcOf),
      anonymous.map((occurrence: any) => [occurrence.utc_start_date, occurrence.title]),
    );

    // Its editor still sees it, in the feed as in the list.
    const editorFeed = await getFeed(h(), '/events.ics', { as: admin });
    const mine = editorFeed.events.filter(
      (event) => uidOf(event) === `${series.id}@${new URL(h().config.siteUrl).hostname}`,
    );
    const editorMaster = mine.find((event) => !event.hasProperty('recurrence-id'))!;
    assert.equal(
      expand(
        editorMaster,
        mine.filter((event) => event.hasProperty('recurrence-id')),
        utcOf,
      ).length,
      4,
    );
  });

  it("writes the RECURRENCE-ID and EXDATE of an all-day series east of UTC as the occurrences' local dates", async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const admin = h().users.administrator;
    // Midnight in Berlin is 23:00 UTC the day before: the dates must be Berlin's, not UTC's.
    const series = await createEvent(
      h(),
      {
        title: 'Weekly all-day market',
        status: 'publish',
        timezone: 'Europe/Berlin',
        all_day: true,
        start_date: '2027-03-15',
        end_date: '2027-03-15',
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
      },
      admin,
    );
    const listed = () => listedOccurrences(h(), series.id);
    const occurrences = await listed();
    assert.equal(occurrences.length, 4);
    const edited = occurrences[1];
    const cancelled = occurrences[2];
    assert.equal(edited.start_date.slice(0, 10), '2027-03-22');
    assert.equal(edited.occurrence_start_utc, '2027-03-21 23:00:00');
    assert.equal(
      (await h().request('PATCH', `/events/${edited.id}`, { as: admin, body: { title: 'Edited market' } })).statusCode,
      200,
    );
    assert.equal((await h().request('DELETE', `/events/${cancelled.id}`, { as: admin })).statusCode, 200);

    const { mine, master, exceptions } = await seriesInFeed(h(), '/events.ics', series.id);
    assert.equal(mine.length, 2);
    assert.equal(String(prop(master, 'dtstart')), '2027-03-15');
    assert.equal(String(prop(exceptions[0], 'recurrence-id')), '2027-03-22');
    assert.equal(String(prop(exceptions[0], 'dtstart')), '2027-03-22');
    assert.equal(String(prop(master, 'exdate')), '2027-03-29');

    // The RRULE alone (no EXDATE applied): the RECURRENCE-ID and the EXDATE are two of its dates.
    const dates: string[] = [];
    const iterator = prop(master, 'rrule').iterator(prop(master, 'dtstart'));
    for (let next = iterator.next(); next; next = iterator.next()) dates.push(String(next));
    assert.deepEqual(dates, ['2027-03-15', '2027-03-22', '2027-03-29', '2027-04-05']);
    assert.ok(dates.includes(String(prop(exceptions[0], 'recurrence-id'))));
    assert.ok(dates.includes(String(prop(master, 'exdate'))));

    assert.deepEqual(expand(master, exceptions, String), [
      ['2027-03-15', 'Weekly all-day market'],
      ['2027-03-22', 'Edited market'],
      ['2027-04-05', 'Weekly all-day market'],
    ]);
  });
});
