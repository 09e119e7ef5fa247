import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  assignUniqueSlugs,
  MAX_SLUG_LENGTH,
  slugify,
  trashedSlug,
  uniqueSlug,
  uniqueSlugAsync,
  untrashedSlug,
} from '../../src/domain/slugs.ts';

describe('slugify', () => {
  it('lowercases and joins words with dashes', () => {
    assert.equal(slugify('Sample Conference'), 'sample-conference');
    assert.equal(slugify('ZZ Probe Org'), 'zz-probe-org');
  });

  it('transliterates accents', () => {
    assert.equal(slugify('Café Ü'), 'cafe-u');
    assert.equal(slugify('Räksmörgås naïve Ærø straße'), 'raksmorgas-naive-aero-strasse');
    assert.equal(slugify('Привет мир'), 'privet-mir');
  });

  it('turns other characters into single dashes and trims them', () => {
    assert.equal(slugify('  Hello, World!  '), 'hello-world');
    assert.equal(slugify('a.b/c -- d'), 'a-b-c-d');
    assert.equal(slugify('--edge--'), 'edge');
  });

  it('drops & (as WordPress does) and apostrophes', () => {
    assert.equal(slugify('Tom & Jerry'), 'tom-jerry');
    assert.equal(slugify("Jerry's Party"), 'jerrys-party');
  });

  it('keeps camel case as one word and keeps underscores, as WordPress does', () => {
    assert.equal(slugify('iPhone Launch'), 'iphone-launch');
    assert.equal(slugify('my_event'), 'my_event');
  });

  it('keeps digits', () => {
    assert.equal(slugify('Event 2027'), 'event-2027');
  });

  it('is empty when nothing usable is left', () => {
    assert.equal(slugify(''), '');
    assert.equal(slugify(' \t\n '), '');
    assert.equal(slugify('!!! ??? ---'), '');
    assert.equal(slugify('日本語'), '');
  });

  it('is at most 200 characters, without a trailing dash', () => {
    assert.equal(slugify('a'.repeat(250)), 'a'.repeat(MAX_SLUG_LENGTH));
    assert.equal(slugify(`${'a'.repeat(199)} b`), 'a'.repeat(199));
  });
});

describe('uniqueSlug', () => {
  it('returns the base when it is free', () => {
    assert.equal(
      uniqueSlug('party', () => false),
      'party',
    );
  });

  it('appends -2, -3, … until it finds a free slug', () => {
    const taken = new Set(['party', 'party-2', 'party-3']);
    assert.equal(
      uniqueSlug('party', (candidate) => taken.has(candidate)),
      'party-4',
    );
  });

  it('asks about each candidate in order', () => {
    const asked: string[] = [];
    uniqueSlug('party', (candidate) => {
      asked.push(candidate);
      return asked.length < 3;
    });
    assert.deepEqual(asked, ['party', 'party-2', 'party-3']);
  });

  it('shortens a long base so that the result fits in 200 characters', () => {
    const base = 'a'.repeat(MAX_SLUG_LENGTH);
    const slug = uniqueSlug(base, (candidate) => candidate === base);
    assert.equal(slug, `${'a'.repeat(MAX_SLUG_LENGTH - 2)}-2`);
  });

  it('does not leave a double dash when shortening', () => {
    const base = `${'a'.repeat(197)}-bc`;
    assert.equal(
      uniqueSlug(base, (candidate) => candidate === base),
      `${'a'.repeat(197)}-2`,
    );
  });
});

describe('uniqueSlugAsync', () => {
  it('works like uniqueSlug with an asynchronous check', async () => {
    const taken = new Set(['party', 'party-2']);
    assert.equal(await uniqueSlugAsync('party', async (candidate) => taken.has(candidate)), 'party-3');
    assert.equal(await uniqueSlugAsync('free', async () => false), 'free');
  });
});

describe('assignUniqueSlugs for one item', () => {
  const next = (base: string, taken: Iterable<string>) => assignUniqueSlugs([base], new Set(taken))[0];

  it('returns the base when it is not taken', () => {
    assert.equal(next('party', []), 'party');
    assert.equal(next('party', ['party-2']), 'party');
  });

  it('returns the first free numbered slug', () => {
    assert.equal(next('party', ['party', 'party-2', 'party-4']), 'party-3');
    assert.equal(next('party', new Set(['party', 'party-2', 'party-3'])), 'party-4');
  });

  it('is not confused by other slugs that start with the base', () => {
    assert.equal(next('party', ['party', 'party-time', 'party-2-b']), 'party-2');
  });
});

describe('assignUniqueSlugs', () => {
  it('numbers repeated and taken bases in order, as one uniqueSlug after another would', () => {
    assert.deepEqual(assignUniqueSlugs(['jam', 'jam', 'talk', 'jam', 'jam-2'], new Set(['jam', 'jam-3'])), [
      'jam-2',
      'jam-4',
      'talk',
      'jam-5',
      'jam-2-2',
    ]);
  });

  it('agrees with uniqueSlug applied item by item', () => {
    const bases = ['a', 'b', 'a', 'a-2', 'a', 'b', 'a-2', 'c'];
    const taken = new Set(['a', 'a-3', 'b-2', 'a-2-2']);
    const used = new Set(taken);
    const oneByOne = bases.map((base) => {
      const slug = uniqueSlug(base, (candidate) => used.has(candidate));
      used.add(slug);
      return slug;
    });
    assert.deepEqual(assignUniqueSlugs(bases, taken), oneByOne);
  });

  it('keeps numbered slugs within 200 characters', () => {
    const long = 'x'.repeat(200);
    assert.deepEqual(assignUniqueSlugs([long, long], new Set()), [long, `${'x'.repeat(198)}-2`]);
  });
});

describe('trashedSlug and untrashedSlug', () => {
  it('adds and removes the __trashed suffix', () => {
    assert.equal(trashedSlug('sample-conference'), 'sample-conference__trashed');
    assert.equal(untrashedSlug('sample-conference__trashed'), 'sample-conference');
  });

  it('does not add the suffix twice', () => {
    assert.equal(trashedSlug('party__trashed'), 'party__trashed');
  });

  it('leaves a slug without the suffix alone', () => {
    assert.equal(untrashedSlug('party'), 'party');
  });

  it('keeps a trashed slug within 200 characters', () => {
    const slug = trashedSlug('a'.repeat(MAX_SLUG_LENGTH));
    assert.equal(slug.length, MAX_SLUG_LENGTH);
    assert.equal(slug, `${'a'.repeat(191)}__trashed`);
  });
});
