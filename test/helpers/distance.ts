import { EARTH_RADIUS_KM } from '../../src/domain/geo-box.ts';

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/**
 * The great-circle distance in km between two points (haversine), computed apart from the service's SQL, which
 * compares the same haversine term with its value at the radius (core/events/store.ts `venuesNear`).
 */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const a =
    Math.sin(radians(lat2 - lat1) / 2) ** 2 +
    Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(radians(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}
