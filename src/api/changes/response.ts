// The response schemas of `GET /changes` (D24): published in the OpenAPI document and checked with VALIDATE_RESPONSES.
import Type, { type TSchema } from 'typebox';
import { closedObject, component } from '../../http/schemas.ts';
import { EventSchema } from '../events/response.ts';
import { linkedResponseSchemas } from '../linked/response.ts';
import { organizerKind } from '../../core/organizers/kind.ts';
import { CategorySchema, TagSchema } from '../terms/response.ts';
import { venueKind } from '../../core/venues/kind.ts';

const TYPES = ['event', 'venue', 'organizer', 'category', 'tag'] as const;

const itemId = Type.Integer({
  minimum: 1,
  description: 'The item id (categories and tags share one id sequence, the other kinds another).',
});

const upsert = (type: (typeof TYPES)[number], item: TSchema) =>
  closedObject(
    {
      type: Type.Literal(type, { description: 'The kind of item.' }),
      id: itemId,
      action: Type.Literal('upsert', { description: 'Store or replace the item.' }),
      item,
    },
    {
      description: `A ${type} the caller sees, as GET by id shows it to this caller (password-protected events as lists show them).`,
    },
  );

export const SyncChangeSchema = component(
  'SyncChange',
  Type.Union(
    [
      upsert('event', EventSchema),
      upsert('venue', linkedResponseSchemas(venueKind).item),
      upsert('organizer', linkedResponseSchemas(organizerKind).item),
      upsert('category', CategorySchema),
      upsert('tag', TagSchema),
      closedObject(
        {
          type: Type.String({ enum: [...TYPES], description: 'The kind of item.' }),
          id: itemId,
          action: Type.Literal('remove', { description: 'Forget the item.' }),
        },
        {
          description:
            "An item the caller could list before and no longer sees: deleted, trashed, unpublished, made private, hidden from listings, or otherwise out of the caller's lists. Items the caller never could list are left out.",
        },
      ),
    ],
    { description: 'One item that changed: its current state, or its removal.' },
  ),
);

export const ChangesPageSchema = component(
  'ChangesPage',
  closedObject(
    {
      changes: Type.Array(SyncChangeSchema, {
        description: 'What changed after the cursor, oldest first, one entry per item (its latest state).',
      }),
      next_cursor: Type.String({ description: 'Where to continue: send it as `since` next time (opaque).' }),
      has_more: Type.Boolean({
        description:
          'true: more changes are waiting, ask again at once with next_cursor; false: the client is up to date.',
      }),
    },
    { description: 'A page of changes (D24).' },
  ),
);
