import Type from 'typebox';
import { coerceTruthy } from '../../domain/lists.ts';
import { removeVenueFromEvents } from '../events/store.ts';
import type { LinkedPostKind, Meta } from '../linked/kind.ts';
import { sentText } from '../linked/text.ts';
import { checkCoordinates, VENUE_TEXT_FIELDS } from './fields.ts';

/** §7.2: when not sent, stateprovince is the state for US addresses, else the province. */
export function deriveStateProvince(state: string, province: string, country: string): string {
  if (state !== '' && ['', 'us', 'united states'].includes(country.trim().toLowerCase())) return state;
  return province;
}

function coordinates(sent: Record<string, unknown>): Meta {
  if (sent.geo_lat === undefined) return {};
  if (sent.geo_lat === '' || sent.geo_lng === '') return { geo_lat: null, geo_lng: null };
  return { geo_lat: Number(sent.geo_lat), geo_lng: Number(sent.geo_lng) };
}

const flag = (value: unknown) => (coerceTruthy(value) ? 1 : 0);

export const venueKind: LinkedPostKind = {
  type: 'venue',
  collection: 'venues',
  nameKey: 'venue',
  metaTable: 'venues',
  fieldNames: [...VENUE_TEXT_FIELDS, 'website', 'show_map', 'show_map_link', 'geo_lat', 'geo_lng'],
  searchColumns: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  keepWhenEmpty: ['geo_lat', 'geo_lng'],

  metaForCreate(sent) {
    const text = sentText(sent, [...VENUE_TEXT_FIELDS, 'website']);
    const get = (name: string) => text[name] ?? '';
    return {
      address: get('address'),
      city: get('city'),
      country: get('country'),
      province: get('province'),
      state: get('state'),
      zip: get('zip'),
      phone: get('phone'),
      website: get('website'),
      stateprovince: text.stateprovince ?? deriveStateProvince(get('state'), get('province'), get('country')),
      show_map: sent.show_map === undefined ? 1 : flag(sent.show_map),
      show_map_link: sent.show_map_link === undefined ? 1 : flag(sent.show_map_link),
      geo_lat: null,
      geo_lng: null,
      ...coordinates(sent),
    };
  },

  metaChanges(sent) {
    const changes: Meta = { ...sentText(sent, [...VENUE_TEXT_FIELDS, 'website']), ...coordinates(sent) };
    if (sent.show_map !== undefined) changes.show_map = flag(sent.show_map);
    if (sent.show_map_link !== undefined) changes.show_map_link = flag(sent.show_map_link);
    return changes;
  },

  fields: (meta) => ({
    address: meta.address,
    city: meta.city,
    country: meta.country,
    province: meta.province,
    state: meta.state,
    zip: meta.zip,
    phone: meta.phone,
    website: meta.website,
    stateprovince: meta.stateprovince,
    geo_lat: meta.geo_lat,
    geo_lng: meta.geo_lng,
  }),

  fieldSchemas: {
    address: Type.String({ description: 'Street address.' }),
    city: Type.String({ description: 'City.' }),
    country: Type.String({ description: 'Country.' }),
    province: Type.String({ description: 'Province.' }),
    state: Type.String({ description: 'State.' }),
    zip: Type.String({ description: 'Postal code.' }),
    phone: Type.String({ description: 'Phone number.' }),
    website: Type.String({ description: 'The venue website.' }),
    stateprovince: Type.String({ description: 'State or province, as shown on event pages.' }),
    geo_lat: Type.Number({ minimum: -90, maximum: 90, description: 'Latitude; present whenever stored, 0 included.' }),
    geo_lng: Type.Number({
      minimum: -180,
      maximum: 180,
      description: 'Longitude; present whenever stored, 0 included.',
    }),
  },

  trailing: (meta) => ({ show_map: meta.show_map === 1, show_map_link: meta.show_map_link === 1 }),
  trailingSchemas: {
    show_map: Type.Boolean({ description: 'Whether event pages show a map of the venue.' }),
    show_map_link: Type.Boolean({ description: 'Whether event pages link to a map of the venue.' }),
  },

  jsonLd(item, meta) {
    const address: Record<string, unknown> = { '@type': 'PostalAddress' };
    const put = (target: Record<string, unknown>, key: string, value: unknown) => {
      if (value !== '' && value !== null && value !== undefined) target[key] = value;
    };
    put(address, 'streetAddress', meta.address);
    put(address, 'addressLocality', meta.city);
    put(address, 'addressRegion', meta.stateprovince || meta.state || meta.province);
    put(address, 'postalCode', meta.zip);
    put(address, 'addressCountry', meta.country);
    const place: Record<string, unknown> = { '@type': 'Place' };
    put(place, 'name', item.name);
    put(place, 'description', item.description);
    put(place, 'url', item.url);
    if (Object.keys(address).length > 1) place.address = address;
    if (meta.geo_lat !== null && meta.geo_lng !== null)
      place.geo = { '@type': 'GeoCoordinates', latitude: meta.geo_lat, longitude: meta.geo_lng };
    put(place, 'telephone', meta.phone);
    put(place, 'sameAs', meta.website);
    return place;
  },

  unlinkFromEvents: removeVenueFromEvents,

  checkFields: (sent) => checkCoordinates(sent),

  messages: {
    notAccessible: ['venue-not-accessible', 'The requested venue is not accessible'],
    inTrash: ['venue-is-in-trash', 'The venue is already trashed'],
    pageNotFound: ['venue-archive-page-not-found', 'The requested venue archive page does not exist'],
  },
};
