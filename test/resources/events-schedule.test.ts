import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { resolveSchedule, type ScheduleInput, type StoredSchedule } from '../../src/core/events/schedule.ts';

const NOW = DateTime.fromISO('2026-11-22T04:20:00Z');
const NY = 'America/New_York';

const create = (input: ScheduleInput, siteZone = 'UTC') => resolveSchedule(input, null, siteZone, NOW);

function ok(result: ReturnType<typeof resolveSchedule>) {
  assert.ok(result.ok, `expected a schedule, got ${JSON.stringify(result)}`);
  return result.schedule;
}

describe('resolveSchedule on create', () => {
  it('reads the dates in the site zone when no zone is sent, and stores that zone', () => {
    assert.deepEqual(ok(create({ start: '2027-03-10 09:00:00', end: '2027-03-10 17:00:00' }, NY)), {
      timezone: NY,
      timezoneAbbr: 'EST',
      allDay: false,
      startLocal: '2027-03-10 09:00:00',
      endLocal: '2027-03-10 17:00:00',
      startUtc: '2027-03-10 14:00:00',
      endUtc: '2027-03-10 22:00:00',
    });
  });

  it('reads the dates in the sent zone; the abbreviation is the one at the start', () => {
    const schedule = ok(create({ start: '2031-05-10 09:00:00', end: '2031-05-10 11:00:00', timezone: NY }));
    assert.equal(schedule.timezone, NY);
    assert.equal(schedule.timezoneAbbr, 'EDT');
    assert.equal(schedule.startUtc, '2031-05-10 13:00:00');
  });

  it('treats an empty zone as the site zone', () => {
    assert.equal(
      ok(create({ start: '2027-01-01', end: '2027-01-02', timezone: '' }, 'Europe/Paris')).timezone,
      'Europe/Paris',
    );
  });

  it('keeps UTC±x zones as written, with the offset as the abbreviation', () => {
    const schedule = ok(create({ start: '2027-01-01 10:00', end: '2027-01-01 11:00', timezone: 'UTC+5' }));
    assert.equal(schedule.timezone, 'UTC+5');
    assert.equal(schedule.timezoneAbbr, 'UTC+5');
    assert.equal(schedule.startUtc, '2027-01-01 05:00:00');
  });

  it('converts instants (offsets, timestamps) into the event zone', () => {
    const schedule = ok(create({ start: '2027-03-10T09:00:00Z', end: 1804683600, timezone: NY }));
    assert.equal(schedule.startLocal, '2027-03-10 04:00:00');
    assert.equal(schedule.startUtc, '2027-03-10 09:00:00');
    assert.equal(schedule.endUtc, '2027-03-10 13:00:00');
  });

  it('reads relative forms against now, in the event zone', () => {
    const schedule = ok(create({ start: 'tomorrow 9am', end: 'tomorrow 5pm', timezone: NY }));
    assert.equal(schedule.startLocal, '2026-11-22 09:00:00');
    assert.equal(schedule.endLocal, '2026-11-22 17:00:00');
  });

  it('snaps all-day events to whole days, ignoring the times sent, over several days too', () => {
    const schedule = ok(create({ start: '2027-03-10 09:00', end: '2027-03-12 08:00', allDay: true, timezone: NY }));
    assert.equal(schedule.startLocal, '2027-03-10 00:00:00');
    assert.equal(schedule.endLocal, '2027-03-12 23:59:59');
    assert.equal(schedule.startUtc, '2027-03-10 05:00:00');
    assert.equal(schedule.allDay, true);
  });

  it('refuses an end before the start (D3), after snapping', () => {
    assert.deepEqual(create({ start: '2027-03-10 10:00', end: '2027-03-10 09:00' }), { ok: false, problem: 'range' });
    assert.equal(create({ start: '2027-03-10 10:00', end: '2027-03-10 09:00', allDay: true }).ok, true);
    assert.deepEqual(create({ start: '2027-03-11 10:00', end: '2027-03-10 23:00', allDay: true }), {
      ok: false,
      problem: 'range',
    });
  });

  it('allows equal dates', () => {
    assert.equal(create({ start: '2027-03-10 10:00', end: '2027-03-10 10:00' }).ok, true);
  });

  it('moves a wall-clock time inside a DST gap forward, so local and UTC agree', () => {
    const schedule = ok(create({ start: '2026-03-08 02:30:00', end: '2026-03-08 04:00:00', timezone: NY }));
    assert.equal(schedule.startLocal, '2026-03-08 03:30:00');
    assert.equal(schedule.startUtc, '2026-03-08 07:30:00');
  });

  it('names the date that cannot be read', () => {
    assert.deepEqual(create({ start: 'nonsense', end: '2027-01-01' }), { ok: false, problem: 'start_date' });
    assert.deepEqual(create({ start: '2027-01-01', end: 'nonsense' }), { ok: false, problem: 'end_date' });
  });
});

describe('resolveSchedule on update (D2)', () => {
  const stored: StoredSchedule = {
    timezone: NY,
    allDay: false,
    startLocal: '2027-03-10 09:00:00',
    endLocal: '2027-03-10 17:00:00',
  };
  const update = (input: ScheduleInput) => resolveSchedule(input, stored, 'UTC', NOW);

  it('keeps everything when nothing is sent', () => {
    const schedule = ok(update({}));
    assert.equal(schedule.timezone, NY);
    assert.equal(schedule.startLocal, stored.startLocal);
    assert.equal(schedule.endLocal, stored.endLocal);
    assert.equal(schedule.startUtc, '2027-03-10 14:00:00');
  });

  it('keeps the wall-clock times and recomputes UTC when only the zone changes', () => {
    const schedule = ok(update({ timezone: 'Europe/Paris' }));
    assert.equal(schedule.startLocal, '2027-03-10 09:00:00');
    assert.equal(schedule.startUtc, '2027-03-10 08:00:00');
    assert.equal(schedule.timezoneAbbr, 'CET');
  });

  it('resets the zone to the site zone when "" is sent', () => {
    const schedule = ok(update({ timezone: '' }));
    assert.equal(schedule.timezone, 'UTC');
    assert.equal(schedule.startUtc, '2027-03-10 09:00:00');
  });

  it('applies a start or an end sent alone, compared with the stored other one', () => {
    assert.equal(ok(update({ start: '2027-03-10 12:00' })).endLocal, '2027-03-10 17:00:00');
    assert.equal(ok(update({ end: '2027-03-11 12:00' })).startLocal, '2027-03-10 09:00:00');
    assert.deepEqual(update({ start: '2027-03-10 18:00' }), { ok: false, problem: 'range' });
    assert.deepEqual(update({ end: '2027-03-10 08:00' }), { ok: false, problem: 'range' });
  });

  it('re-snaps the stored dates when all_day is sent alone, and keeps them when it is turned off', () => {
    const snapped = ok(update({ allDay: true }));
    assert.equal(snapped.startLocal, '2027-03-10 00:00:00');
    assert.equal(snapped.endLocal, '2027-03-10 23:59:59');
    const allDay: StoredSchedule = {
      ...stored,
      allDay: true,
      startLocal: snapped.startLocal,
      endLocal: snapped.endLocal,
    };
    const off = resolveSchedule({ allDay: false }, allDay, 'UTC', NOW);
    assert.ok(off.ok);
    assert.equal(off.schedule.allDay, false);
    assert.equal(off.schedule.startLocal, '2027-03-10 00:00:00');
  });

  it('snaps a date sent alone to an all-day event', () => {
    const allDay: StoredSchedule = {
      ...stored,
      allDay: true,
      startLocal: '2027-03-10 00:00:00',
      endLocal: '2027-03-12 23:59:59',
    };
    const result = resolveSchedule({ start: '2027-03-11 15:00' }, allDay, 'UTC', NOW);
    assert.ok(result.ok);
    assert.equal(result.schedule.startLocal, '2027-03-11 00:00:00');
  });
});
