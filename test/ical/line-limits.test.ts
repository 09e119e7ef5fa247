// The linear pre-scan of an .ics file's lines (src/ical/line-limits.ts): unfolding, parameter counting, limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLineLimits, LineLimitError } from '../../src/ical/line-limits.ts';

const limits = { maxLine: 40, maxParameters: 3 };
const refusal = (text: string) => {
  try {
    checkLineLimits(text, limits);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof LineLimitError);
    return `${error.line}: ${error.message}`;
  }
};

describe('.ics line limits', () => {
  it('counts content lines, unfolded, with CRLF, LF or CR line ends', () => {
    assert.equal(checkLineLimits('A:1\r\nB:2\r\n continued\r\n\tand more\r\nC:3\r\n', limits), 3);
    assert.equal(checkLineLimits('A:1\nB:2\n continued\nC:3', limits), 3);
    assert.equal(checkLineLimits('A:1\rB:2\r continued\rC:3\r', limits), 3);
    assert.equal(checkLineLimits('', limits), 0);
  });

  it('measures a line unfolded: folds do not hide its length, and the fold characters do not count', () => {
    assert.equal(refusal(`A:${'x'.repeat(38)}`), undefined);
    assert.match(
      refusal(`Z:1\r\nA:${'x'.repeat(20)}\r\n ${'x'.repeat(19)}`)!,
      /^2: line 2 is longer than 40 characters/,
    );
    assert.equal(refusal(`A:${'x'.repeat(20)}\r\n ${'x'.repeat(18)}`), undefined);
  });

  it('counts the parameters before the value, across folds, ignoring ; and : inside quotes and in the value', () => {
    assert.equal(refusal('P;A=1;B=2;C=3:v;w;x;y;z'), undefined);
    assert.match(refusal('P;A=1;B=2;C=3;D=4:v')!, /^1: line 1 has more than 3 parameters/);
    assert.match(refusal('X:1\r\nP;A=1;B=2\r\n ;C=3;D=4:v')!, /^2: line 2 has more than 3 parameters/);
    assert.equal(refusal('P;A="x;y:z;w";B=2:v'), undefined);
    assert.match(refusal('P;A="x;y";B=2;C=3\r\n ;D=4:v')!, /more than 3 parameters/);
  });

  it('counts every content line of a long file once', () => {
    const lines = Array.from({ length: 10_000 }, (_, index) => `P;A=1;B=2:${index}`);
    assert.equal(checkLineLimits(lines.join('\r\n'), { maxLine: 100, maxParameters: 2 }), 10_000);
  });
});
