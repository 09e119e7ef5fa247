// What the property tests of recurrence share: a seeded generator and zones with unusual DST rules.

/** Zones whose changes test the wall-clock rules: both hemispheres, a 30-minute shift, a half-hour offset, none. */
export const PROPERTY_ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'UTC',
];

/** mulberry32: a seeded sequence in [0, 1), so that a failing case can be run again. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
