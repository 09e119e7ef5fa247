import Type from 'typebox';
import { arg } from '../input/args.ts';
import type { Validator } from '../input/args.ts';
import { textField, websiteField } from '../linked/input-fields.ts';

const inRange =
  (min: number, max: number): Validator<unknown> =>
  (value) => {
    if (value === '') return true;
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    return Number.isFinite(number) && number >= min && number <= max;
  };

/** What `inRange` reads: a number, the same as text, or "" (clears the coordinates). */
const coordinateInput = (min: number, max: number) =>
  Type.Unsafe({
    oneOf: [
      { type: 'number', minimum: min, maximum: max },
      {
        type: 'string',
        pattern: '^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$',
        description: 'The number as text.',
      },
      { type: 'string', const: '', description: 'Clears both coordinates.' },
    ],
  });

export const venueFieldArgs = {
  address: textField('Street address.'),
  city: textField('City.'),
  country: textField('Country.'),
  province: textField('Province (outside the United States).'),
  state: textField('State (United States).'),
  zip: textField('Postal code.'),
  phone: textField('Phone number.'),
  website: websiteField('The venue website: an absolute URL, or empty.'),
  stateprovince: textField('State or province; derived from state or province when not sent on create.'),
  show_map: arg.truthy({ description: 'Whether event pages show a map of the venue (default true).' }),
  show_map_link: arg.truthy({ description: 'Whether event pages link to a map of the venue (default true).' }),
  geo_lat: arg.any({
    description: 'Latitude, −90 to 90; send with geo_lng, or "" to clear both.',
    validate: inRange(-90, 90),
    openapi: coordinateInput(-90, 90),
  }),
  geo_lng: arg.any({
    description: 'Longitude, −180 to 180; send with geo_lat, or "" to clear both.',
    validate: inRange(-180, 180),
    openapi: coordinateInput(-180, 180),
  }),
};
