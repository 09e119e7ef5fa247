// §3.10: what a password-protected event shows a caller who may not see its content. A pure rule on the event's JSON
// representation; whether the caller may see it (`canAccessProtected`, §11) is decided in domain/access.ts.

// The reference also lists add-on keys (ticketed, is_virtual, attendance…); this service has none of them.
const BLANKED_FIELDS: Readonly<Record<string, unknown>> = {
  description: '',
  excerpt: '',
  image: false,
  all_day: null,
  cost: '',
  cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
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
  custom_fields: [],
  email: '',
  phone: '',
  geo_lat: 0,
  geo_lng: 0,
  stateprovince: '',
  zip: '',
  province: '',
  country: '',
  city: '',
  address: '',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function blank(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(blank);
  return isPlainObject(value) ? blankObject(value) : value;
}

function blankObject(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).map(([key, field]) => [
      key,
      Object.hasOwn(BLANKED_FIELDS, key) ? structuredClone(BLANKED_FIELDS[key]) : blank(field),
    ]),
  );
}

/**
 * §3.10: a copy of `obj` in which every listed key that exists, at any depth, is replaced by its blank value, key order
 * kept. As in the reference, a replaced value is not descended into (an event's nested `venue` simply becomes `[]`),
 * while every other object or array is, so nested copies such as a venue's `json_ld` are blanked too.
 */
export function blankProtectedFields(obj: Record<string, unknown>): Record<string, unknown> {
  return blankObject(obj);
}
