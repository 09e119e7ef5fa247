// The OpenAPI document's schemas for inputs that several arguments share (Arg.openapi): what the service reads, in
// every form it reads it, so that a client generated from the document can send each form and no other.
import Type from 'typebox';
import { component } from './schema-names.ts';

/** An absolute http(s) URL, as domain/urls.ts isAbsoluteUrl accepts it (surrounding spaces are trimmed). */
const HTTP_URL = { type: 'string', format: 'uri', pattern: '^\\s*[Hh][Tt][Tt][Pp][Ss]?://' };

/**
 * D8 (domain/dates/input-grammar.ts). Not `format: date-time`: the service's own form, `YYYY-MM-DD HH:MM:SS`, is not
 * RFC 3339, and most of the forms it reads are not either.
 */
export const DATE_INPUT = component(
  'DateInput',
  Type.Unsafe({
    description:
      "A date. Without an offset it is a wall-clock time in the event's time zone (event dates) or the site's (other dates).",
    oneOf: [
      {
        type: 'string',
        minLength: 1,
        description: [
          'One of: `YYYY-MM-DD HH:MM:SS` (the form the API writes), `YYYY-MM-DD HH:MM`, `YYYY-MM-DD` (midnight);',
          'ISO 8601 with `T`, fractions of a second and an offset (`Z`, `+01:00`, `+0100`, `+01`);',
          'a date with a 12-hour time (`2030-03-10 4:30 pm`); a Unix timestamp in digits;',
          'a relative form, read against the current time: `now`, `today`, `tomorrow`, `yesterday`, `next monday`,',
          '`last friday`, `+1 week`, `2 days ago`, `next month`, `9am`, `noon`, `midnight`. Years 0001 to 9999.',
        ].join(' '),
        examples: [
          '2030-03-10 09:00:00',
          '2030-03-10',
          '2030-03-10T09:00:00+01:00',
          '2030-03-10 4:30 pm',
          '1899277200',
          'tomorrow 9am',
          '+1 week',
        ],
      },
      { type: 'integer', minimum: 0, description: 'A Unix timestamp: seconds since 1970-01-01 00:00:00 UTC.' },
    ],
  }),
);

/** posts/input.ts validImage (core/images/images.ts readImageInput). */
export const IMAGE_INPUT = component(
  'ImageInput',
  Type.Unsafe({
    description:
      'A featured image: the id of an image record, an absolute http(s) URL (a new image record, for authors and up), or "", false or 0 to remove it.',
    oneOf: [
      {
        type: 'integer',
        minimum: 0,
        description: "The id of an image record (an item's image.id); 0 removes the image.",
      },
      { ...HTTP_URL, description: 'An absolute http(s) URL: the image record of that URL (nothing is downloaded).' },
      {
        type: 'string',
        pattern: '^\\s*\\d+\\s*$',
        description: 'An image record id in digits; "0" removes the image.',
      },
      { type: 'string', const: '', description: 'Removes the image.' },
      { type: 'boolean', const: false, description: 'Removes the image.' },
    ],
  }),
);

/** A free-text field (linked/input-fields.ts textField): a number is kept as its text (a zip code). */
export const TEXT_INPUT = Type.Unsafe({
  oneOf: [{ type: 'string', description: '"" clears it.' }, { type: 'number' }],
});

/** linked/input-fields.ts websiteField. */
export const WEBSITE_INPUT = Type.Unsafe({
  oneOf: [
    { ...HTTP_URL, description: 'An absolute http(s) URL.' },
    { type: 'string', pattern: '^\\s*$', description: 'Blank: no website.' },
  ],
});
