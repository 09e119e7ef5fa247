// D28: the templates' data, built from the API's serialised objects (§3.1–§3.4). Links inside the site are written
// site-relative (the path of the API's absolute `url`), so pages work whatever host and port the browser used;
// canonical and OpenGraph addresses stay absolute.
import type { Config } from '../config.ts';
import { isoWithOffset } from '../domain/dates/stored-format.ts';
import {
  dayLabel,
  decodeEntities,
  describeRecurrence,
  describeWhen,
  googleCalendarLink,
  googleSubscribeLink,
  mapLink,
  moreDates,
  plainText,
  shorten,
  venueAddress,
  webcal,
  type When,
} from './format.ts';
import type { EventPage, ListedEvent, SeriesDates } from './service.ts';
import type { ApiEvent, ApiVenue } from './api-object.ts';

/** The path (and query) of an absolute URL the API gave. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The site's path prefix, from SITE_URL (`""` at the root). */
export const basePath = (config: Config) => new URL(config.siteUrl).pathname.replace(/\/$/, '');

export interface VenueView {
  name: string;
  href?: string;
  address: string;
  city: string;
  phone?: string;
  website?: string;
  map?: string;
}

export function venueView(venue: ApiVenue | unknown[] | undefined, withMapLink: boolean): VenueView | undefined {
  if (!venue || Array.isArray(venue)) return undefined;
  return {
    name: venue.venue ?? '',
    href: typeof venue.url === 'string' ? pathOf(venue.url) : undefined,
    address: venueAddress(venue),
    city: venue.city ?? '',
    phone: venue.phone,
    website: venue.website,
    map: withMapLink ? mapLink(venue) : undefined,
  };
}

export interface CardView {
  id: number;
  title: string;
  href: string;
  when: When;
  startIso: string;
  venue?: VenueView;
  cost: string;
  excerptHtml: string;
  locked: boolean;
  /** D25: the one entry of a series in a list: how it repeats, and how many more dates the list would hold. */
  seriesNote?: string;
}

export function cardView({ event, locked, moreDates: more }: ListedEvent): CardView {
  const rule = event.series_id === null ? undefined : describeRecurrence(event.recurrence, event.start_date);
  return {
    id: event.id,
    title: event.title,
    href: pathOf(event.url),
    when: describeWhen(event),
    startIso: isoWithOffset(event.start_date, event.timezone),
    venue: venueView(event.venue, false),
    cost: event.cost ?? '',
    excerptHtml: event.excerpt ?? '',
    locked,
    seriesNote:
      rule === undefined || more === undefined ? undefined : more === 0 ? rule : `${rule} · ${moreDates(more)}`,
  };
}

export interface Feed {
  title: string;
  /** https .ics address (download) and its webcal:// twin (subscribe). */
  url: string;
  webcal: string;
}

/** The `.ics` feed of `GET {api}/events.ics` with the list's filter (D26). */
export function feedOf(config: Config, title: string, query: Record<string, string | number> = {}): Feed {
  const search = new URLSearchParams(
    Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();
  const url = `${config.apiRoot}/events.ics${search === '' ? '' : `?${search}`}`;
  return { title, url, webcal: webcal(url) };
}

export interface PagerView {
  page: number;
  pages: number;
  previous?: string;
  next?: string;
}

/** Previous and next links of a paginated list; `pageHref(n)` is the address of page n. */
export function pagerView(list: EventPage, pageHref: (page: number) => string): PagerView {
  return {
    page: list.page,
    pages: list.pages,
    previous: list.page > 1 ? pageHref(list.page - 1) : undefined,
    next: list.page < list.pages ? pageHref(list.page + 1) : undefined,
  };
}

/** One group of add-to-calendar buttons: an .ics file and a Google Calendar link for the same thing. */
export interface CalendarActions {
  /** What the group adds, when the page offers more than one ("This date only: …"). */
  title?: string;
  ics: string;
  google: string;
  /** The Google link subscribes to the .ics rather than adding one event. */
  subscribe: boolean;
}

/**
 * D25: the add-to-calendar buttons. A single event has one pair, for its date. An event of a series has two, so that
 * each button adds what its group says: this date alone (an .ics of that date, without the rule, and Google's event
 * template), and every date of the series (the API's .ics of the series, with its cancelled and edited dates, and
 * Google's subscription to that same file, since a template link cannot carry a series' exceptions).
 */
function calendarActions(config: Config, event: ApiEvent, location: string): CalendarActions[] {
  const google = googleCalendarLink(event, location);
  if (event.series_id === null) return [{ ics: `${config.apiRoot}/events/${event.id}.ics`, google, subscribe: false }];
  const seriesIcs = `${config.apiRoot}/events/${event.series_id}.ics`;
  return [
    {
      title: `This date only: ${dayLabel(event.start_date)}`,
      ics: `${pathOf(event.url)}date.ics`,
      google,
      subscribe: false,
    },
    { title: 'Every date of the series', ics: seriesIcs, google: googleSubscribeLink(seriesIcs), subscribe: true },
  ];
}

/** D25: what an event page says of its series: how it repeats, and its next other dates, linked. */
export function seriesView(config: Config, event: ApiEvent, series: SeriesDates) {
  return {
    rule: describeRecurrence(event.recurrence, event.start_date),
    dates: series.dates.map((date) => ({
      href: `${basePath(config)}/event/${date.slug}/`,
      startIso: isoWithOffset(date.start_local, event.timezone),
      text: describeWhen({
        ...event,
        all_day: date.all_day === 1,
        start_date: date.start_local,
        end_date: date.end_local,
      }).text,
    })),
    more: series.total - series.dates.length,
  };
}

/** The event page's data: everything GET /events/{id} gives, worded, plus the add-to-calendar links. */
export function eventView(config: Config, event: ApiEvent, series?: SeriesDates) {
  const venue = venueView(event.venue, event.show_map_link === true);
  const location = venue ? [venue.name, venue.address].filter(Boolean).join(', ') : '';
  const terms = (list: ApiEvent['categories'], publicPath: string) =>
    list.map((term) => ({ name: term.name, href: `${basePath(config)}/${publicPath}/${term.slug}/` }));
  return {
    id: event.id,
    title: event.title,
    when: describeWhen(event),
    startIso: isoWithOffset(event.start_date, event.timezone),
    endIso: isoWithOffset(event.end_date, event.timezone),
    image: event.image
      ? {
          url: event.image.url,
          width: event.image.width,
          height: event.image.height,
        }
      : undefined,
    cost: event.cost,
    venue,
    organizers: event.organizer.map((organizer) => ({
      name: organizer.organizer ?? '',
      href: pathOf(organizer.url),
      email: organizer.email,
      phone: organizer.phone,
    })),
    categories: terms(event.categories, 'events/category'),
    tags: terms(event.tags, 'events/tag'),
    // §3.1: the API's `website` is HTML-escaped; the template escapes what it writes, so it gets the plain address.
    website:
      typeof event.website === 'string' && event.website !== '' && event.website !== event.url
        ? decodeEntities(event.website)
        : undefined,
    descriptionHtml: event.description,
    calendar: calendarActions(config, event, location),
    series: series === undefined ? undefined : seriesView(config, event, series),
  };
}

/** A short plain-text summary of an item (meta description, og:description). */
export const summaryOf = (item: { excerpt?: string; description?: string }) =>
  shorten(plainText(item.excerpt || item.description || ''), 200);
