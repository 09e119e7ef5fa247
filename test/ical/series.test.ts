// D25 in D26: a recurring series is one VEVENT with its rule, plus one VEVENT per edited occurrence (RECURRENCE-ID);
// the occurrences ical.js expands from the feed are the API's occurrences.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import ICAL from 'ical.js';
import { describeEachDatabase } from '../helpers/harness.ts';
import { createEvent } from '../resources/events-support.ts';
import { getFeed, prop, uidOf, utcOf } from './support.ts';

describeEachDatabase('iCalendar feeds of recurring series (D25, D26)', (h) => {
  it('writes the series once, with EXDATEs and RECURRENCE-ID exceptions, and expands to the API occurrences', async () => {
    h().setNow('2027-03-01T12:00:00Z');
    const admin = h().users.administrator;
    const series = await createEvent(h(), {
      title: 'Weekly across DST', status: 'publish', timezone: 'Europe/Berlin',
      start_date: '2027-03-15 09:00:00', end_date: '2027-03-15 10:00:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    }, admin);
    const listed = async () => (await h().request('GET', '/events', { query: { start_date: '2027-03-01', end_date: '2027-06-30', per_page: 50 } })).json().events
      .filter((event: any) => event.series_id === series.id);
    const occurrences = await listed();
    assert.equal(occurrences.length, 5);
    const moved = occurrences[2];
    assert.equal((await h().request('PATCH', `/events/${moved.id}`, { as: admin, body: { title: 'Moved once', start_date: '2027-03-29 11:00:00', end_date: '2027-03-29 12:00:00' } })).statusCode, 200);
    assert.equal((await h().request('DELETE', `/events/${occurrences[3].id}`, { as: admin })).statusCode, 200);
    const api = await listed();

    const host = new URL(h().config.siteUrl).hostname;
    for (const path of ['/events.ics', `/events/${moved.id}.ics`]) {
      const feed = await getFeed(h(), path);
      const mine = feed.events.filter((event) => uidOf(event) === `${series.id}@${host}`);
      const master = mine.find((event) => !event.hasProperty('recurrence-id'))!;
      const exceptions = mine.filter((event) => event.hasProperty('recurrence-id'));
      assert.equal(mine.length, 2, path);
      assert.equal(String(prop(master, 'rrule')), 'FREQ=WEEKLY;COUNT=5');
      assert.ok(master.hasProperty('exdate'));
      assert.equal(prop(master, 'sequence'), 1, 'a cancelled occurrence changes the series (a new EXDATE)');
      assert.equal(prop(exceptions[0], 'sequence'), 1, 'the moved occurrence has its own SEQUENCE');
      assert.equal(prop(exceptions[0], 'summary'), 'Moved once');
      assert.equal(utcOf(prop(exceptions[0], 'recurrence-id')), moved.occurrence_start_utc);

      const event = new ICAL.Event(master, { exceptions: exceptions.map((exception) => new ICAL.Event(exception)) });
      const expanded: Array<[string, string]> = [];
      const iterator = event.iterator();
      for (let next = iterator.next(); next; next = iterator.next()) {
        const details = event.getOccurrenceDetails(next);
        expanded.push([utcOf(details.startDate), details.item.summary]);
      }
      assert.deepEqual(expanded, api.map((occurrence: any) => [occurrence.utc_start_date, occurrence.title]));
    }
  });
});
