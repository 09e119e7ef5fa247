// D27 payloads: `{"type": "event.updated", "timestamp": "<ISO 8601>", "data": {…}}`, where data is the item as an
// administrator reads it (GET by id, context of an administrator: drafts, private and trashed items included, no
// password blanking), or `{"id": 12}` for a deleted item (or one deleted since the change).
import type { DateTime } from 'luxon';
import type { CommittedChange } from '../change-log/log.ts';
import type { Config } from '../../config.ts';
import type { Actor } from '../../domain/actor.ts';
import { loadEventBundle, serializeEvent } from '../events/serialize.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { loadLinked, serializeLinked } from '../linked/serialize.ts';
import { organizerKind } from '../organizers/kind.ts';
import { serializeTermsById } from '../terms/service.ts';
import { venueKind } from '../venues/kind.ts';
import type { Db } from '../../store/store.ts';

/** An administrator that is no user: what the payloads are rendered as. */
export const adminActor = (config: Config, now: DateTime): Actor => ({
  viewer: { id: 0, role: 'administrator' },
  now,
  config,
});

const key = (type: string, id: number) => `${type}:${id}`;

/** The current administrator view of the items `changes` name (deleted ones left out), keyed `type:id`. */
export async function renderItems(
  db: Db,
  actor: Actor,
  changes: readonly CommittedChange[],
): Promise<Map<string, Record<string, unknown>>> {
  const idsOf = (type: string) => [
    ...new Set(
      changes.filter((change) => change.type === type && change.action !== 'deleted').map((change) => change.id),
    ),
  ];
  const out = new Map<string, Record<string, unknown>>();
  const eventIds = idsOf('event');
  if (eventIds.length > 0) {
    const bundle = await loadEventBundle(db, actor, eventIds);
    for (const id of eventIds)
      if (bundle.records.has(id)) out.set(key('event', id), serializeEvent(actor, bundle, id, { single: true }));
  }
  const linked = async (kind: LinkedPostKind) => {
    const ids = idsOf(kind.type);
    if (ids.length === 0) return;
    for (const [id, record] of await loadLinked(db, kind, ids))
      out.set(key(kind.type, id), serializeLinked(actor, kind, record, { single: true }));
  };
  await linked(venueKind);
  await linked(organizerKind);
  for (const [type, taxonomy] of [
    ['category', 'event_category'],
    ['tag', 'event_tag'],
  ] as const) {
    for (const [id, term] of await serializeTermsById(db, actor, taxonomy, idsOf(type))) out.set(key(type, id), term);
  }
  return out;
}

/** The JSON body of the delivery of `change`. */
export function payloadOf(change: CommittedChange, items: Map<string, Record<string, unknown>>): string {
  const data = items.get(key(change.type, change.id)) ?? { id: change.id };
  return JSON.stringify({
    type: `${change.type}.${change.action}`,
    timestamp: `${change.at.replace(' ', 'T')}Z`,
    data,
  });
}
