// D22, the pure rules of http/etag.ts: If-Match / If-None-Match grammar (RFC 9110 §8.8.3, RFC 9110 §13.1.1,
// RFC 9110 §13.1.2), comparison, tags and HTTP dates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  entityTag,
  httpDate,
  ifMatchPrecondition,
  jsonTag,
  lastModifiedHeader,
  matchHolds,
  noneMatchFails,
  parseTagCondition,
} from '../../src/http/etag.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { JSON_TYPE } from '../../src/http/content-types.ts';

describe('parseTagCondition', () => {
  it('reads *, one tag, weak tags and lists with optional whitespace and empty elements', () => {
    assert.deepEqual(parseTagCondition('*'), { any: true });
    assert.deepEqual(parseTagCondition(' * '), { any: true });
    assert.deepEqual(parseTagCondition('"abc"'), { any: false, tags: [{ weak: false, opaque: '"abc"' }] });
    assert.deepEqual(parseTagCondition('W/"abc"'), { any: false, tags: [{ weak: true, opaque: '"abc"' }] });
    assert.deepEqual(parseTagCondition('""'), { any: false, tags: [{ weak: false, opaque: '""' }] });
    assert.deepEqual(parseTagCondition('"a" ,\tW/"b",, "c",'), {
      any: false,
      tags: [
        { weak: false, opaque: '"a"' },
        { weak: true, opaque: '"b"' },
        { weak: false, opaque: '"c"' },
      ],
    });
  });

  it('keeps a comma inside a tag', () => {
    assert.deepEqual(parseTagCondition('"a,b", "c"'), {
      any: false,
      tags: [
        { weak: false, opaque: '"a,b"' },
        { weak: false, opaque: '"c"' },
      ],
    });
  });

  it('accepts obs-text (Latin-1 bytes) inside a tag', () => {
    assert.deepEqual(parseTagCondition('"caf\u00e9"'), { any: false, tags: [{ weak: false, opaque: '"caf\u00e9"' }] });
  });

  it('refuses anything else', () => {
    for (const value of [
      '',
      ' ',
      ',',
      ', ,',
      'abc',
      '"abc',
      'abc"',
      'W/abc',
      'w/"abc"',
      'W/ "abc"',
      '*, "a"',
      '"a", *',
      '**',
      '"a" "b"',
      '"a"b',
      '"a";',
      '"a\u007fb"',
      '"a b"',
      '"a\u0001"',
      '"a"""',
    ]) {
      assert.equal(parseTagCondition(value), null, JSON.stringify(value));
    }
  });
});

describe('comparison', () => {
  const strong = '"abc"';
  it('If-None-Match compares weakly and * matches any representation', () => {
    assert.equal(noneMatchFails(parseTagCondition('"abc"')!, strong), true);
    assert.equal(noneMatchFails(parseTagCondition('W/"abc"')!, strong), true);
    assert.equal(noneMatchFails(parseTagCondition('"x", "abc"')!, strong), true);
    assert.equal(noneMatchFails(parseTagCondition('"x"')!, strong), false);
    assert.equal(noneMatchFails(parseTagCondition('*')!, strong), true);
  });

  it('If-Match compares strongly; * needs a current representation', () => {
    assert.equal(matchHolds(parseTagCondition('"abc"')!, strong), true);
    assert.equal(matchHolds(parseTagCondition('"x", "abc"')!, strong), true);
    assert.equal(matchHolds(parseTagCondition('W/"abc"')!, strong), false);
    assert.equal(matchHolds(parseTagCondition('"x"')!, strong), false);
    assert.equal(matchHolds(parseTagCondition('"abc"')!, undefined), false);
    assert.equal(matchHolds(parseTagCondition('*')!, strong), true);
    assert.equal(matchHolds(parseTagCondition('*')!, undefined), false);
    assert.equal(matchHolds(parseTagCondition('*')!, undefined, true), true);
  });
});

describe('tags', () => {
  it('are strong, 22 base64url characters, and change with any byte or the type', () => {
    const tag = entityTag(JSON_TYPE, '{"a":1}');
    assert.match(tag, /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(entityTag(JSON_TYPE, Buffer.from('{"a":1}')), tag, 'a string and its UTF-8 bytes');
    assert.notEqual(entityTag(JSON_TYPE, '{"a":2}'), tag);
    assert.notEqual(entityTag('text/calendar; charset=utf-8', '{"a":1}'), tag);
    assert.equal(jsonTag({ a: 1 }), tag, 'jsonTag is the tag of the JSON answer as sent');
  });
});

describe('dates', () => {
  it('turns a stored UTC date into an HTTP-date', () => {
    assert.equal(httpDate('2024-03-05 07:08:09'), 'Tue, 05 Mar 2024 07:08:09 GMT');
    assert.equal(httpDate('0000-00-00 00:00:00'), undefined);
    assert.equal(httpDate('garbage'), undefined);
    assert.equal(httpDate(undefined), undefined);
    assert.deepEqual(lastModifiedHeader({ modified_utc: '2024-03-05 07:08:09' }), {
      'Last-Modified': 'Tue, 05 Mar 2024 07:08:09 GMT',
    });
    assert.deepEqual(lastModifiedHeader({}), {});
  });
});

describe('ifMatchPrecondition', () => {
  const trx = {} as never;
  it('is no precondition without If-Match or with *', () => {
    assert.deepEqual(
      ifMatchPrecondition(undefined, async () => '"a"'),
      {},
    );
    assert.deepEqual(
      ifMatchPrecondition({ any: true }, async () => '"a"'),
      {},
    );
  });

  it('passes when the current tag is listed and refuses with rest_precondition_failed otherwise', async () => {
    const condition = parseTagCondition('"a", "b"')!;
    await ifMatchPrecondition(condition, async () => '"b"').precondition!(trx);
    for (const current of ['"c"', undefined]) {
      await assert.rejects(
        ifMatchPrecondition(condition, async () => current).precondition!(trx),
        (error: unknown) =>
          error instanceof DomainError &&
          error.kind === 'precondition_failed' &&
          error.code === 'rest_precondition_failed',
      );
    }
  });
});
