/**
 * The objects of the API as its serializers build them (an event, a venue, an organizer, a term), which the pages word
 * field by field. Each is typed by the response schema it is published and checked against (the `response.ts` of
 * its resource under api/, VALIDATE_RESPONSES=1 in the tests); a venue's and an organizer's fields are spelled out here, since their schema is
 * built per kind and so loosely typed.
 */
import type { Static } from 'typebox';
import type { EventSchema } from '../api/events/response.ts';
import type { CategorySchema, TagSchema } from '../api/terms/response.ts';

/** What venues and organizers share (§3.2, §3.3); every field that can be empty is left out when it is. */
type LinkedHead = {
  id: number;
  author: string;
  status: string;
  date: string;
  date_utc: string;
  modified: string;
  modified_utc: string;
  url: string;
  description?: string;
  excerpt?: string;
  slug: string;
  image?: { url: string; id: number; extension: string; width?: number; height?: number };
  json_ld?: Record<string, unknown>;
  global_id: string;
  global_id_lineage: string[];
};

/** §3.2 (core/venues/kind.ts). */
export type ApiVenue = LinkedHead & {
  venue?: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  stateprovince?: string;
  geo_lat?: number;
  geo_lng?: number;
  show_map: boolean;
  show_map_link: boolean;
};

/** §3.3 (core/organizers/kind.ts). */
export type ApiOrganizer = LinkedHead & {
  organizer?: string;
  phone?: string;
  website?: string;
  email?: string;
};

/** §3.1, with its venue (`[]` when none) and organizers typed. */
export type ApiEvent = Omit<Static<typeof EventSchema>, 'venue' | 'organizer'> & {
  venue: ApiVenue | unknown[];
  organizer: ApiOrganizer[];
};

/** §3.4, the endpoint form. */
export type ApiTerm = Static<typeof CategorySchema> | Static<typeof TagSchema>;

/**
 * The serializers return their objects as plain records. Each is typed once here, where a page takes it, rather than
 * field by field where it is read.
 */
const publishedAs =
  <T>() =>
  (object: Record<string, unknown>): T =>
    // A cast, and the only one: the response schema the object is checked against in the tests guarantees T, which
    // checking on every page would only repeat.
    object as T;

export const apiEvent = publishedAs<ApiEvent>();
export const apiVenue = publishedAs<ApiVenue>();
export const apiOrganizer = publishedAs<ApiOrganizer>();
export const apiTerm = publishedAs<ApiTerm>();
