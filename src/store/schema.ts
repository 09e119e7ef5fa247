import type { Generated } from 'kysely';

/** Booleans are stored as 0/1 integers on both databases so rows read the same everywhere. */
export type Flag = number;

/** What events, venues, organizers and images share, as WordPress posts do: one id sequence (D1b). */
export interface PostsTable {
  id: Generated<number>;
  type: 'event' | 'venue' | 'organizer' | 'image';
  author_id: number;
  status: string;
  /** The status an item had when it was trashed, so its owner's rights can be judged as before. */
  status_before_trash: Generated<string>;
  slug: string;
  title: string;
  content: Generated<string>;
  excerpt: Generated<string>;
  password: Generated<string>;
  image_id: Generated<number | null>;
  parent_id: Generated<number>;
  date_local: string;
  date_utc: string;
  modified_local: string;
  modified_utc: string;
}

export interface VenuesTable {
  id: number;
  address: string;
  city: string;
  country: string;
  province: string;
  state: string;
  zip: string;
  phone: string;
  website: string;
  stateprovince: string;
  show_map: Flag;
  show_map_link: Flag;
  geo_lat: number | null;
  geo_lng: number | null;
}

export interface OrganizersTable {
  id: number;
  phone: string;
  website: string;
  email: string;
}

export interface EventsTable {
  id: number;
  timezone: string;
  timezone_abbr: string;
  all_day: Flag;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  /** JSON array of the raw cost strings as sent. */
  cost_values: string;
  currency_symbol: string;
  currency_position: string;
  /** null when never stored: the response then falls back to the event's own URL. */
  website: string | null;
  show_map: Flag;
  show_map_link: Flag;
  hide_from_listings: Flag;
  sticky: Flag;
  featured: Flag;
  venue_id: number | null;
  /** D25: the series' id (its first occurrence's) on every occurrence of a series, the series' own row included; null for single events. */
  series_id: Generated<number | null>;
  /** D25: JSON array of the series' RFC 5545 lines, copied onto every occurrence; '' for single events. */
  recurrence: Generated<string>;
  /** D25: the occurrence's original start in its series (UTC), its RECURRENCE-ID; null for single events. */
  occurrence_start_utc: Generated<string | null>;
  /** D25: JSON array of the fields edited on this occurrence alone (series edits leave them); '' for none. */
  overrides: Generated<string>;
  /** D25, on the series' own row: how far an open-ended series is materialised (UTC); null when it is complete. */
  series_horizon_utc: Generated<string | null>;
  /** D26: the iCalendar UID an .ics import matched the event by; null for events made here (UID `<id>@<host>`). */
  ical_uid: Generated<string | null>;
  /** D26: SEQUENCE, grown by one each time the dates, title, venue or status change (ical/sequence.ts). */
  ical_sequence: Generated<number>;
  /** D26: a digest of the VEVENT an import last wrote, so that importing the same file again changes nothing. */
  ical_hash: Generated<string | null>;
}

/** What list queries read: one row per event today, one per occurrence of a recurring series later. */
export interface OccurrencesTable {
  id: Generated<number>;
  event_id: number;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  /**
   * Copies of the event's status, publication date, author and hidden flag, so that a list page and its total are
   * read from one index without joins. Every event write refreshes them (events/service.ts).
   */
  status: Generated<string>;
  published_utc: Generated<string>;
  author_id: Generated<number>;
  hidden: Generated<Flag>;
  /** D25: the event's series, for `collapse_series`; null for single events. */
  series_id: Generated<number | null>;
}

export interface EventOrganizersTable {
  event_id: number;
  organizer_id: number;
  position: number;
}

export interface ImagesTable {
  id: number;
  url: string;
  extension: string;
  width: number | null;
  height: number | null;
}

export interface TermsTable {
  id: Generated<number>;
  taxonomy: 'event_category' | 'event_tag';
  name: string;
  slug: string;
  description: string;
  parent_id: number;
  /** Events with stored status `publish` that carry the term (see core/terms/counts.ts). */
  published_count: Generated<number>;
}

export interface EventTermsTable {
  event_id: number;
  term_id: number;
}

export interface UsersTable {
  id: Generated<number>;
  login: string;
  role: string;
  display_name: string;
  created_utc: string;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /**
   * Generated passwords: `hmac-sha256$salt$mac`; human-chosen ones (ADMIN_PASSWORD) and those stored before D29:
   * `scrypt$N$r$p$salt$key`. Base64url parts (core/users/secrets.ts).
   */
  hash: string;
  created_utc: string;
  last_used_utc: string | null;
}

/**
 * Failed authentications (D29) in fixed windows, shared by every process: one row per (client address, login) and one
 * per client address (`login` = ''). See http/auth.ts FailureLimiter.
 */
export interface AuthFailuresTable {
  /** The client address as the service sees it (request.ip, after TRUST_PROXY). */
  address: string;
  /**
   * '' for the address's own counter; '-' for headers that name no login (not Basic, not base64, no colon or an empty
   * login); else the SHA-256 of the login tried, base64url (never the raw text, which is sometimes a password).
   */
  login: string;
  /** Failures counted in the window, including checks still under way (counted when they start, D33). */
  failures: number;
  /** When the window ends, in milliseconds since the epoch; the row counts as absent after that. */
  window_end: number;
}

/** PostgreSQL only: one row whose version every write transaction increments (see Store.dataVersion). */
export interface DataVersionTable {
  id: number;
  version: number;
}

/**
 * The change log (D21), written only by src/core/change-log/: one row per item changed by a committed transaction. `seq`
 * increases in commit order (a 64-bit key; read as a JavaScript number, exact up to 2^53).
 */
export interface ChangesTable {
  seq: Generated<number>;
  type: 'event' | 'venue' | 'organizer' | 'category' | 'tag';
  id: number;
  action: 'created' | 'updated' | 'trashed' | 'restored' | 'deleted';
  /**
   * Who could list the item before the transaction (core/change-log/log.ts ListedBefore): its effective status then (`''`: it
   * did not exist yet) and its author; both null when the transaction changed neither.
   */
  before_status: string | null;
  before_author: number | null;
  /** When the transaction committed (just before), UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
}

/**
 * D23: one row per Idempotency-Key a user sent to a create route, written only by src/core/idempotency/store.ts. A row is
 * `running` from the claim until the create answers; then `done` with the answer (2xx only), or deleted.
 */
export interface IdempotencyKeysTable {
  user_id: number;
  /** The method and route pattern, e.g. `POST /calendar/events/v1/events`. */
  route: string;
  /** The key as sent: 1–255 characters 0x21–0x7E. */
  key: string;
  /** SHA-256 (base64url) of the request's parameters, canonicalised. */
  request_hash: string;
  state: 'running' | 'done';
  /** A random token of the attempt that holds the row: only it stores or deletes the answer. */
  claim: string;
  /** When the row was claimed, in milliseconds since the epoch: the lease of `running` rows and the 24 h expiry. */
  created_ms: number;
  /** The answer of a `done` row; null while `running`. */
  status: number | null;
  /** The handler's own headers (Location, ...), as a JSON object. */
  headers: string | null;
  content_type: string | null;
  body: string | null;
  /** 1 when `body` holds bytes in base64 (a non-text answer), 0 for text. */
  body_base64: Generated<Flag>;
}

/** D27: a webhook subscription (src/core/webhooks/subscriptions.ts). */
export interface WebhooksTable {
  id: Generated<number>;
  url: string;
  /** JSON array of event types (`event.updated`, …, or `*`). */
  events: string;
  active: Flag;
  description: string;
  /** `whsec_…`, kept as is: signing needs the key itself (a hash could not sign). Never answered after creation. */
  secret: string;
  /** The last change-log seq turned into deliveries (or skipped) for this subscription. */
  cursor: number;
  created_utc: string;
  modified_utc: string;
}

/** D27: one change to send to one subscription; `msg_id` is the `webhook-id` header, the same on every retry. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  seq: number;
  msg_id: string;
  event_type: string;
  item_type: string;
  item_id: number;
  /** The JSON body sent (the same bytes on every retry). */
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_ms: number;
  /** A process sending it holds it until then (ms since the epoch); 0: nobody. */
  lease_until_ms: number;
  lease_token: string;
  created_ms: number;
}

/** D27: one HTTP attempt of a delivery. */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: number;
  attempt: number;
  attempted_utc: string;
  succeeded: Flag;
  response_status: number | null;
  duration_ms: number;
  error: string;
  /** At most 1 KiB of the answer's body. */
  response_body: string;
}

/** Secrets shared by every process of the database, made by the migrations (e.g. pages/unlock.ts's key). */
export interface SettingsTable {
  name: string;
  value: string;
}

/**
 * An event's public JSON (D34), rendered by the write that changed it: `item` as GET by id answers it, `entry` as a
 * list shows it, each with tokens where the venue, organizers, categories and tags go (documents/template.ts).
 */
export interface EventDocumentsTable {
  event_id: number;
  fingerprint: string;
  item: string;
  entry: string;
  venue_id: number | null;
  /** JSON array of organizer ids, in the event's order. */
  organizer_ids: string;
  /** JSON array of term ids (their order is the terms' names', decided when read). */
  term_ids: string;
  modified_utc: string;
}

/** A venue's or organizer's public JSON as events embed it (D34): with `json_ld` (`item`), without (`entry`). */
export interface LinkedDocumentsTable {
  post_id: number;
  fingerprint: string;
  item: string;
  entry: string;
  /** The item's `json_ld` alone, which the event's own `json_ld` embeds; '' when it has none. */
  json_ld: string;
}

/**
 * Totals without scans: how many listed occurrences (not hidden) start and end on each pair of days, per stored status
 * (and for scheduled rows per publication time), for all events (`dimension` ''), per term (`t<term id>`), venue
 * (`v<id>`) and organizer (`o<id>`); and the same by start month, under `m:` and the dimension, with the month as
 * `start_day` and as `end_day` the month again or, for an occurrence that ends in a later month, its end day
 * (domain/occurrence-counts.ts `monthKey`). A ledger: each write appends the change of its events' contributions
 * (counts may be negative); compaction sums the rows of a key into one (core/occurrences/counts.ts).
 */
export interface OccurrenceCountsTable {
  id: Generated<number>;
  dimension: string;
  status: string;
  start_day: string;
  end_day: string;
  /** A scheduled (`future`) row's publication time (UTC), from which lists show it; '' for every other status. */
  published_utc: string;
  count: number;
}

/** What each event adds to `occurrence_counts` now: its keys (JSON), taken back when it changes. */
export interface CountedEventsTable {
  event_id: number;
  keys: string;
}

export interface Database {
  data_version: DataVersionTable;
  changes: ChangesTable;
  posts: PostsTable;
  venues: VenuesTable;
  organizers: OrganizersTable;
  events: EventsTable;
  occurrences: OccurrencesTable;
  event_organizers: EventOrganizersTable;
  images: ImagesTable;
  terms: TermsTable;
  event_terms: EventTermsTable;
  users: UsersTable;
  app_passwords: AppPasswordsTable;
  auth_failures: AuthFailuresTable;
  idempotency_keys: IdempotencyKeysTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  settings: SettingsTable;
  event_documents: EventDocumentsTable;
  linked_documents: LinkedDocumentsTable;
  occurrence_counts: OccurrenceCountsTable;
  counted_events: CountedEventsTable;
}
