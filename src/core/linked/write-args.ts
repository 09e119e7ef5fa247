// The arguments of a venue or organizer write: its name, description, own fields and the shared post fields. The API's
// routes and an event's inline venue or organizer are read with them alike.
import { arg, type Args } from '../input/args.ts';
import { TEXT_INPUT } from '../input/documented-inputs.ts';
import { nonEmptyString, stringOrEmpty } from '../input/validators.ts';
import { organizerFieldArgs } from '../organizers/input.ts';
import { postWriteArgs } from '../posts/input.ts';
import { venueFieldArgs } from '../venues/input.ts';
import type { LinkedPostKind } from './kind.ts';

/** Each kind's own field arguments (the core names the fields: LinkedPostKind.fieldNames). */
const FIELD_ARGS: Record<LinkedPostKind['type'], Args> = { venue: venueFieldArgs, organizer: organizerFieldArgs };

/** The fields a create (name required) or an update accepts; events validate inline venues/organizers with them too. */
export const linkedFieldArgs = (kind: LinkedPostKind, nameRequired: boolean): Args => ({
  [kind.nameKey]: nameRequired
    ? arg.string({ description: `The ${kind.type} name.`, required: true, validate: nonEmptyString, maxLength: 1000 })
    : arg.string({ description: `The ${kind.type} name.`, validate: nonEmptyString, maxLength: 1000 }),
  description: arg.any({
    description: `The ${kind.type} description (HTML, sanitised).`,
    validate: stringOrEmpty,
    openapi: TEXT_INPUT,
  }),
  ...FIELD_ARGS[kind.type],
  ...postWriteArgs,
  // D25: only events recur; a rule sent for a venue or an organizer is a mistake worth saying, not ignoring.
  recurrence: arg.any({
    description: `Refused: a ${kind.type} cannot recur (only events take recurrence).`,
    validate: () => ({
      code: 'rest_invalid_recurrence',
      message: `A ${kind.type} cannot recur: recurrence belongs to events.`,
      data: { status: 400 },
    }),
    openapi: false,
  }),
});
