// D13: the latitude and longitude bounds that hold every point within a distance of a centre, so that a search near a
// place reads the venues of a band of the coordinates' index instead of working out its distance to every venue. Pure;
// the great-circle distance itself still decides (core/events/store.ts `venuesNear`).

/** The Earth's mean radius, which the distance of a search near a place is measured on. */
export const EARTH_RADIUS_KM = 6371;

/**
 * Bounds in degrees, inclusive. Without `lng` every longitude may be near: the circle holds a pole, or it crosses the
 * antimeridian (a band that wraps is left to the distance alone).
 */
export interface GeoBox {
  lat: { min: number; max: number };
  lng?: { min: number; max: number };
}

/**
 * A hair of a degree (a fifth of a millimetre) added to each bound, so that a point exactly at the distance, which the
 * distance keeps, is never cut off by the rounding of the bounds' own arithmetic.
 */
const MARGIN_DEGREES = 1e-11 * 180;

const degrees = (radians: number) => (radians * 180) / Math.PI;

/**
 * The box around (`lat`, `lng`) that holds every point within `radiusKm` of it along the sphere. A point's latitude
 * differs from the centre's by no more than the angular distance between them; its longitude by no more than
 * asin(sin d / cos φ) while the circle holds neither pole (J. P. Matuschek, "Finding points within a distance of a
 * latitude/longitude using bounding coordinates").
 */
export function geoBox(lat: number, lng: number, radiusKm: number): GeoBox {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const latMin = lat - degrees(angle) - MARGIN_DEGREES;
  const latMax = lat + degrees(angle) + MARGIN_DEGREES;
  const latBand = { min: Math.max(-90, latMin), max: Math.min(90, latMax) };
  if (latMin <= -90 || latMax >= 90 || angle >= Math.PI / 2) return { lat: latBand };
  const spread = degrees(Math.asin(Math.min(1, Math.sin(angle) / Math.cos((lat * Math.PI) / 180)))) + MARGIN_DEGREES;
  const lngMin = lng - spread;
  const lngMax = lng + spread;
  if (lngMin < -180 || lngMax > 180) return { lat: latBand };
  return { lat: latBand, lng: { min: lngMin, max: lngMax } };
}
