import Type from 'typebox';
import {
  absoluteUrl,
  closedObject,
  component,
  deletedSchema,
  emptyArray,
  postListSchema,
  wpDateTime,
} from '../../http/schemas.ts';
import { imageOrFalse } from '../images/response.ts';
import { linkedResponseSchemas } from '../linked/response.ts';
import { organizerKind } from '../../core/organizers/kind.ts';
import { globalIdProperties, jsonLdSchema, postHeadProperties } from '../posts/response.ts';
import { EmbeddedTermSchema } from '../terms/response.ts';
import { venueKind } from '../../core/venues/kind.ts';

const digits = (count: number, description: string) => Type.String({ pattern: `^\\d{${count}}$`, description });

/** §3.7: every part a zero-padded string. */
export const DateDetailsSchema = component(
  'DateDetails',
  closedObject(
    {
      year: digits(4, 'Year, four digits.'),
      month: digits(2, 'Month, 01–12.'),
      day: digits(2, 'Day of the month, 01–31.'),
      hour: digits(2, 'Hour, 00–23.'),
      minutes: digits(2, 'Minutes, 00–59.'),
      seconds: digits(2, 'Seconds, 00–59.'),
    },
    { description: 'The parts of a date, as zero-padded strings.' },
  ),
);

/** §3.8. */
export const CostDetailsSchema = component(
  'CostDetails',
  closedObject(
    {
      currency_symbol: Type.String({ description: 'The currency symbol found in the cost as sent; "" when none.' }),
      currency_code: Type.String({ description: 'Always "" (kept for compatibility).' }),
      currency_position: Type.String({
        enum: ['', 'prefix', 'postfix'],
        description: 'Whether the symbol came before or after the number; "" when there is no symbol.',
      }),
      values: Type.Array(Type.String(), {
        description: 'Every number found in the cost, as strings, sorted ascending.',
      }),
    },
    { description: 'The cost, taken apart.' },
  ),
);

/** A flag that reads null while a password hides the event's details (§3.10). */
const flag = (description: string) =>
  Type.Union([Type.Boolean(), Type.Null()], { description: `${description} null while a password hides the details.` });

const head = postHeadProperties('event');
const venue = linkedResponseSchemas(venueKind).item;
const organizer = linkedResponseSchemas(organizerKind).item;

/** §3.1. Password-protected events in lists keep their keys with blanked values (§3.10); hence the nulls and `[]`s. */
export const EventSchema = component(
  'Event',
  closedObject(
    {
      id: head.id,
      ...globalIdProperties('event'),
      author: head.author,
      status: head.status,
      date: head.date,
      date_utc: head.date_utc,
      modified: head.modified,
      modified_utc: head.modified_utc,
      url: head.url,
      rest_url: absoluteUrl('This event in the API.'),
      title: Type.String({ description: 'The event title.' }),
      description: Type.String({ description: 'The event description, as HTML; "" when empty.' }),
      excerpt: Type.String({ description: 'The short description, as HTML; "" when empty.' }),
      slug: Type.String({ description: 'The event slug (with a __trashed suffix while in the trash).' }),
      image: imageOrFalse('The featured image, or false when there is none.'),
      all_day: flag('Whether the event lasts whole days.'),
      start_date: wpDateTime('Start, wall-clock time in the event time zone.'),
      start_date_details: DateDetailsSchema,
      end_date: wpDateTime('End, wall-clock time in the event time zone.'),
      end_date_details: DateDetailsSchema,
      utc_start_date: wpDateTime('Start, in UTC.'),
      utc_start_date_details: DateDetailsSchema,
      utc_end_date: wpDateTime('End, in UTC.'),
      utc_end_date_details: DateDetailsSchema,
      timezone: Type.String({
        description: 'The event time zone: an IANA name such as Europe/Paris, or an offset such as UTC+5.',
      }),
      timezone_abbr: Type.String({ description: 'The zone abbreviation at the start (CET, EDT, UTC+5…).' }),
      cost: Type.String({
        description: 'The cost, formatted for display ("$25", "Free – $30"); "" when there is none.',
      }),
      cost_details: CostDetailsSchema,
      website: Type.String({ description: 'The event website; the event page itself when none was ever given.' }),
      show_map: flag('Whether the event page shows a map.'),
      show_map_link: flag('Whether the event page links to a map.'),
      hide_from_listings: flag('Whether the event is left out of GET /events.'),
      sticky: flag('Whether the event sticks to the top of calendar days.'),
      featured: flag('Whether the event is featured.'),
      categories: Type.Array(EmbeddedTermSchema, { description: 'The event categories, by name.' }),
      tags: Type.Array(EmbeddedTermSchema, { description: 'The event tags, by name.' }),
      venue: Type.Union([venue, emptyArray('No venue.')], { description: 'The venue, or [] when there is none.' }),
      organizer: Type.Array(organizer, { description: 'The organizers, in the order they were given.' }),
      custom_fields: emptyArray('Additional fields: this service has none, so always [].'),
      recurrence: Type.Array(Type.String(), {
        description:
          "D25: the series' RFC 5545 lines (RRULE, RDATE, EXDATE), on each of its occurrences; [] for a single event.",
      }),
      series_id: Type.Union([Type.Integer(), Type.Null()], {
        description:
          'D25: the id of the series (its first occurrence) this event is an occurrence of; null for a single event.',
      }),
      occurrence_start_utc: Type.Union(
        [wpDateTime('D25: the original start of this occurrence in its series (UTC), its RECURRENCE-ID.'), Type.Null()],
        {
          description:
            'D25: the original start of this occurrence in its series (UTC), its RECURRENCE-ID; null for a single event.',
        },
      ),
      json_ld: Type.Optional(jsonLdSchema('event')),
    },
    { description: 'An event.' },
  ),
);

export const EVENT_RESPONSES = {
  item: EventSchema,
  list: postListSchema('events', EventSchema, 'A page of events.'),
  /** A trash answers with the event; `force=true` with `{deleted, previous}` (D18). */
  deleted: Type.Union([EventSchema, deletedSchema(EventSchema, 'The event as it was before it was deleted.')]),
} as const;
