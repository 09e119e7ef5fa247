import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FixedOffsetZone, IANAZone } from 'luxon';
import { offsetAt } from '../../../src/domain/dates/zone-offsets.ts';

describe('offsetAt', () => {
  it('agrees with Intl on thousands of instants across zones with and without DST', () => {
    const zones = [
      'America/New_York',
      'Europe/Rome',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
      'America/Santiago',
      'Pacific/Chatham',
      'UTC',
    ].map((name) => IANAZone.create(name));
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let index = 0; index < 4000; index++) {
      const ms = Date.UTC(1990, 0, 1) + Math.floor(next() * 60 * 365 * 86_400) * 1000;
      for (const zone of zones)
        assert.equal(offsetAt(zone, ms), zone.offset(ms), `${zone.name} at ${new Date(ms).toISOString()}`);
    }
  });

  it('is exact on both sides of a transition', () => {
    const newYork = IANAZone.create('America/New_York');
    const springForward = Date.UTC(2027, 2, 14, 7, 0, 0);
    assert.equal(offsetAt(newYork, springForward - 1000), -300);
    assert.equal(offsetAt(newYork, springForward), -240);
    const fallBack = Date.UTC(2027, 10, 7, 6, 0, 0);
    assert.equal(offsetAt(newYork, fallBack - 1000), -240);
    assert.equal(offsetAt(newYork, fallBack), -300);
  });

  it('stays exact when it lets its tables go (more zone-years than it keeps) and across the years it keeps last', () => {
    const kolkata = IANAZone.create('Asia/Kolkata');
    const newYork = IANAZone.create('America/New_York');
    // 5,000 tables at most: the 5,100 years of one zone, and another zone between them, pass that bound.
    for (let year = 1; year <= 5_100; year++) {
      const ms = Date.UTC(2000, 6, 1) + (year - 2000) * 365.2425 * 86_400_000;
      assert.equal(offsetAt(kolkata, ms), kolkata.offset(ms), `Kolkata, year ${year}`);
      if (year % 500 === 0) assert.equal(offsetAt(newYork, ms), newYork.offset(ms), `New York, year ${year}`);
    }
    // Alternating between two years of one zone: each look-up leaves the other year as the last one used.
    const winter = Date.UTC(2030, 0, 15);
    const summer = Date.UTC(2031, 6, 15);
    for (let round = 0; round < 3; round++) {
      assert.equal(offsetAt(newYork, winter), -300);
      assert.equal(offsetAt(newYork, summer), -240);
    }
    // The last instant of a year and the first of the next.
    const newYear = Date.UTC(2032, 0, 1);
    assert.equal(offsetAt(newYork, newYear - 1), newYork.offset(newYear - 1));
    assert.equal(offsetAt(newYork, newYear), newYork.offset(newYear));
  });

  it('passes fixed offsets through', () => {
    assert.equal(offsetAt(FixedOffsetZone.instance(330), Date.now()), 330);
  });
});

describe('offsetAt in the years 1–99 (issue 17 item 7)', () => {
  it('probes the year itself, not 1900 + year (Date.UTC reads 0–99 as 1900–1999)', async () => {
    const { utcMonthStart } = await import('../../../src/domain/dates/zone-offsets.ts');
    const paris = IANAZone.create('Europe/Paris');
    const year50 = utcMonthStart(50, 5);
    assert.equal(new Date(year50).getUTCFullYear(), 50);
    assert.equal(offsetAt(paris, year50), paris.offset(year50));
    // Then a standard-time instant of a modern year still has its own offset and abbreviation.
    const { ianaAbbreviationAt } = await import('../../../src/domain/dates/zones.ts');
    assert.equal(ianaAbbreviationAt(paris, year50), 'GMT+0:09:21');
    const january2030 = Date.UTC(2030, 0, 15, 12);
    assert.equal(offsetAt(paris, january2030), 60);
    assert.equal(ianaAbbreviationAt(paris, january2030), 'CET');
  });
});
