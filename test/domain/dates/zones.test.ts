// Event time zones (§5.2): which zone a string names, and the abbreviation stored with an event.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidTimezone, resolveZone, timezoneAbbr } from '../../../src/domain/dates/zones.ts';
import { NY, offsetOf, utc } from './support.ts';

describe('resolveZone and isValidTimezone', () => {
  it('accepts IANA ids', () => {
    assert.equal(resolveZone(NY)?.name, NY);
    assert.equal(offsetOf(NY, utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf(NY, utc('2026-07-15T12:00:00')), -240);
    assert.equal(offsetOf('Europe/Paris', utc('2026-07-15T12:00:00')), 120);
    assert.equal(offsetOf('Asia/Kolkata'), 330);
    assert.equal(offsetOf('Etc/UTC'), 0);
  });

  it('accepts tz database aliases and legacy ids', () => {
    assert.equal(offsetOf('US/Eastern', utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf('EST5EDT', utc('2026-07-15T12:00:00')), -240);
    assert.equal(offsetOf('Asia/Calcutta'), 330);
    assert.equal(offsetOf('GB', utc('2026-07-15T12:00:00')), 60);
    assert.equal(offsetOf('Etc/GMT+5'), -300);
  });

  it('accepts UTC', () => {
    assert.equal(offsetOf('UTC'), 0);
    assert.equal(offsetOf('utc'), 0);
  });

  it('reads abbreviations as fixed offsets, case-insensitively', () => {
    const summer = utc('2026-07-15T12:00:00');
    const expected: Record<string, number> = {
      EST: -300,
      EDT: -240,
      CST: -360,
      CDT: -300,
      MST: -420,
      MDT: -360,
      PST: -480,
      PDT: -420,
      GMT: 0,
      CET: 60,
      CEST: 120,
      BST: 60,
      AEST: 600,
      NST: -210,
    };
    for (const [abbreviation, offset] of Object.entries(expected)) {
      assert.equal(offsetOf(abbreviation, summer), offset, abbreviation);
      assert.equal(offsetOf(abbreviation.toLowerCase(), summer), offset, abbreviation.toLowerCase());
    }
    assert.equal(offsetOf('EST', utc('2026-01-15T12:00:00')), -300);
    assert.equal(offsetOf('CET', utc('2026-01-15T12:00:00')), 60);
  });

  it('accepts offsets', () => {
    assert.equal(offsetOf('+05:00'), 300);
    assert.equal(offsetOf('-0330'), -210);
    assert.equal(offsetOf('-03:30'), -210);
    assert.equal(offsetOf('+05'), 300);
    assert.equal(offsetOf('+5'), 300);
    assert.equal(offsetOf('+00:00'), 0);
    assert.equal(offsetOf('-00:00'), 0);
    assert.equal(offsetOf('+14:00'), 840);
  });

  it('accepts UTC followed by an offset, in hours, hours:minutes or decimal hours', () => {
    assert.equal(offsetOf('UTC+5'), 300);
    assert.equal(offsetOf('UTC-3:30'), -210);
    assert.equal(offsetOf('UTC+5.5'), 330);
    assert.equal(offsetOf('UTC+5.75'), 345);
    assert.equal(offsetOf('UTC-9.5'), -570);
    assert.equal(offsetOf('UTC+12.75'), 765);
    assert.equal(offsetOf('UTC+0'), 0);
    assert.equal(offsetOf('UTC-0'), 0);
    assert.equal(offsetOf('UTC+05:30'), 330);
    assert.equal(offsetOf('UTC+0530'), 330);
    assert.equal(offsetOf('UTC+14'), 840);
    assert.equal(offsetOf('utc+5'), 300);
  });

  it('refuses anything else', () => {
    const invalid = [
      '',
      ' ',
      'Mars/Olympus',
      'America/Nowhere',
      'UTC+',
      'UTC+x',
      'UTC+5x',
      'UTC+5.123',
      'UTC+19',
      'UTC5',
      'UTCfoo',
      '+25:00',
      '+19',
      '+05:60',
      '+5:5',
      '5',
      '05:00',
      ' UTC',
      'EST ',
      'XYZ',
      'IST',
      'ist',
      'ECT',
      'SST',
      'SystemV/EST5',
    ];
    for (const timezone of invalid) {
      assert.equal(resolveZone(timezone), null, JSON.stringify(timezone));
      assert.equal(isValidTimezone(timezone), false, JSON.stringify(timezone));
    }
  });

  it('isValidTimezone agrees with resolveZone', () => {
    for (const timezone of [NY, 'UTC', 'EST', '+05:00', 'UTC+5.5'])
      assert.equal(isValidTimezone(timezone), true, timezone);
  });
});

describe('timezoneAbbr', () => {
  const winter = utc('2026-01-15T12:00:00');
  const summer = utc('2026-07-15T12:00:00');

  it('gives EST or EDT for America/New_York depending on the date', () => {
    assert.equal(timezoneAbbr(NY, winter), 'EST');
    assert.equal(timezoneAbbr(NY, summer), 'EDT');
  });

  it('switches at the exact instant of the transition', () => {
    assert.equal(timezoneAbbr(NY, utc('2026-03-08T06:59:59')), 'EST');
    assert.equal(timezoneAbbr(NY, utc('2026-03-08T07:00:00')), 'EDT');
    assert.equal(timezoneAbbr(NY, utc('2026-11-01T05:59:59')), 'EDT');
    assert.equal(timezoneAbbr(NY, utc('2026-11-01T06:00:00')), 'EST');
  });

  it('gives UTC for UTC', () => {
    assert.equal(timezoneAbbr('UTC', summer), 'UTC');
    assert.equal(timezoneAbbr('Etc/UTC', summer), 'UTC');
  });

  it('gives the UTC±x forms back as they are', () => {
    assert.equal(timezoneAbbr('UTC+5', summer), 'UTC+5');
    assert.equal(timezoneAbbr('UTC-3:30', summer), 'UTC-3:30');
    assert.equal(timezoneAbbr('UTC+5.5', summer), 'UTC+5.5');
    assert.equal(timezoneAbbr('UTC+0', summer), 'UTC+0');
  });

  it('gives abbreviations back in capitals, whatever the season', () => {
    assert.equal(timezoneAbbr('EST', summer), 'EST');
    assert.equal(timezoneAbbr('cest', winter), 'CEST');
    assert.equal(timezoneAbbr('gmt', winter), 'GMT');
  });

  it('gives offsets as ±HH:MM', () => {
    assert.equal(timezoneAbbr('+05:00', summer), '+05:00');
    assert.equal(timezoneAbbr('-0330', summer), '-03:30');
    assert.equal(timezoneAbbr('+5', summer), '+05:00');
  });

  it('gives the usual letters for European zones', () => {
    assert.equal(timezoneAbbr('Europe/Paris', winter), 'CET');
    assert.equal(timezoneAbbr('Europe/Paris', summer), 'CEST');
    assert.equal(timezoneAbbr('Europe/London', winter), 'GMT');
    assert.equal(timezoneAbbr('Europe/London', summer), 'BST');
    assert.equal(timezoneAbbr('America/Los_Angeles', summer), 'PDT');
  });

  it('falls back to GMT±x where there are no letters', () => {
    assert.equal(timezoneAbbr('Asia/Tokyo', summer), 'GMT+9');
    assert.equal(timezoneAbbr('Asia/Kolkata', summer), 'GMT+5:30');
  });

  it('gives "" for an invalid zone', () => {
    assert.equal(timezoneAbbr('Mars/Olympus', summer), '');
    assert.equal(timezoneAbbr('', summer), '');
  });
});
