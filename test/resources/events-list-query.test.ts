import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import type { Viewer } from '../../src/domain/access.ts';
import {
  coordinateIssue,
  dateConditions,
  planEventList,
  searchTerms,
  type EventListParams,
} from '../../src/core/events/list-query.ts';

/** The clock of the reference examples: 2026-11-22 04:20 UTC. */
const NOW = DateTime.fromISO('2026-11-22T04:20:21Z');
const anonymous: Viewer = null;
const editor: Viewer = { id: 2, role: 'editor' };

const plan = (params: Partial<EventListParams>, viewer: Viewer = anonymous, siteZone = 'UTC') =>
  planEventList({ page: 1, ...params }, { viewer, siteZone, now: NOW, perPageDefault: 10, perPageMax: 100 });

const conditions = (sent: Record<string, unknown>, options = { strict: false, include: false }, siteZone = 'UTC') =>
  dateConditions(sent, options, siteZone, NOW).map(
    ({ param, column, operator, value }) => `${param}: ${column} ${operator} ${value}`,
  );

describe('dateConditions (§4.2)', () => {
  it('defaults to yesterday 00:00 → now + 24 months, end of day, on the local start and end', () => {
    assert.deepEqual(conditions({}), [
      'start_date: start >= 2026-11-21 00:00:00',
      'end_date: end <= 2028-11-22 23:59:59',
    ]);
  });

  it('computes the default start in the site zone: on a UTC+10 site it is today', () => {
    assert.deepEqual(conditions({}, undefined, 'Australia/Brisbane')[0], 'start_date: start >= 2026-11-22 00:00:00');
  });

  it('snaps start_date to the start of its day and end_date to the end of its day, keeping the other default', () => {
    assert.deepEqual(conditions({ start_date: '2027-01-01 15:00' }), [
      'start_date: start >= 2027-01-01 00:00:00',
      'end_date: end <= 2028-11-22 23:59:59',
    ]);
    assert.deepEqual(conditions({ end_date: '2027-01-31 08:00' }), [
      'start_date: start >= 2026-11-21 00:00:00',
      'end_date: end <= 2027-01-31 23:59:59',
    ]);
  });

  it('snaps every starts_*/ends_* bound to the end of its day, and then drops the defaults', () => {
    assert.deepEqual(
      conditions({
        starts_after: '2026-12-01',
        starts_before: '2026-12-01 10:00',
        ends_before: '2027-01-01',
        ends_after: '2026-11-01',
      }),
      [
        'starts_before: start < 2026-12-01 23:59:59',
        'starts_after: start > 2026-12-01 23:59:59',
        'ends_before: end < 2027-01-01 23:59:59',
        'ends_after: end > 2026-11-01 23:59:59',
      ],
    );
  });

  it('keeps an explicit start_date or end_date next to starts_*/ends_*', () => {
    assert.deepEqual(conditions({ start_date: '2026-01-01', ends_before: '2026-06-01' }), [
      'start_date: start >= 2026-01-01 00:00:00',
      'ends_before: end < 2026-06-01 23:59:59',
    ]);
  });

  it('uses the values as given in strict mode, read in the site zone (offsets converted)', () => {
    const strict = { strict: true, include: false };
    assert.deepEqual(conditions({ start_date: '2026-12-01 11:00:00' }, strict), [
      'start_date: start >= 2026-12-01 11:00:00',
      'end_date: end <= 2028-11-22 23:59:59',
    ]);
    assert.deepEqual(conditions({ starts_after: '2026-12-01T11:00:00+01:00' }, strict), [
      'starts_after: start > 2026-12-01 10:00:00',
    ]);
    assert.deepEqual(
      conditions({ start_date: '2026-12-01 11:00:00' }, strict, 'Europe/Paris')[0],
      'start_date: start >= 2026-12-01 11:00:00',
    );
  });

  it('reads relative forms against now', () => {
    assert.deepEqual(conditions({ start_date: 'tomorrow' })[0], 'start_date: start >= 2026-11-23 00:00:00');
  });

  it('drops every date condition with include (D9), explicit ones too', () => {
    assert.deepEqual(conditions({ start_date: '2031-01-01' }, { strict: false, include: true }), []);
  });
});

describe('searchTerms (§4.3)', () => {
  it('splits on spaces, commas and plus signs, lower-cased', () => {
    assert.deepEqual(searchTerms('Hello  World,Foo+bar'), ['hello', 'world', 'foo', 'bar']);
  });

  it('keeps a quoted phrase together', () => {
    assert.deepEqual(searchTerms('"big band" Jazz'), ['big band', 'jazz']);
    assert.deepEqual(searchTerms('"unterminated phrase'), ['unterminated phrase']);
  });

  it('lower-cases non-ASCII letters', () => {
    assert.deepEqual(searchTerms('ÉTÉ Straße'), ['été', 'straße']);
  });

  it('gives no term for a string of separators', () => {
    assert.deepEqual(searchTerms(' , + '), []);
  });
});

describe('coordinateIssue (D13)', () => {
  it('names the missing coordinate', () => {
    assert.equal(coordinateIssue({}), null);
    assert.equal(coordinateIssue({ geoloc_lat: 1, geoloc_lng: 2 }), null);
    assert.deepEqual(Object.keys(coordinateIssue({ geoloc_lat: 1 })!), ['geoloc_lng']);
    assert.deepEqual(Object.keys(coordinateIssue({ geoloc_lng: 1 })!), ['geoloc_lat']);
  });
});

describe('planEventList', () => {
  it('echoes the reference default query for an anonymous caller (example 09)', () => {
    const result = plan({});
    assert.deepEqual(
      result.echo.filter(([, value]) => value !== undefined),
      [
        ['page', 1],
        ['per_page', 10],
        ['start_date', '2026-11-21 00:00:00'],
        ['end_date', '2028-11-22 23:59:59'],
        ['status', 'publish'],
      ],
    );
    assert.deepEqual(result.statuses, ['publish']);
    assert.equal(result.order, 'start');
  });

  it('defaults editors to every status but trash, echoed as any', () => {
    const result = plan({}, editor);
    assert.deepEqual(result.statuses, ['publish', 'future', 'draft', 'pending', 'private']);
    assert.deepEqual(
      result.echo.find(([name]) => name === 'status'),
      ['status', 'any'],
    );
    assert.deepEqual(
      plan({ status: ['draft', 'publish'] }, editor).echo.find(([name]) => name === 'status'),
      ['status', 'draft,publish'],
    );
  });

  it('clamps per_page to the maximum and echoes the effective value (D10)', () => {
    const result = plan({ per_page: 500 });
    assert.equal(result.perPage, 100);
    assert.deepEqual(result.echo[1], ['per_page', 100]);
  });

  it('echoes every effective filter in the §4.5 order, then the ones the reference omits (D11)', () => {
    const result = planEventList(
      {
        page: 2,
        per_page: 5,
        search: 'jazz',
        categories: ['music', '7'],
        tags: ['free'],
        venue: [3, 4],
        organizer: [5],
        featured: false,
        strict_dates: 'yes',
        starts_after: '2026-12-01 10:00',
        geoloc: true,
        geoloc_lat: 45.5,
        geoloc_lng: -73.5,
        post_parent: 9,
      },
      {
        viewer: anonymous,
        siteZone: 'UTC',
        now: NOW,
        perPageDefault: 10,
        perPageMax: 100,
        categoryIds: [7, 8],
        tagIds: [11],
      },
    );
    assert.deepEqual(
      result.echo.filter(([, value]) => value !== undefined),
      [
        ['page', 2],
        ['per_page', 5],
        ['search', 'jazz'],
        ['status', 'publish'],
        ['post_parent', 9],
        ['starts_after', '2026-12-01 10:00:00'],
        ['venue', '3,4'],
        ['organizer', '5'],
        ['featured', 0],
        ['categories', 'music,7'],
        ['tags', 'free'],
        ['strict_dates', 1],
        ['geoloc', 1],
        ['geoloc_lat', 45.5],
        ['geoloc_lng', -73.5],
        ['geoloc_radius', 25],
      ],
    );
    assert.deepEqual(result.categoryIds, [7, 8]);
    assert.deepEqual(result.tagIds, [11]);
    assert.deepEqual(result.searchTerms, ['jazz']);
    assert.deepEqual(result.near, { lat: 45.5, lng: -73.5, radiusKm: 25 });
  });

  it('orders by publication date and ignores dates with include (D9)', () => {
    const result = plan({ include: [4, 5], start_date: '2031-01-01', strict_dates: 'true' });
    assert.equal(result.order, 'publication');
    assert.deepEqual(result.dates, []);
    assert.deepEqual(
      result.echo.filter(([, value]) => value !== undefined).map(([name]) => name),
      ['page', 'per_page', 'status', 'include'],
    );
  });

  it('reads strict_dates as a truthy string', () => {
    assert.equal(plan({ start_date: '2026-12-01 11:00', strict_dates: 'false' }).dates[0].value, '2026-12-01 00:00:00');
    assert.equal(plan({ start_date: '2026-12-01 11:00', strict_dates: 'on' }).dates[0].value, '2026-12-01 11:00:00');
  });

  it('uses the radius sent', () => {
    assert.deepEqual(plan({ geoloc_lat: 1, geoloc_lng: 2, geoloc_radius: 100 }).near, {
      lat: 1,
      lng: 2,
      radiusKm: 100,
    });
    assert.equal(plan({ geoloc_radius: 100 }).near, undefined);
  });
});
