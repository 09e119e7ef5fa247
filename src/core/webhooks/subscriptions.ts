// D27 webhook subscriptions: the `webhooks` table, which this module alone writes (test/store/table-owners.test.ts).
// A new subscription starts at the change log's latest seq (it hears about changes committed after it was created); a
// paused one (active=false) does not collect deliveries, and on resuming it starts again from the latest seq.
import { latestSeq } from '../change-log/read.ts';
import { formatAt } from '../change-log/log.ts';
import type { Db, Store, Trx } from '../../store/store.ts';
import type { WebhooksTable } from '../../store/schema.ts';
import { generateSecret } from './signing.ts';
import type { Selectable } from 'kysely';

const ITEM_TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;
const ACTIONS = ['created', 'updated', 'trashed', 'restored', 'deleted'] as const;
/** Every event type a subscription may select, `*` aside. */
export const EVENT_TYPES: readonly string[] = ITEM_TYPES.flatMap((type) =>
  ACTIONS.map((action) => `${type}.${action}`),
);
export const ALL_EVENTS = '*';

type WebhookRow = Selectable<WebhooksTable>;

export interface Subscription {
  id: number;
  url: string;
  events: string[];
  active: boolean;
  description: string;
  created: string;
  modified: string;
}

/** A subscription's `events` column: the JSON array of strings this module wrote. */
export function parseEvents(text: string): string[] {
  const events: unknown = JSON.parse(text);
  if (!Array.isArray(events) || !events.every((event) => typeof event === 'string'))
    throw new Error(`webhooks.events is not a JSON array of strings: ${text}`);
  return events;
}

export const toSubscription = (row: WebhookRow): Subscription => ({
  id: row.id,
  url: row.url,
  events: parseEvents(row.events),
  active: row.active === 1,
  description: row.description,
  created: row.created_utc,
  modified: row.modified_utc,
});

/** Whether a subscription selecting `events` wants `eventType`. */
export const selects = (events: readonly string[], eventType: string) =>
  events.includes(ALL_EVENTS) || events.includes(eventType);

/** The first entry of `events` that is not an event type, if any. */
export const unknownEventType = (events: readonly string[]) =>
  events.find((event) => event !== ALL_EVENTS && !EVENT_TYPES.includes(event));

export const findWebhook = (db: Db, id: number) =>
  db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

export const listWebhooks = (db: Db) => db.selectFrom('webhooks').selectAll().orderBy('id').execute();

interface NewSubscription {
  url: string;
  events: string[];
  active: boolean;
  description: string;
}

/** Creates a subscription; returns it with its secret (the only time the secret leaves the service). */
export async function createWebhook(
  store: Store,
  input: NewSubscription,
  now: Date,
): Promise<{ row: WebhookRow; secret: string }> {
  const secret = generateSecret();
  const at = formatAt(now);
  const row = await store.transaction(async (trx) => {
    const cursor = await latestSeq(trx);
    return trx
      .insertInto('webhooks')
      .values({
        url: input.url,
        events: JSON.stringify([...new Set(input.events)]),
        active: input.active ? 1 : 0,
        description: input.description,
        secret,
        cursor,
        created_utc: at,
        modified_utc: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { row, secret };
}

export async function updateWebhook(
  store: Store,
  id: number,
  input: Partial<NewSubscription>,
  now: Date,
): Promise<WebhookRow | undefined> {
  return store.transaction(async (trx) => {
    const current = await findWebhook(trx, id);
    if (!current) return undefined;
    const resuming = input.active === true && current.active === 0;
    return trx
      .updateTable('webhooks')
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: JSON.stringify([...new Set(input.events)]) } : {}),
        ...(input.active !== undefined ? { active: input.active ? 1 : 0 } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(resuming ? { cursor: await latestSeq(trx) } : {}),
        modified_utc: formatAt(now),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  });
}

/** The subscriptions `ids` have turned the changes up to `seq` into deliveries: their cursors move there (never back). */
export async function advanceCursors(trx: Trx, ids: readonly number[], seq: number): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable('webhooks').set({ cursor: seq }).where('id', 'in', ids).where('cursor', '<', seq).execute();
}

/**
 * Taken by the worker's transaction that turns changes into deliveries, and by a deletion: a subscription deleted
 * between the worker's read of the subscriptions and its insert of their deliveries would fail that insert (a foreign
 * key) on PostgreSQL, and the worker's whole run with it.
 */
export const ENQUEUE_LOCK = 'webhooks:enqueue';

/**
 * Its deliveries and their attempts go with it (foreign keys on delete cascade), those the worker is queueing too:
 * the deletion waits for it ({@link ENQUEUE_LOCK}).
 */
export function deleteWebhook(store: Store, id: number): Promise<WebhookRow | undefined> {
  return store.transaction(async (trx) => {
    await store.lock(trx, ENQUEUE_LOCK);
    return trx.deleteFrom('webhooks').where('id', '=', id).returningAll().executeTakeFirst();
  });
}
