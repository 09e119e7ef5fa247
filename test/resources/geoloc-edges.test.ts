// D13 near the poles and across the antimeridian: a search near a place reads only the venues of the box that holds
// its circle (domain/geo-box.ts), and finds every venue within the distance all the same, on both databases.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { distanceKm } from '../helpers/distance.ts';
import { describeEachDatabase } from '../helpers/harness.ts';

describeEachDatabase('events near a place, at the poles and the antimeridian', (h) => {
  it('finds every venue within the distance, and no other', async () => {
    const admin = h().users.administrator;
    const places = [
      [89.5, 10],
      [89.5, -170],
      [-89.9, 45],
      [0, 179.95],
      [0, -179.95],
      [0.05, 179.99],
      [41.9, 12.5],
      [41.9, 13.7],
      [-33.9, 151.2],
    ] as const;
    const venueAt = new Map<number, readonly [number, number]>();
    for (const [index, [geo_lat, geo_lng]] of places.entries()) {
      const venue = await h().request('POST', '/venues', {
        as: admin,
        body: { venue: `Place ${index}`, geo_lat, geo_lng },
      });
      assert.equal(venue.statusCode, 201, venue.body);
      const body = { title: `At place ${index}`, start_date: '2030-03-01 10:00:00', end_date: '2030-03-01 12:00:00' };
      const event = await h().request('POST', '/events', { as: admin, body: { ...body, venue: venue.json().id } });
      assert.equal(event.statusCode, 201, event.body);
      venueAt.set(event.json().id, places[index]);
    }
    const searches = [
      [89.9, 100, 100],
      [90, 0, 60],
      [-90, 0, 20],
      [0, 180, 20],
      [0, -180, 5],
      [0.02, 179.97, 6],
      [41.9, 12.5, 100],
      [41.9, 12.5, 99.3],
      [10, 100, 20_000],
    ] as const;
    for (const [lat, lng, radius] of searches) {
      const listed = await h().request('GET', '/events', {
        query: {
          geoloc_lat: lat,
          geoloc_lng: lng,
          geoloc_radius: radius,
          start_date: '2030-01-01',
          end_date: '2030-12-31',
          per_page: 50,
        },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const found = listed
        .json()
        .events.map((event: { id: number }) => event.id)
        .sort((a: number, b: number) => a - b);
      const expected = [...venueAt]
        .filter(([, [venueLat, venueLng]]) => distanceKm(lat, lng, venueLat, venueLng) <= radius)
        .map(([id]) => id)
        .sort((a, b) => a - b);
      assert.deepEqual(found, expected, JSON.stringify({ lat, lng, radius }));
    }
  });
});
