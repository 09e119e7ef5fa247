// The event object of §3.1, built for many events from a constant number of queries.
import { parseStringList } from '../../domain/lists.ts';
import { costValues, formatCost } from '../../domain/cost.ts';
import { canReadPost } from '../../domain/access.ts';
import { dateDetails, formatWp, isoWithOffset } from '../../domain/dates/stored-format.ts';
import { escapeHtml } from '../../domain/html.ts';
import type { Actor } from '../../domain/actor.ts';
import type { Db } from '../../store/store.ts';
import { loadImages, serializeImage, type ImageRow } from '../images/images.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { loadLinked, serializeLinked, type LinkedRecord } from '../linked/serialize.ts';
import { organizerKind } from '../organizers/kind.ts';
import { globalId, postHead, postLike, publicUrl, statusOf } from '../posts/fields.ts';
import type { TermReader } from '../terms/embedded-cache.ts';
import { loadEmbeddedTerms } from '../terms/service.ts';
import { venueKind } from '../venues/kind.ts';
import { renderedText, type PostRow } from '../posts/store.ts';
import { loadEventRecords, loadOrganizerIds, type EventRecord } from './store.ts';

type LinkedRecords = Map<number, LinkedRecord & { image?: ImageRow }>;

/** Everything the objects of a set of events need, loaded in batches. */
export interface EventBundle {
  records: Map<number, EventRecord>;
  images: Map<number, ImageRow>;
  venues: LinkedRecords;
  organizerIds: Map<number, number[]>;
  organizers: LinkedRecords;
  terms: Awaited<ReturnType<typeof loadEmbeddedTerms>>;
}

/**
 * `known`: posts of these events the caller already read (see loadEventRecords). The embedded terms come from the
 * snapshot the actor brings, if any (a request's context does: terms/embedded-cache.ts).
 */
export async function loadEventBundle(
  db: Db,
  actor: Actor & TermReader,
  ids: readonly number[],
  known: readonly PostRow[] = [],
): Promise<EventBundle> {
  const [records, organizerIds, terms] = await Promise.all([
    loadEventRecords(db, ids, known),
    loadOrganizerIds(db, ids),
    loadEmbeddedTerms(db, actor, ids),
  ]);
  const venueIds = [...records.values()].flatMap(({ event }) => (event.venue_id === null ? [] : [event.venue_id]));
  const [images, venues, organizers] = await Promise.all([
    loadImages(
      db,
      [...records.values()].map(({ post }) => post.image_id),
    ),
    loadLinked(db, venueKind, venueIds),
    loadLinked(db, organizerKind, [...organizerIds.values()].flat()),
  ]);
  return { records, images, venues, organizerIds, organizers, terms };
}

const flag = (value: number) => value === 1;

/**
 * §3.1 in the contract's key order; `single` adds `json_ld` (§3.9) to the event and to its venue and organizers.
 * D32 (superseding §10's "whatever their status"): an embedded venue or organizer is shown only to a viewer who could
 * open it by id; for anyone else it is left out as if it were not linked (`venue: []`, the organizer missing).
 */
export function serializeEvent(
  ctx: Actor,
  bundle: EventBundle,
  id: number,
  options: { single: boolean },
): Record<string, unknown> {
  const { object, jsonLd } = eventParts(ctx, bundle, id, options);
  if (options.single) object.json_ld = jsonLd();
  return object;
}

/** The single form of {@link serializeEvent} with its `json_ld` apart, for a caller that places `json_ld` itself. */
export function serializeSingleEvent(
  ctx: Actor,
  bundle: EventBundle,
  id: number,
): { object: Record<string, unknown>; jsonLd: Record<string, unknown> } {
  const { object, jsonLd } = eventParts(ctx, bundle, id, { single: true });
  return { object, jsonLd: jsonLd() };
}

/** The event object without `json_ld`, and its `json_ld` made on demand (a list leaves it out). */
function eventParts(
  ctx: Actor,
  bundle: EventBundle,
  id: number,
  options: { single: boolean },
): { object: Record<string, unknown>; jsonLd: () => Record<string, unknown> } {
  const { config } = ctx;
  const record = bundle.records.get(id)!;
  const { post, event } = record;
  const head = postHead(config, post, ctx.now);
  // The head's `url`, made as postHead makes it, but typed as the string it is.
  const url = publicUrl(config, post, statusOf(post, ctx.now));
  const costs = parseStringList(event.cost_values);
  const terms = bundle.terms.get(id) ?? { categories: [], tags: [] };
  const nowUtc = formatWp(ctx.now);
  const linked = (kind: LinkedPostKind, records: LinkedRecords, linkedId: number) => {
    const record = records.get(linkedId);
    return record && canReadPost(ctx.viewer, kind.type, postLike(record.post), nowUtc)
      ? serializeLinked(ctx, kind, record, options)
      : undefined;
  };
  const venue = event.venue_id === null ? undefined : linked(venueKind, bundle.venues, event.venue_id);
  const organizers = (bundle.organizerIds.get(id) ?? [])
    .map((organizerId) => linked(organizerKind, bundle.organizers, organizerId))
    .filter((organizer) => organizer !== undefined);
  const gid = globalId(config, post.id);
  const costDetails = {
    currency_symbol: event.currency_symbol,
    currency_code: '',
    currency_position: event.currency_position,
    values: costValues(costs),
  };

  const object: Record<string, unknown> = {
    id: post.id,
    global_id: gid,
    global_id_lineage: [gid],
    ...head,
    rest_url: `${config.apiRoot}/events/${post.id}`,
    title: post.title,
    description: renderedText(post).content,
    excerpt: renderedText(post).excerpt,
    slug: post.slug,
    image: serializeImage(post.image_id === null ? undefined : bundle.images.get(post.image_id)),
    all_day: flag(event.all_day),
    start_date: event.start_local,
    start_date_details: dateDetails(event.start_local),
    end_date: event.end_local,
    end_date_details: dateDetails(event.end_local),
    utc_start_date: event.start_utc,
    utc_start_date_details: dateDetails(event.start_utc),
    utc_end_date: event.end_utc,
    utc_end_date_details: dateDetails(event.end_utc),
    timezone: event.timezone,
    timezone_abbr: event.timezone_abbr,
    cost: formatCost(costs, event.currency_symbol, event.currency_position, {
      symbol: config.currencySymbol,
      position: config.currencyPosition,
    }),
    cost_details: costDetails,
    // Never stored: the event's own page (§3.1); stored, even empty: as stored.
    website: event.website === null ? url : escapeHtml(event.website),
    show_map: flag(event.show_map),
    show_map_link: flag(event.show_map_link),
    hide_from_listings: flag(event.hide_from_listings),
    sticky: flag(event.sticky),
    featured: flag(event.featured),
    categories: terms.categories,
    tags: terms.tags,
    venue: venue ?? [],
    organizer: organizers,
    custom_fields: [],
    // D25: the series' RFC 5545 lines on each of its occurrences, the series' id, and the occurrence's original start.
    recurrence: event.recurrence === '' ? [] : parseStringList(event.recurrence),
    series_id: event.series_id,
    occurrence_start_utc: event.occurrence_start_utc,
  };
  const jsonLd = () => eventJsonLd(ctx, { record, url, costs: costDetails, venue, organizers });
  return { object, jsonLd };
}

/** §3.9, best effort: keys without data are left out. */
function eventJsonLd(
  ctx: Actor,
  input: {
    record: EventRecord;
    url: string;
    costs: { values: string[] };
    venue?: Record<string, unknown>;
    organizers: Record<string, unknown>[];
  },
): Record<string, unknown> {
  const { post, event } = input.record;
  const ld: Record<string, unknown> = { '@context': 'http://schema.org', '@type': 'Event', name: post.title };
  const excerpt = renderedText(post).excerpt;
  if (excerpt !== '') ld.description = escapeHtml(excerpt);
  ld.url = input.url;
  ld.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode';
  ld.eventStatus = 'https://schema.org/EventScheduled';
  ld.startDate = isoWithOffset(event.start_local, event.timezone);
  ld.endDate = isoWithOffset(event.end_local, event.timezone);
  if (input.venue?.json_ld) ld.location = input.venue.json_ld;
  const people = input.organizers.map((organizer) => organizer.json_ld).filter((person) => person !== undefined);
  if (people.length > 0) ld.organizer = people.length === 1 ? people[0] : people;
  const price = input.costs.values.find((value) => /^\d/.test(value));
  if (price !== undefined) {
    ld.offers = {
      '@type': 'Offer',
      price,
      priceCurrency: ctx.config.currencyCode,
      url: input.url,
      category: 'primary',
      availability: 'inStock',
      validFrom: isoWithOffset(`${post.date_local.slice(0, 10)} 00:00:00`, ctx.config.siteTimezone),
    };
  }
  ld.performer = 'Organization';
  return ld;
}
