import { randomBytes } from 'node:crypto';
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SchemaDialect } from './dialect.ts';

/** Each migration is written once for both databases; what differs (generated keys) comes from `dialect`. */
export function migrations(dialect: SchemaDialect): Record<string, Migration> {
  const { serialId } = dialect;
  const text = (column: ColumnDefinitionBuilder) => column.notNull().defaultTo('');
  const flag = (column: ColumnDefinitionBuilder) => column.notNull().defaultTo(0);

  return {
    '0001_initial': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('users')
          .addColumn('id', 'integer', serialId)
          .addColumn('login', 'text', (c) => c.notNull().unique())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('display_name', 'text', text)
          .addColumn('created_utc', 'text', (c) => c.notNull())
          .execute();

        await db.schema
          .createTable('app_passwords')
          .addColumn('id', 'integer', serialId)
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('name', 'text', text)
          .addColumn('hash', 'text', (c) => c.notNull())
          .addColumn('created_utc', 'text', (c) => c.notNull())
          .addColumn('last_used_utc', 'text')
          .execute();
        await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();

        await db.schema
          .createTable('posts')
          .addColumn('id', 'integer', serialId)
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('status_before_trash', 'text', text)
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('title', 'text', text)
          .addColumn('content', 'text', text)
          .addColumn('excerpt', 'text', text)
          .addColumn('password', 'text', text)
          .addColumn('image_id', 'integer')
          .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('date_local', 'text', (c) => c.notNull())
          .addColumn('date_utc', 'text', (c) => c.notNull())
          .addColumn('modified_local', 'text', (c) => c.notNull())
          .addColumn('modified_utc', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('posts_type_slug').on('posts').columns(['type', 'slug']).unique().execute();
        await db.schema.createIndex('posts_type_date').on('posts').columns(['type', 'date_utc', 'id']).execute();
        await db.schema.createIndex('posts_author').on('posts').column('author_id').execute();
        await db.schema.createIndex('posts_parent').on('posts').column('parent_id').execute();

        await db.schema
          .createTable('images')
          .addColumn('id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('extension', 'text', text)
          .addColumn('width', 'integer')
          .addColumn('height', 'integer')
          .execute();
        await db.schema.createIndex('images_url').on('images').column('url').execute();

        await db.schema
          .createTable('venues')
          .addColumn('id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
          .addColumn('address', 'text', text)
          .addColumn('city', 'text', text)
          .addColumn('country', 'text', text)
          .addColumn('province', 'text', text)
          .addColumn('state', 'text', text)
          .addColumn('zip', 'text', text)
          .addColumn('phone', 'text', text)
          .addColumn('website', 'text', text)
          .addColumn('stateprovince', 'text', text)
          .addColumn('show_map', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('show_map_link', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('geo_lat', 'double precision')
          .addColumn('geo_lng', 'double precision')
          .execute();

        await db.schema
          .createTable('organizers')
          .addColumn('id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
          .addColumn('phone', 'text', text)
          .addColumn('website', 'text', text)
          .addColumn('email', 'text', text)
          .execute();

        await db.schema
          .createTable('events')
          .addColumn('id', 'integer', (c) => c.primaryKey().references('posts.id').onDelete('cascade'))
          .addColumn('timezone', 'text', text)
          .addColumn('timezone_abbr', 'text', text)
          .addColumn('all_day', 'integer', flag)
          .addColumn('start_local', 'text', (c) => c.notNull())
          .addColumn('end_local', 'text', (c) => c.notNull())
          .addColumn('start_utc', 'text', (c) => c.notNull())
          .addColumn('end_utc', 'text', (c) => c.notNull())
          .addColumn('cost_values', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('currency_symbol', 'text', text)
          .addColumn('currency_position', 'text', text)
          .addColumn('website', 'text')
          .addColumn('show_map', 'integer', flag)
          .addColumn('show_map_link', 'integer', flag)
          .addColumn('hide_from_listings', 'integer', flag)
          .addColumn('sticky', 'integer', flag)
          .addColumn('featured', 'integer', flag)
          .addColumn('venue_id', 'integer', (c) => c.references('posts.id').onDelete('set null'))
          .execute();
        await db.schema.createIndex('events_venue').on('events').column('venue_id').execute();

        await db.schema
          .createTable('occurrences')
          .addColumn('id', 'integer', serialId)
          .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
          .addColumn('start_local', 'text', (c) => c.notNull())
          .addColumn('end_local', 'text', (c) => c.notNull())
          .addColumn('start_utc', 'text', (c) => c.notNull())
          .addColumn('end_utc', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('occurrences_start')
          .on('occurrences')
          .columns(['start_local', 'event_id'])
          .execute();
        await db.schema.createIndex('occurrences_end').on('occurrences').columns(['end_local']).execute();
        await db.schema.createIndex('occurrences_start_utc').on('occurrences').columns(['start_utc']).execute();
        await db.schema.createIndex('occurrences_event').on('occurrences').column('event_id').execute();

        await db.schema
          .createTable('event_organizers')
          .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
          .addColumn('organizer_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('event_organizers_pk', ['event_id', 'position'])
          .execute();
        await db.schema
          .createIndex('event_organizers_organizer')
          .on('event_organizers')
          .column('organizer_id')
          .execute();

        await db.schema
          .createTable('terms')
          .addColumn('id', 'integer', serialId)
          .addColumn('taxonomy', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('description', 'text', text)
          .addColumn('parent_id', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex('terms_taxonomy_slug').on('terms').columns(['taxonomy', 'slug']).unique().execute();
        await db.schema.createIndex('terms_taxonomy_parent').on('terms').columns(['taxonomy', 'parent_id']).execute();

        await db.schema
          .createTable('event_terms')
          .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
          .addColumn('term_id', 'integer', (c) => c.notNull().references('terms.id').onDelete('cascade'))
          .addPrimaryKeyConstraint('event_terms_pk', ['event_id', 'term_id'])
          .execute();
        await db.schema.createIndex('event_terms_term').on('event_terms').columns(['term_id', 'event_id']).execute();
      },
    },

    // The event list's date window (§4.2) as an index-only range scan, read in start order; it replaces the
    // (start_local, event_id) index, which it covers.
    '0002_occurrence_window': {
      async up(db: Kysely<any>) {
        await db.schema
          .createIndex('occurrences_window')
          .on('occurrences')
          .columns(['start_local', 'end_local', 'event_id'])
          .execute();
        await db.schema.dropIndex('occurrences_start').execute();
      },
    },
    '0003_term_counts': {
      async up(db: Kysely<any>) {
        await db.schema
          .alterTable('terms')
          .addColumn('published_count', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`update terms set published_count = (
          select count(*) from event_terms join posts on posts.id = event_terms.event_id
          where event_terms.term_id = terms.id and posts.status = 'publish')`.execute(db);
        // Scheduled events whose date has come are counted at read time: finding them must be cheap.
        await db.schema.createIndex('posts_status_date').on('posts').columns(['status', 'date_utc']).execute();
      },
    },
    '0004_data_version': {
      async up(db: Kysely<any>) {
        // SQLite tells every connection when another one commits (PRAGMA data_version); PostgreSQL needs a row.
        if (!dialect.dataVersionTable) return;
        await db.schema
          .createTable('data_version')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('version', 'bigint', (c) => c.notNull())
          .execute();
        await db.insertInto('data_version').values({ id: 1, version: 0 }).execute();
      },
    },
    '0005_occurrence_listing': {
      async up(db: Kysely<any>) {
        await db.schema
          .alterTable('occurrences')
          .addColumn('status', 'text', (c) => c.notNull().defaultTo('draft'))
          .execute();
        await db.schema
          .alterTable('occurrences')
          .addColumn('published_utc', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        await db.schema
          .alterTable('occurrences')
          .addColumn('author_id', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable('occurrences')
          .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`update occurrences set
          status = (select status from posts where posts.id = occurrences.event_id),
          published_utc = (select date_utc from posts where posts.id = occurrences.event_id),
          author_id = (select author_id from posts where posts.id = occurrences.event_id),
          hidden = (select hide_from_listings from events where events.id = occurrences.event_id)`.execute(db);
        // List order is start, publication date, id; the other columns make the total an index-only count.
        await db.schema
          .createIndex('occurrences_list')
          .on('occurrences')
          .columns(['start_local', 'published_utc', 'event_id', 'end_local', 'hidden', 'status', 'author_id'])
          .execute();
        await db.schema.dropIndex('occurrences_window').execute();
      },
    },
    // The change log (D21, src/core/change-log/): one row per changed item per committed transaction, in commit order.
    '0006_changes': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('changes')
          .addColumn('seq', dialect.serialBigKey.type, dialect.serialBigKey.tweak)
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('id', 'integer', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('at', 'text', (c) => c.notNull())
          .execute();
        // Retention prunes by age.
        await db.schema.createIndex('changes_at').on('changes').column('at').execute();
      },
    },
    // D29: failed authentications counted in the database, so that every process shares them.
    '0007_auth_failures': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('auth_failures')
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('login', 'text', (c) => c.notNull())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('window_end', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('auth_failures_pk', ['address', 'login'])
          .execute();
        // Expired rows are deleted by range (FailureLimiter's clean-up).
        await db.schema.createIndex('auth_failures_window_end').on('auth_failures').column('window_end').execute();
      },
    },
    // D23: Idempotency-Key claims and the answers they replay (src/core/idempotency/), shared by every process.
    '0008_idempotency_keys': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('idempotency_keys')
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('route', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('request_hash', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('claim', 'text', (c) => c.notNull())
          .addColumn('created_ms', 'bigint', (c) => c.notNull())
          .addColumn('status', 'integer')
          .addColumn('headers', 'text')
          .addColumn('content_type', 'text')
          .addColumn('body', 'text')
          .addColumn('body_base64', 'integer', flag)
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'route', 'key'])
          .execute();
        // Expired keys are deleted by age.
        await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_ms').execute();
      },
    },
    // D31: de-duplicating an inline venue or organizer (same name, case-insensitive) and resolving term names are
    // index lookups on the dialect's own lower-casing, the very expression their queries compare, never a scan.
    '0009_lowered_name_indexes': {
      async up(db: Kysely<any>) {
        await sql`create index posts_type_lower_title on posts (type, ${dialect.lower(sql.ref('title'))})`.execute(db);
        await sql`create index terms_taxonomy_lower_name on terms (taxonomy, ${dialect.lower(sql.ref('name'))})`.execute(
          db,
        );
      },
    },
    // D25 recurring events (core/events/series.ts): every occurrence of a series is an event of its own (posts,
    // events and occurrences rows, as the reference's add-on keeps them), tied to its series by `series_id`.
    '0011_recurrence': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('events').addColumn('series_id', 'integer').execute();
        await db.schema.alterTable('events').addColumn('recurrence', 'text', text).execute();
        await db.schema.alterTable('events').addColumn('occurrence_start_utc', 'text').execute();
        await db.schema.alterTable('events').addColumn('overrides', 'text', text).execute();
        await db.schema.alterTable('events').addColumn('series_horizon_utc', 'text').execute();
        await db.schema
          .createIndex('events_series')
          .on('events')
          .columns(['series_id', 'occurrence_start_utc'])
          .execute();
        // collapse_series=true keeps the first matching occurrence of each series.
        await db.schema.alterTable('occurrences').addColumn('series_id', 'integer').execute();
      },
    },
    // D30: keyword search of events served by an index (SQLite FTS5 trigram, PostgreSQL pg_trgm), see the dialects.
    '0012_search_index': {
      async up(db: Kysely<any>) {
        await dialect.createSearchIndex(db);
      },
    },
    // D27 webhooks (src/core/webhooks/): subscriptions with their change-log cursor, one delivery row per change and
    // subscription (unique: at least once, never twice from the log), and the attempts of each delivery.
    '0010_webhooks': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('webhooks')
          .addColumn('id', 'integer', serialId)
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('events', 'text', (c) => c.notNull())
          .addColumn('active', 'integer', flag)
          .addColumn('description', 'text', text)
          .addColumn('secret', 'text', (c) => c.notNull())
          .addColumn('cursor', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('created_utc', 'text', (c) => c.notNull())
          .addColumn('modified_utc', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('webhook_deliveries')
          .addColumn('id', dialect.serialBigKey.type, dialect.serialBigKey.tweak)
          .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
          .addColumn('seq', 'bigint', (c) => c.notNull())
          .addColumn('msg_id', 'text', (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('item_type', 'text', (c) => c.notNull())
          .addColumn('item_id', 'integer', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', flag)
          .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull())
          .addColumn('lease_until_ms', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('lease_token', 'text', text)
          .addColumn('created_ms', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_change')
          .unique()
          .on('webhook_deliveries')
          .columns(['webhook_id', 'seq'])
          .execute();
        // The claim walks pending rows in seq order and stops at a batch: (status, seq), not a sort of the backlog.
        await db.schema
          .createIndex('webhook_deliveries_due')
          .on('webhook_deliveries')
          .columns(['status', 'seq'])
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_item')
          .on('webhook_deliveries')
          .columns(['webhook_id', 'item_type', 'item_id', 'status'])
          .execute();
        await db.schema
          .createTable('webhook_attempts')
          .addColumn('id', dialect.serialBigKey.type, dialect.serialBigKey.tweak)
          .addColumn('delivery_id', 'bigint', (c) =>
            c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
          )
          .addColumn('webhook_id', 'integer', (c) => c.notNull())
          .addColumn('attempt', 'integer', (c) => c.notNull())
          .addColumn('attempted_utc', 'text', (c) => c.notNull())
          .addColumn('succeeded', 'integer', flag)
          .addColumn('response_status', 'integer')
          .addColumn('duration_ms', 'integer', (c) => c.notNull())
          .addColumn('error', 'text', text)
          .addColumn('response_body', 'text', text)
          .execute();
        await db.schema
          .createIndex('webhook_attempts_webhook')
          .on('webhook_attempts')
          .columns(['webhook_id', 'id'])
          .execute();
      },
    },
    // D26 iCalendar (src/ical/): the UID an .ics import matched an event by (found by index), SEQUENCE, and the digest
    // of the VEVENT last imported (a second import of the same file changes nothing).
    '0013_ical': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('events').addColumn('ical_uid', 'text').execute();
        await db.schema.alterTable('events').addColumn('ical_sequence', 'integer', flag).execute();
        await db.schema.alterTable('events').addColumn('ical_hash', 'text').execute();
        await db.schema.createIndex('events_ical_uid').on('events').column('ical_uid').execute();
      },
    },
    // D25: the series whose horizon is due are found by index (a partial one: single events have none), not by a
    // scan of every event on the first list of each day.
    '0014_series_horizon_index': {
      async up(db: Kysely<any>) {
        await db.schema
          .createIndex('events_series_horizon')
          .on('events')
          .column('series_horizon_utc')
          .where(sql.ref('series_horizon_utc'), 'is not', null)
          .execute();
      },
    },
    // D27: the worker finds the deliveries due now by index: (status, next_attempt_ms, seq) instead of walking every
    // pending one in seq order, which a backlog in retry backoff (a dead receiver's) made a scan of the backlog on
    // every wake-up. The per-item order check (an earlier pending delivery of the same item) gets seq in its index, so
    // that it is one index probe and the planner never prefers walking a subscription's earlier deliveries by seq.
    // The two indexes they replace have no other reader.
    '0015_webhook_deliveries_next_attempt': {
      async up(db: Kysely<any>) {
        await db.schema
          .createIndex('webhook_deliveries_next_attempt')
          .on('webhook_deliveries')
          .columns(['status', 'next_attempt_ms', 'seq'])
          .execute();
        await db.schema
          .createIndex('webhook_deliveries_item_seq')
          .on('webhook_deliveries')
          .columns(['webhook_id', 'item_type', 'item_id', 'status', 'seq'])
          .execute();
        await db.schema.dropIndex('webhook_deliveries_due').execute();
        await db.schema.dropIndex('webhook_deliveries_item').execute();
      },
    },
    // D24: who could list an item before each change, so that /changes tells only them it is gone. The rows written
    // before this say nothing of it: they count as items anyone could list (as every row did before), until
    // retention ages them out.
    '0016_changes_listed_before': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('changes').addColumn('before_status', 'text').execute();
        await db.schema.alterTable('changes').addColumn('before_author', 'integer').execute();
        await db
          .updateTable('changes')
          .set({ before_status: sql`case when action = 'created' then '' else 'publish' end`, before_author: 0 })
          .execute();
      },
    },
    // Secrets every process of one database shares, made here once: the key of the event pages' unlock cookies (D28,
    // pages/unlock.ts).
    '0017_settings': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('settings')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
        await db
          .insertInto('settings')
          .values({ name: 'page_unlock_key', value: randomBytes(32).toString('base64url') })
          .execute();
      },
    },
    // D34: stored representations. Empty at first: the documents job (core/background/documents.ts) renders every
    // published event, venue and organizer in the background while reads fall back to rendering live.
    '0018_documents': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('event_documents')
          .addColumn('event_id', 'integer', (c) => c.primaryKey())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('item', 'text', (c) => c.notNull())
          .addColumn('entry', 'text', (c) => c.notNull())
          .addColumn('venue_id', 'integer')
          .addColumn('organizer_ids', 'text', (c) => c.notNull())
          .addColumn('term_ids', 'text', (c) => c.notNull())
          .addColumn('modified_utc', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('linked_documents')
          .addColumn('post_id', 'integer', (c) => c.primaryKey())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('item', 'text', (c) => c.notNull())
          .addColumn('entry', 'text', (c) => c.notNull())
          .addColumn('json_ld', 'text', (c) => c.notNull())
          .execute();
      },
    },
    // Totals without scans (core/occurrences/counts.ts). A database that already holds events has its counts made by
    // the start-up job before lists use them; an empty one is complete at once.
    '0019_occurrence_counts': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('occurrence_counts')
          .addColumn('id', dialect.serialBigKey.type, dialect.serialBigKey.tweak)
          .addColumn('dimension', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('start_day', 'text', (c) => c.notNull())
          .addColumn('end_day', 'text', (c) => c.notNull())
          .addColumn('published_utc', 'text', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('occurrence_counts_key')
          .on('occurrence_counts')
          .columns(['dimension', 'status', 'start_day', 'end_day', 'published_utc', 'count'])
          .execute();
        await db.schema
          .createTable('counted_events')
          .addColumn('event_id', 'integer', (c) => c.primaryKey())
          .addColumn('keys', 'text', (c) => c.notNull())
          .execute();
        const anyEvent = await db.selectFrom('events').select('id').limit(1).executeTakeFirst();
        if (!anyEvent)
          await db.insertInto('settings').values({ name: 'occurrence_counts', value: 'complete' }).execute();
      },
    },
    // The counts gain venues and organizers as dimensions. Events counted before have no keys there, so a database
    // that has counted some is counted again from nothing by the start-up job; its lists count rows until then.
    '0020_venue_organizer_counts': {
      up: countAgainFromNothing,
    },
    // The counts gain month rows beside the day rows (domain/occurrence-counts.ts `monthKey`), which every write
    // appends from now on: those of the rows counted so far are their sums, so totals stay exact from the first start.
    '0021_month_counts': {
      async up(db: Kysely<any>) {
        await sql`
          insert into occurrence_counts (dimension, status, start_day, end_day, published_utc, count)
          select 'm:' || dimension, status, substr(start_day, 1, 7),
            case when substr(end_day, 1, 7) = substr(start_day, 1, 7) then substr(start_day, 1, 7) else end_day end,
            published_utc, sum(count)
          from occurrence_counts
          where dimension not like 'm:%'
          group by 1, 2, 3, 4, 5
          having sum(count) <> 0`.execute(db);
      },
    },
    // D13: a search near a place reads the venues of a band of latitudes (domain/geo-box.ts), not every venue. Made
    // only if absent: tests take a database back to before 0020 or 0021 and run the later migrations again.
    '0022_venue_coordinates': {
      async up(db: Kysely<any>) {
        await db.schema.createIndex('venues_geo').ifNotExists().on('venues').columns(['geo_lat', 'geo_lng']).execute();
      },
    },
    // D30: on SQLite, writes list their events for the search index, which takes them 64 at a time (sqlite/search.ts).
    '0023_pending_search_rows': {
      async up(db: Kysely<any>) {
        await dialect.upgradeSearchIndex(db);
      },
    },
    // Where several processes write at once (PostgreSQL), two of them compacting the counts' ledger at the same time
    // could both add their sums, doubling the totals they touched, until compactions took a lock (core/occurrences/
    // counts.ts). A database that has counted events is counted again from nothing by the start-up job, as after 0020;
    // its lists count rows until then. SQLite's writers took turns: its counts stand.
    '0024_recount_after_concurrent_compactions': {
      async up(db: Kysely<any>) {
        if (dialect.writers === 'many') await countAgainFromNothing(db);
      },
    },
    // D25: a list that collapses series without narrowing them (the public upcoming pages, a window of days) finds
    // each series' first occurrence by one probe of the series' own rows, in start order, and walks the single events
    // apart, instead of ranking every occurrence of every series in its window (0.1–0.3 s a page with a hundred daily
    // series). The event pages' other dates of a series and the pages' date counts per series seek the first index too.
    // Both carry what the list filters read (SQLite still tests a partial index's own condition), so neither needs the
    // table's rows.
    '0025_series_list_indexes': {
      async up(db: Kysely<any>) {
        await db.schema
          .createIndex('occurrences_series')
          .ifNotExists()
          .on('occurrences')
          .columns([
            'series_id',
            'start_local',
            'event_id',
            'published_utc',
            'end_local',
            'hidden',
            'status',
            'author_id',
          ])
          .where(sql.ref('series_id'), 'is not', null)
          .execute();
        await db.schema
          .createIndex('occurrences_singles')
          .ifNotExists()
          .on('occurrences')
          .columns([
            'start_local',
            'published_utc',
            'event_id',
            'end_local',
            'hidden',
            'status',
            'author_id',
            'series_id',
          ])
          .where(sql.ref('series_id'), 'is', null)
          .execute();
      },
    },
    // D22, D26: whether a trashed event left a feed's cancelled days since its tag was taken is one seek of the trashed
    // posts by modification time (ical/feed.ts feedClockMovedBetween), not a walk of every event.
    '0026_trashed_posts_index': {
      async up(db: Kysely<any>) {
        await db.schema
          .createIndex('posts_trashed_modified')
          .ifNotExists()
          .on('posts')
          // The status too: SQLite then sees both conditions served here, and prefers it to posts_status_date.
          .columns(['status', 'modified_utc'])
          .where(sql.ref('status'), '=', sql.lit('trash'))
          .execute();
      },
    },
  };
}

/**
 * Has the start-up job count every event again from nothing (core/background/occurrence-counts.ts), if any was
 * counted: the ledger and the events' counted keys go, and the counts are no longer complete, so lists count rows until
 * the job is done.
 */
async function countAgainFromNothing(db: Kysely<any>): Promise<void> {
  const anyCounted = await db.selectFrom('counted_events').select('event_id').limit(1).executeTakeFirst();
  if (!anyCounted) return;
  await db.deleteFrom('occurrence_counts').execute();
  await db.deleteFrom('counted_events').execute();
  await db.deleteFrom('settings').where('name', '=', 'occurrence_counts').execute();
}
