// D13: the box of a search near a place (domain/geo-box.ts) holds every point within its distance, whatever the
// centre (near a pole, across the antimeridian) and the radius, for random points measured by great-circle distance.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../bench/random.ts';
import { EARTH_RADIUS_KM, geoBox, type GeoBox } from '../../src/domain/geo-box.ts';
import { distanceKm } from '../helpers/distance.ts';

const SEED = Number(process.env.GEO_SEED ?? Math.floor(Math.random() * 2 ** 31));
const radians = (degrees: number) => (degrees * Math.PI) / 180;

const inside = (box: GeoBox, lat: number, lng: number) =>
  lat >= box.lat.min && lat <= box.lat.max && (box.lng === undefined || (lng >= box.lng.min && lng <= box.lng.max));

/** The point `km` from (`lat`, `lng`) towards `bearing` (radians) along the sphere. */
function destination(lat: number, lng: number, km: number, bearing: number): [number, number] {
  const d = km / EARTH_RADIUS_KM;
  const φ1 = radians(lat);
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(bearing));
  const λ2 =
    radians(lng) +
    Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
  const lngOut = (((((λ2 * 180) / Math.PI + 540) % 360) + 360) % 360) - 180;
  return [(φ2 * 180) / Math.PI, lngOut];
}

describe('the box of a search near a place', () => {
  it('bounds the latitudes, and the longitudes unless the circle holds a pole or crosses the antimeridian', () => {
    const rome = geoBox(41.9, 12.5, 111.195);
    assert.ok(Math.abs(rome.lat.min - 40.9) < 1e-6 && Math.abs(rome.lat.max - 42.9) < 1e-6, JSON.stringify(rome));
    assert.ok(rome.lng !== undefined && rome.lng.min < 11.2 && rome.lng.max > 13.8, JSON.stringify(rome));
    assert.equal(geoBox(89, 0, 500).lng, undefined, 'the north pole is within 500 km of 89°N');
    assert.equal(geoBox(0, 179.9, 100).lng, undefined, 'the band would wrap past 180°');
    assert.deepEqual(geoBox(0, 0, 20_000).lat, { min: -90, max: 90 });
  });

  it(`holds every point within the distance (seed ${SEED}, replay: GEO_SEED=${SEED})`, () => {
    const random = seededRandom(SEED);
    let bounded = 0;
    for (let round = 0; round < 2_000; round++) {
      // Centres anywhere, often near a pole or the antimeridian; radii from a metre to half the Earth.
      const lat = random() < 0.2 ? (random() < 0.5 ? -1 : 1) * (85 + random() * 5) : random() * 180 - 90;
      const lng = random() < 0.2 ? (random() < 0.5 ? -1 : 1) * (175 + random() * 5) : random() * 360 - 180;
      const radiusKm = 10 ** (random() * 7.3 - 3);
      const box = geoBox(lat, lng, radiusKm);
      if (box.lng !== undefined) bounded++;
      for (let point = 0; point < 20; point++) {
        // On the circle itself half the time (the extreme of each bound), within it otherwise.
        const km = radiusKm * (random() < 0.5 ? 1 : random());
        const [pointLat, pointLng] = destination(lat, lng, km, random() * 2 * Math.PI);
        if (distanceKm(lat, lng, pointLat, pointLng) > radiusKm) continue;
        const case_ = JSON.stringify({ lat, lng, radiusKm, pointLat, pointLng, box });
        assert.ok(inside(box, pointLat, pointLng), case_);
      }
    }
    assert.ok(bounded > 500, `${bounded} boxes bounded the longitudes`);
  });
});
