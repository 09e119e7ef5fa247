import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DateTime, IANAZone } from 'luxon';
import { TabledZone } from '../../../src/domain/dates/tabled-zone.ts';
import { classifyTimezone } from '../../../src/domain/dates/zones.ts';

const NAMES = ['America/New_York', 'Europe/Rome', 'Australia/Lord_Howe', 'America/Santiago', 'Pacific/Chatham'];

describe('TabledZone', () => {
  it('is what an event zone is read as: every DateTime made in it equals one made in the plain zone', () => {
    assert.ok(classifyTimezone('Europe/Rome')?.zone instanceof TabledZone);
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const name of NAMES) {
      const plain = IANAZone.create(name);
      const tabled = new TabledZone(plain);
      for (let index = 0; index < 500; index++) {
        const ms = Date.UTC(1970, 0, 1) + Math.floor(next() * 80 * 365 * 86_400) * 1000;
        const viaPlain = DateTime.fromMillis(ms, { zone: plain });
        const viaTabled = DateTime.fromMillis(ms, { zone: tabled });
        assert.equal(viaTabled.toISO(), viaPlain.toISO(), `${name} at ${ms}`);
        assert.equal(viaTabled.toFormat('yyyy-MM-dd HH:mm:ss ZZZZ'), viaPlain.toFormat('yyyy-MM-dd HH:mm:ss ZZZZ'));
        assert.equal(viaTabled.isInDST, viaPlain.isInDST);
        // Wall-clock arithmetic crosses transitions the same way.
        assert.equal(viaTabled.plus({ days: 40 }).toISO(), viaPlain.plus({ days: 40 }).toISO());
        // Reading a wall-clock time back (gaps and overlaps included) gives the same instant.
        const fields = { year: viaPlain.year, month: viaPlain.month, day: viaPlain.day, hour: Math.floor(next() * 24) };
        assert.equal(
          DateTime.fromObject(fields, { zone: tabled }).toMillis(),
          DateTime.fromObject(fields, { zone: plain }).toMillis(),
          `${name} ${JSON.stringify(fields)}`,
        );
      }
      assert.ok(tabled.equals(plain) && plain.equals(tabled));
      assert.equal(tabled.name, name);
      assert.equal(tabled.type, 'iana');
    }
  });
});
