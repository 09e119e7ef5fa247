// The OpenAPI document's schema of an event's `venue` and `organizer` fields, as events/linked-input.ts reads them: an
// id, `{"id": …}`, the fields of one to create, or a list of those; an empty value for none.
import Type, { type TSchema } from 'typebox';
import { documentedObject } from '../input/args.ts';
import { component } from '../input/schema-names.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { linkedFieldArgs } from '../linked/write-args.ts';

function build(kind: LinkedPostKind): TSchema {
  const title = kind.type[0].toUpperCase() + kind.type.slice(1);
  const ref = component(
    `${title}Ref`,
    Type.Unsafe({
      type: 'object',
      description: `An existing ${kind.type}, by id (its other keys are ignored).`,
      properties: {
        id: {
          oneOf: [
            { type: 'integer', minimum: 1 },
            { type: 'string', pattern: '^\\s*\\d+\\s*$' },
          ],
        },
      },
      required: ['id'],
    }),
  );
  // Read as POST /venues or /organizers reads its body; an object with an `id` is a reference instead.
  const fields = component(
    `${title}Fields`,
    documentedObject(linkedFieldArgs(kind, true), {
      description: `The fields of a ${kind.type} to create, or to reuse when an identical one exists (as POST /${kind.collection} does).`,
      not: { required: ['id'] },
    }),
  );
  // `isEmptyValue` (0, "", "0", false, []) links nothing, alone or as an item of a list.
  const id = { type: 'integer', minimum: 0, description: `A ${kind.type} id; 0 for none.` };
  const none = { type: 'boolean', const: false, description: 'None.' };
  const idText = {
    type: 'string',
    pattern: '^(\\s*\\d+\\s*)?$',
    description: `A ${kind.type} id in digits; "" or "0" for none.`,
  };
  const idsText = {
    type: 'string',
    pattern: '^(\\s*\\d+\\s*(,\\s*\\d+\\s*)*)?$',
    description: `A ${kind.type} id in digits; "" or "0" for none. Several ids separated by commas pass validation, as in the reference, then are refused (could-not-create-${kind.type}): send a list instead.`,
  };
  const list = {
    type: 'array',
    items: { oneOf: [id, idText, none, ref, fields] },
    description:
      kind.type === 'venue'
        ? 'A list: its first venue is linked; [] for none.'
        : 'A list: every organizer in it is linked, in its order; [] for none.',
  };
  return component(
    `${title}Input`,
    Type.Unsafe({
      description: `The event's ${kind.type}: an id, {"id": …}, the fields of a new one, or a list of those.`,
      oneOf: [id, idsText, none, ref, fields, list],
    }),
  );
}

const built = new Map<LinkedPostKind, TSchema>();

/** `VenueInput` / `OrganizerInput`, built once per kind: the document publishes each once. */
export function linkedInputSchema(kind: LinkedPostKind): TSchema {
  const existing = built.get(kind);
  if (existing) return existing;
  const schema = build(kind);
  built.set(kind, schema);
  return schema;
}
