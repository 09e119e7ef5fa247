// An event write as the core takes it, from any surface: the fields read and checked exactly as the API checks them
// (its coercions, its check order, the store-backed checks: the venue exists and may be linked, the categories exist
// or may be created, the image may be set…), then the linked venues and organizers resolved. The HTTP routes read the
// fields in their own check order (validation before permission) and call `eventInputOf`; the .ics import and any
// other surface call `readEventCommand`. Both throw the core's MissingFields and InvalidFields, which each surface
// words its own way.
import type { ArgValues } from '../input/args.ts';
import type { CommandContext } from '../input/context.ts';
import type { ParamMap } from '../input/params.ts';
import { readArgs } from '../input/read.ts';
import { organizerKind } from '../organizers/kind.ts';
import { venueKind } from '../venues/kind.ts';
import { eventFieldArgs } from './input.ts';
import { linkedInput } from './linked-input.ts';
import type { EventInput } from './service.ts';

/** The fields of an event write, as read (typed by their arguments: `eventFieldArgs`). */
export type EventFields = ArgValues<ReturnType<typeof eventFieldArgs>>;

/** The core's input of a write from its read fields: only what was sent, inline venues and organizers resolved. */
export async function eventInputOf(
  ctx: CommandContext,
  fields: Partial<EventFields> & Record<string, unknown>,
  exclude: readonly string[] = [],
): Promise<EventInput> {
  const input: EventInput = Object.fromEntries(
    Object.entries(fields).filter(([key, value]) => value !== undefined && !exclude.includes(key)),
  );
  if (fields.venue !== undefined) input.venue = (await linkedInput(ctx, venueKind, fields.venue))!;
  if (fields.organizer !== undefined) input.organizer = (await linkedInput(ctx, organizerKind, fields.organizer))!;
  return input;
}

/**
 * The arguments of a create and of an update, built once: `eventFieldArgs` builds their schemas anew on each call,
 * which a batch (the .ics import, one command per unit) would otherwise pay per unit.
 */
const CREATE_ARGS = eventFieldArgs(true);
const UPDATE_ARGS = eventFieldArgs(false);

/** Raw input read as an event create (`create`: its required fields required) or update. */
export async function readEventCommand(
  ctx: CommandContext,
  raw: ParamMap,
  options: { create: boolean },
): Promise<EventInput> {
  return eventInputOf(ctx, await readArgs(options.create ? CREATE_ARGS : UPDATE_ARGS, raw, ctx));
}
