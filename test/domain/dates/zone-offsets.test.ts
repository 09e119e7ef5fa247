import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FixedOffsetZone, IANAZone } from 'luxon';
import { offsetAt } from '../../../src/domain/dates/zone-offsets.ts';

describe('offsetAt', () => {
  it('agrees with Intl on thousands of instants across zones with and without DST', () => {
    const zones = ['America/New_York', 'Europe/Rome', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Santiago', 'Pacific/Chatham', 'UTC']
      .map((name) => IANAZone.create(name));
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let index = 0; index < 4000; index++) {
      const ms = Date.UTC(1990, 0, 1) + Math.floor(next() * 60 * 365 * 86_400) * 1000;
      for (const zone of zones) assert.equal(offsetAt(zone, ms), zone.offset(ms), `${zone.name} at ${new Date(ms).toISOString()}`);
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

  it('passes fixed offsets through', () => {
    assert.equal(offsetAt(FixedOffsetZone.instance(330), Date.now()), 330);
  });
});
