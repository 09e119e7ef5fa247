// The arguments of the event routes (§4.1, §5.1–§5.4, D5, D9, D13, D14), in the reference's order.
import Type from 'typebox';
import { parseCost } from '../../domain/cost.ts';
import { defaultListWindow } from '../../domain/dates/list-window.ts';
import { isValidTimezone } from '../../domain/dates/zones.ts';
import { sanitizeTitle } from '../../domain/html.ts';
import { toList } from '../../domain/lists.ts';
import { arg, coerceBoolean, maxItems, type Args, type Validator, typeIssue } from '../input/args.ts';
import { DATE_INPUT } from '../input/documented-inputs.ts';
import { linkedInputSchema } from './documented-linked-input.ts';
import type { CommandContext } from '../input/context.ts';
import { isTime, nonEmptyString } from '../input/validators.ts';
import { websiteField } from '../linked/input-fields.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { organizerKind } from '../organizers/kind.ts';
import { isPostOfType, isSlugOfType, listStatusArg, pagingArgs, postWriteArgs, searchArg } from '../posts/input.ts';
import type { TermReader } from '../terms/embedded-cache.ts';
import { resolveTermsForFilter, type Taxonomy } from '../terms/service.ts';
import { venueKind } from '../venues/kind.ts';
import { linkedInput } from './linked-input.ts';
import { modifiedArgs } from '../posts/input.ts';
import { isRowId } from '../../store/store.ts';

/** WordPress's `post_password` column holds 255 characters. */
const MAX_PASSWORD_LENGTH = 255;
/** D13: half the Earth's circumference, give or take. */
const MAX_RADIUS_KM = 20_000;

const isZoneOrEmpty: Validator<string> = (value) => value.trim() === '' || isValidTimezone(value.trim());

/** Non-empty once tags are removed: a title of only markup would be an empty title. */
const hasTitleText: Validator<string> = (value) => sanitizeTitle(value) !== '';

const isCost: Validator<unknown> = (value) => parseCost(value) !== null;

/** Term ids, slugs or names: a CSV string, a number, or a list of those (§5.2 `categories`/`tags`). */
const isTermList: Validator<unknown> = (value) => toList(value) !== undefined;

/** What `isTermList` reads (domain/lists.ts toList). */
const TERM_LIST_INPUT = Type.Unsafe({
  oneOf: [
    {
      type: 'array',
      items: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
      description: 'Ids, slugs or names; [] removes all.',
    },
    { type: 'string', description: 'Ids, slugs or names separated by commas; "" removes all.' },
    { type: 'integer', description: 'One id.' },
  ],
});

const termListArg = (description: string) =>
  arg.any({
    description,
    validate: isTermList,
    limit: maxItems((config) => config.limits.termsPerEvent, 'MAX_TERMS_PER_EVENT'),
    schema: Type.Array(Type.Union([Type.Integer(), Type.String()]), { description }),
    openapi: TERM_LIST_INPUT,
  });

const linkedArg = (kind: LinkedPostKind, description: string) =>
  arg.any({
    description,
    // D31: a venue list counts as an organizer list does (only its first venue is linked).
    limit: maxItems((config) => config.limits.organizersPerEvent, 'MAX_ORGANIZERS_PER_EVENT'),
    validate: async (value, ctx) => (await linkedInput(ctx, kind, value)) !== null,
    schema: Type.Unknown({ description }),
    openapi: linkedInputSchema(kind),
  });

/** What `parseCost` reads. */
const COST_INPUT = Type.Unsafe({
  oneOf: [
    { type: 'string', description: 'As written ("25", "$10 - $20", "Free"); "" removes the cost.' },
    { type: 'number' },
    {
      type: 'array',
      items: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      description: 'Several values, shown from the lowest to the highest; [] removes the cost.',
    },
  ],
});

const flagArg = (description: string) => arg.boolean({ description });

/** The event fields of a create (title and dates required) or an update (all optional, D2). */
export function eventFieldArgs<const R extends boolean>(required: R) {
  const dateArg = (description: string) =>
    arg.any({ description, validate: isTime, format: 'date-time', required, openapi: DATE_INPUT });
  return {
    author: postWriteArgs.author,
    date: arg.any({
      description: 'Publication date, read in the event time zone.',
      validate: isTime,
      format: 'date-time',
      openapi: DATE_INPUT,
    }),
    date_utc: postWriteArgs.date_utc,
    title: arg.string({
      description: 'The event title (plain text: tags are removed).',
      validate: hasTitleText,
      required,
    }),
    description: arg.string({ description: 'The event description (HTML, sanitised).', validate: nonEmptyString }),
    slug: arg.string({ description: 'The event slug; made unique with -2, -3… when taken.', validate: nonEmptyString }),
    excerpt: arg.string({ description: 'The event excerpt (HTML, sanitised).', validate: nonEmptyString }),
    status: postWriteArgs.status,
    timezone: arg.string({
      description:
        'The event time zone: an IANA name, an abbreviation, an offset or UTC±x; empty for the site time zone.',
      validate: isZoneOrEmpty,
    }),
    all_day: flagArg('Whether the event lasts whole days (dates are then snapped to 00:00:00 and 23:59:59).'),
    start_date: dateArg('The event start, read in the event time zone.'),
    end_date: dateArg('The event end, read in the event time zone; not before the start.'),
    image: postWriteArgs.image,
    cost: arg.any({
      description: 'The event cost: a string, or a list of strings.',
      validate: isCost,
      openapi: COST_INPUT,
    }),
    website: websiteField('The event website: an absolute URL, or empty.'),
    show_map: flagArg('Whether the event page shows a map.'),
    show_map_link: flagArg('Whether the event page links to a map.'),
    hide_from_listings: flagArg('Whether the event is left out of event lists.'),
    sticky: flagArg('Whether the event sticks to the top of calendar days.'),
    featured: flagArg('Whether the event is featured.'),
    categories: termListArg(
      'Category ids, slugs or names; unknown names are created by those who may manage categories; empty removes all.',
    ),
    tags: termListArg(
      'Tag ids, slugs or names; unknown names are created by those who may manage tags; empty removes all.',
    ),
    venue: linkedArg(venueKind, 'A venue id, {"id": …}, or the fields of a venue to create; 0, "" or [] for none.'),
    organizer: linkedArg(
      organizerKind,
      'Organizer ids, {"id": …} objects or organizer fields, alone or in a list; [] for none.',
    ),
    password: arg.string({
      description: 'A viewing password; "" removes the protection. Never returned.',
      maxLength: MAX_PASSWORD_LENGTH,
    }),
    recurrence: arg.any({
      description:
        'D25: RFC 5545 lines (RRULE:…, RDATE…, EXDATE…) that make the event a series starting at start_date; [] or "" makes it single again. On an occurrence only with scope=following.',
      validate: isRecurrenceShape,
      schema: Type.Union([Type.Array(Type.String()), Type.String()], {
        description: 'D25: RFC 5545 lines (RRULE:…, RDATE…, EXDATE…); [] or "" for a single event.',
      }),
      openapi: RECURRENCE_INPUT,
    }),
  };
}

/** What `isRecurrenceShape` reads. */
const RECURRENCE_INPUT = Type.Unsafe({
  oneOf: [
    {
      type: 'array',
      items: { type: 'string' },
      description: 'One RFC 5545 line an item; [] makes the event single again.',
    },
    {
      type: 'string',
      description: 'The lines in one string, separated by line breaks; "" makes the event single again.',
    },
  ],
});

/** D25: a list of lines or one string; the lines themselves are read against the event's dates by the service. */
const isRecurrenceShape: Validator<unknown> = (value) =>
  typeof value === 'string' || (Array.isArray(value) && value.every((line) => typeof line === 'string'));

/** D25: on an occurrence's id, `following` splits its series there instead of editing that occurrence alone. */
export const scopeArg = {
  scope: arg.string({
    description:
      'D25, on an occurrence of a series: "following" ends the series before it and starts a new series there with the changes (as Google Calendar\'s "this and following events"); without it only this occurrence changes.',
    validate: (value) => value === 'following',
  }),
} satisfies Args;

export const passwordArg = arg.string({
  description: 'The event password, to see a protected event.',
  maxLength: MAX_PASSWORD_LENGTH,
});
/** Accepted on DELETE by id as in the reference (§13); a delete answers with the full event whatever it holds (D5). */
export const deletePasswordArg = arg.string({
  description: 'Accepted for compatibility; deleting needs edit rights, not the password.',
  maxLength: MAX_PASSWORD_LENGTH,
});

export const idArg = { id: arg.integer({ description: 'The event id.', required: true, in: 'path' }) } satisfies Args;
export const slugArg = {
  slug: arg.string({ description: 'The event slug.', required: true, in: 'path' }),
} satisfies Args;
/** GET and DELETE by slug: an unknown slug is a validation error (§5.1, §5.4). */
export const existingSlugArg = {
  slug: arg.string({ description: 'The event slug.', required: true, in: 'path', validate: isSlugOfType('event') }),
} satisfies Args;

/** The ids the `categories`/`tags` filter names, descendants included; read once per request. */
export const filterTermIds = (ctx: CommandContext & TermReader, taxonomy: Taxonomy, values: string[]) =>
  ctx.memo(`filter-terms:${taxonomy}`, () => resolveTermsForFilter(ctx.store.db, taxonomy, values, ctx));

const termFilterArg = (taxonomy: Taxonomy, description: string) =>
  arg.stringList({
    description,
    validate: async (values, ctx) => (await filterTermIds(ctx, taxonomy, values)) !== null,
  });

const allOfType =
  (type: 'venue' | 'organizer'): Validator<number[]> =>
  async (ids, ctx) => {
    if (ids.length === 0) return false;
    const unique = [...new Set(ids)];
    // D31: an id beyond 32 bits names no row (and PostgreSQL would reject it): unknown, as any other.
    if (!unique.every(isRowId)) return false;
    const found = await ctx.store.db
      .selectFrom('posts')
      .select('id')
      .where('id', 'in', unique)
      .where('type', '=', type)
      .execute();
    return found.length === unique.length;
  };

const listDateArg = (description: string, documentedDefault?: (ctx: CommandContext) => unknown) =>
  arg.any({ description, validate: isTime, documentedDefault, openapi: DATE_INPUT });

/** D14: `true` names the missing add-on; anything not boolean is the usual type error. */
const ticketedValidator: Validator<unknown> = (value, _ctx, name) => {
  const flag = coerceBoolean(value);
  if (flag === undefined) return typeIssue(name, 'boolean');
  if (flag)
    return {
      code: 'event-tickets-not-active',
      message: 'Event Tickets plugin is not activated.',
      data: { status: 400 },
    };
  return true;
};

const between =
  (min: number, max: number): Validator<number> =>
  (value) =>
    value >= min && value <= max;

export const eventListArgs = {
  ...pagingArgs,
  start_date: listDateArg(
    'Events that start on or after this date (whole days unless strict_dates).',
    (ctx) => defaultListWindow(ctx.now, ctx.config.siteTimezone).start,
  ),
  end_date: listDateArg(
    'Events that end on or before this date (whole days unless strict_dates).',
    (ctx) => defaultListWindow(ctx.now, ctx.config.siteTimezone).end,
  ),
  starts_before: listDateArg('Events that start before this date.'),
  starts_after: listDateArg('Events that start after this date.'),
  ends_before: listDateArg('Events that end before this date.'),
  ends_after: listDateArg('Events that end after this date.'),
  strict_dates: arg.any({
    description: 'true, 1, yes or on: compare the dates at the times given instead of whole days.',
    validate: (value) =>
      (typeof value === 'string' && value.trim() !== '') || typeof value === 'boolean' || typeof value === 'number',
    schema: Type.String({
      description: 'true, 1, yes or on: compare the dates at the times given instead of whole days.',
      default: 'false',
    }),
  }),
  search: searchArg,
  categories: termFilterArg(
    'event_category',
    'Events in any of these categories (ids or slugs; subcategories match too).',
  ),
  tags: termFilterArg('event_tag', 'Events with any of these tags (ids or slugs).'),
  venue: arg.integerList({ description: 'Events at any of these venues (ids).', validate: allOfType('venue') }),
  organizer: arg.integerList({
    description: 'Events with any of these organizers (ids).',
    validate: allOfType('organizer'),
  }),
  featured: arg.boolean({ description: 'true: only featured events; false: only the others.' }),
  status: listStatusArg,
  geoloc: arg.boolean({ description: 'true: events whose venue has coordinates; false: the others.' }),
  geoloc_lat: arg.number({
    description: 'Latitude of the centre of a search area; send with geoloc_lng.',
    validate: between(-90, 90),
    format: 'double',
  }),
  geoloc_lng: arg.number({
    description: 'Longitude of the centre of a search area; send with geoloc_lat.',
    validate: between(-180, 180),
    format: 'double',
  }),
  geoloc_radius: arg.number({
    description: 'Radius of the search area in km (default 25).',
    validate: (value: number) => value > 0 && value <= MAX_RADIUS_KM,
    format: 'double',
  }),
  include: arg.integerList({
    description: 'Only these event ids; date filters are ignored.',
    validate: (ids: number[]) => ids.length > 0 && ids.every((id) => id > 0),
  }),
  post_parent: arg.integer({ description: 'Events whose parent is this event.', validate: isPostOfType('event') }),
  ticketed: arg.any({
    description: 'Ticketing is not part of this service: true is refused, false applies no filter.',
    validate: ticketedValidator,
    schema: Type.Boolean({
      description: 'Ticketing is not part of this service: true is refused, false applies no filter.',
    }),
  }),
  password: passwordArg,
  ...modifiedArgs,
  collapse_series: arg.boolean({
    description: 'D25: true lists only the first matching occurrence of each recurring series.',
  }),
};
