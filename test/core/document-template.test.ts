// D34: a stored document's tokens are replaced by their parts' text (core/documents/template.ts). The fill scans for
// the tokens by hand; it must answer exactly what the regular expression that first defined it answers, on templates
// written the way the renderer writes them (JSON.stringify of objects holding tokens) and on text that only looks
// like them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { fillTemplate, token, type Part } from '../../src/core/documents/template.ts';

/** The definition the fill follows: each token, with the optional key written before it, found by this expression. */
function fillByExpression(template: string, parts: Readonly<Partial<Record<Part, string>>>): string {
  return template.replace(/(,"[A-Za-z@]+":)?"\\ud800([a-z-]+)"/g, (_match, key: string | undefined, name: Part) => {
    const value = parts[name];
    if (value === undefined) {
      if (key === undefined) throw new Error(`fillTemplate: no text for the required part "${name}"`);
      return '';
    }
    return (key ?? '') + value;
  });
}

const PARTS: Part[] = ['venue', 'organizer', 'categories', 'tags', 'ld-location', 'ld-organizer'];
/** Text that is, or looks like, part of a token or of an optional key. */
const PIECES = [
  'a',
  'Z',
  '@',
  ',',
  ':',
  '"',
  '\\',
  'ud800',
  '\\ud800',
  '\ud800',
  'é',
  '😀',
  ' ',
  '-',
  'venue',
  '{',
  '}',
];

describe('stored document templates', () => {
  it('fill as the expression that defines them, on randomized templates', () => {
    const random = seededRandom(34);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const text = () =>
      Array.from({ length: Math.floor(random() * 6) }, () => pick(PIECES)).join('') +
      (random() < 0.2 ? token(pick(PARTS)) : '');
    const value = (depth: number): unknown => {
      const roll = random();
      if (roll < 0.3) return token(pick(PARTS));
      if (roll < 0.55 || depth === 0) return text();
      if (roll < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth - 1));
      return object(depth - 1);
    };
    const object = (depth: number): Record<string, unknown> =>
      Object.fromEntries(
        Array.from({ length: Math.floor(random() * 5) }, (_, index) => [
          random() < 0.7 ? pick(['location', 'organizer', '@type', 'name', 'Key', 'a-b']) : `${text()}${index}`,
          value(depth),
        ]),
      );
    let filled = 0;
    let refused = 0;
    for (let round = 0; round < 3000; round++) {
      const template = JSON.stringify(object(3));
      const parts = Object.fromEntries(
        PARTS.filter(() => random() < 0.8).map((part) => [part, random() < 0.5 ? JSON.stringify(text()) : '[]']),
      );
      let expected: string | Error;
      try {
        expected = fillByExpression(template, parts);
      } catch (error) {
        expected = error as Error;
      }
      if (expected instanceof Error) {
        assert.throws(() => fillTemplate(template, parts), { message: expected.message }, template);
        refused++;
      } else {
        assert.equal(fillTemplate(template, parts), expected, template);
        filled++;
      }
    }
    // Both outcomes were reached often: the cases test something.
    assert.ok(filled > 500 && refused > 500, `${filled} filled, ${refused} refused`);
  });

  it('leaves out a key after a comma whose part is missing, with its comma; any other token is required', () => {
    const template = JSON.stringify({
      '@type': 'Event',
      location: token('ld-location'),
      organizer: token('ld-organizer'),
      venues: [token('venue')],
    });
    assert.equal(
      fillTemplate(template, { venue: '{"id":1}', 'ld-organizer': '{"name":"Ann"}' }),
      '{"@type":"Event","organizer":{"name":"Ann"},"venues":[{"id":1}]}',
    );
    assert.throws(() => fillTemplate(template, {}), /required part "venue"/);
    assert.equal(fillTemplate('{"title":"no tokens here"}', {}), '{"title":"no tokens here"}');
  });
});
