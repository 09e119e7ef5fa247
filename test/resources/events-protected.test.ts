// §3.10: the blanking of a password-protected event's fields, as a pure rule (the routes' use of it is covered by the
// event read and list suites).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { blankProtectedFields } from '../../src/core/events/protected.ts';

describe('blankProtectedFields (§3.10)', () => {
  const blankCost = { currency_symbol: '', currency_position: '', currency_code: '', values: [] };

  function assertSameJson(actual: unknown, expected: unknown): void {
    // JSON text compares key order too, which deepEqual does not.
    assert.equal(JSON.stringify(actual), JSON.stringify(expected));
  }

  const venue = {
    id: 11,
    author: '1',
    status: 'publish',
    date: '2030-01-01 00:00:00',
    url: 'http://example.test/venue/hall/',
    venue: 'Hall',
    slug: 'hall',
    description: '<p>Big</p>',
    image: { url: 'http://example.test/a.png', id: 12, extension: 'png' },
    show_map: true,
    show_map_link: false,
    address: '1 Main St',
    city: 'Rome',
    country: 'Italy',
    province: 'RM',
    stateprovince: 'RM',
    state: 'Lazio',
    zip: '00100',
    phone: '123',
    website: 'https://hall.test',
    geo_lat: 41.9,
    geo_lng: 12.5,
    json_ld: {
      '@type': 'Place',
      name: 'Hall',
      description: 'Big',
      address: { '@type': 'PostalAddress', streetAddress: '1 Main St' },
      telephone: '123',
    },
  };

  const event = {
    id: 10,
    global_id: 'example.test?id=10',
    global_id_lineage: ['example.test?id=10'],
    author: '1',
    status: 'publish',
    date: '2030-01-01 00:00:00',
    rest_url: 'http://example.test/calendar/events/v1/events/10',
    title: 'Gala',
    description: '<p>Secret plans</p>',
    excerpt: 'Secret',
    slug: 'gala',
    image: false,
    all_day: false,
    start_date: '2030-02-01 19:00:00',
    start_date_details: { year: '2030', month: '02' },
    timezone: 'UTC',
    cost: '25',
    cost_details: { currency_symbol: '$', currency_code: 'USD', currency_position: 'prefix', values: ['25'] },
    website: 'https://gala.test',
    show_map: true,
    show_map_link: true,
    hide_from_listings: false,
    sticky: false,
    featured: true,
    categories: [{ id: 2, name: 'Music', description: 'Loud' }],
    tags: [{ id: 3, name: 'jazz' }],
    venue,
    organizer: [{ id: 13, organizer: 'Org', email: 'o@example.test' }],
  };

  test('an event: every listed key is blanked, key order kept, the rest untouched', () => {
    assertSameJson(blankProtectedFields(event), {
      id: 10,
      global_id: 'example.test?id=10',
      global_id_lineage: ['example.test?id=10'],
      author: '1',
      status: 'publish',
      date: '2030-01-01 00:00:00',
      rest_url: 'http://example.test/calendar/events/v1/events/10',
      title: 'Gala',
      description: '',
      excerpt: '',
      slug: 'gala',
      image: false,
      all_day: null,
      start_date: '2030-02-01 19:00:00',
      start_date_details: { year: '2030', month: '02' },
      timezone: 'UTC',
      cost: '',
      cost_details: blankCost,
      website: '',
      show_map: null,
      show_map_link: null,
      hide_from_listings: null,
      sticky: null,
      featured: null,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
    });
  });

  test('an event’s nested venue is replaced by [], not blanked field by field', () => {
    const blanked = blankProtectedFields(event);
    assert.deepEqual(blanked.venue, []);
    assert.deepEqual(blanked.organizer, []);
  });

  test('a venue: its name key `venue` becomes [] (reference quirk) and nested objects are blanked too', () => {
    assertSameJson(blankProtectedFields(venue), {
      id: 11,
      author: '1',
      status: 'publish',
      date: '2030-01-01 00:00:00',
      url: 'http://example.test/venue/hall/',
      venue: [],
      slug: 'hall',
      description: '',
      image: false,
      show_map: null,
      show_map_link: null,
      address: '',
      city: '',
      country: '',
      province: '',
      stateprovince: '',
      state: 'Lazio',
      zip: '',
      phone: '',
      website: '',
      geo_lat: 0,
      geo_lng: 0,
      json_ld: { '@type': 'Place', name: 'Hall', description: '', address: '', telephone: '123' },
    });
  });

  test('an organizer: its name key `organizer` becomes [], email and phone ""', () => {
    const organizer = {
      id: 13,
      organizer: 'Org',
      slug: 'org',
      email: 'o@example.test',
      phone: '555',
      website: 'https://o.test',
      custom_fields: [{ a: 1 }],
    };
    assertSameJson(blankProtectedFields(organizer), {
      id: 13,
      organizer: [],
      slug: 'org',
      email: '',
      phone: '',
      website: '',
      custom_fields: [],
    });
  });

  test('objects inside arrays are blanked; other values pass through', () => {
    const input = { rows: [{ cost: '5', label: 'a' }, 'text', 3, null, [{ zip: '1' }]], nothing: null };
    assertSameJson(blankProtectedFields(input), {
      rows: [{ cost: '', label: 'a' }, 'text', 3, null, [{ zip: '' }]],
      nothing: null,
    });
  });

  test('keys that are absent are not added', () => {
    assert.deepEqual(blankProtectedFields({ id: 1, title: 'x' }), { id: 1, title: 'x' });
  });

  test('the input is not modified', () => {
    const before = structuredClone(event);
    blankProtectedFields(event);
    assert.deepEqual(event, before);
  });

  test('each result gets its own blank values', () => {
    const first = blankProtectedFields({ cost_details: {}, tags: ['a'] });
    (first.cost_details as { values: string[] }).values.push('9');
    (first.tags as string[]).push('b');
    assertSameJson(blankProtectedFields({ cost_details: {}, tags: ['a'] }), { cost_details: blankCost, tags: [] });
  });
});
