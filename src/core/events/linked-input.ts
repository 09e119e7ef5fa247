// The `venue` and `organizer` fields of event writes (§5.2 "Linked venue/organizer"): ids, `{id}`, inline objects
// (validated as the venue/organizer create endpoint validates them) and arrays mixing them.
import { canReadPost } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { coerceInteger } from '../input/args.ts';
import type { CommandContext } from '../input/context.ts';
import { InvalidFields, MissingFields } from '../../domain/errors.ts';
import { hasParam } from '../input/params.ts';
import { optionalNumberArg } from '../input/values.ts';
import { readArgs } from '../input/read.ts';
import type { LinkedPostKind } from '../linked/kind.ts';
import { linkedFieldArgs } from '../linked/write-args.ts';
import type { LinkedInput, LinkedRef } from '../linked/input.ts';
import type { Sent } from '../linked/service.ts';
import { loadPost } from '../posts/input.ts';
import { mayAssignAuthor, postLike } from '../posts/fields.ts';

/** PHP's `empty()`: these values link nothing. */
const isEmptyValue = (value: unknown) =>
  value === '' || value === 0 || value === '0' || value === false || (Array.isArray(value) && value.length === 0);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const CSV_OF_IDS = /^\s*\d+\s*(,\s*\d+\s*)+$/;

/**
 * An existing item of the kind that the caller could open by id (D32: any other id is refused as an unknown one, so
 * that linking cannot reveal an item through the event's embed).
 */
async function isIdOfKind(ctx: CommandContext, kind: LinkedPostKind, raw: unknown): Promise<number | null> {
  const id = coerceInteger(raw);
  if (id === undefined || id <= 0) return null;
  const post = await loadPost(ctx, id);
  if (post?.type !== kind.type) return null;
  return canReadPost(ctx.viewer, kind.type, postLike(post), formatWp(ctx.now)) ? id : null;
}

/** Only what was sent: the linked create treats an absent field and a defaulted one differently. */
async function inlineFields(
  ctx: CommandContext,
  kind: LinkedPostKind,
  object: Record<string, unknown>,
): Promise<Sent | null> {
  let values: Record<string, unknown>;
  try {
    values = await readArgs(linkedFieldArgs(kind, true), object, ctx);
  } catch (error) {
    if (error instanceof InvalidFields || error instanceof MissingFields) return null;
    throw error;
  }
  const sent: Sent = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  return kind.checkFields?.(sent) ? null : sent;
}

async function readItem(
  ctx: CommandContext,
  kind: LinkedPostKind,
  value: unknown,
): Promise<LinkedRef | 'empty' | null> {
  if (isEmptyValue(value)) return 'empty';
  if (isPlainObject(value)) {
    if (hasParam(value, 'id')) {
      const id = await isIdOfKind(ctx, kind, value.id);
      return id === null ? null : { id };
    }
    const fields = await inlineFields(ctx, kind, value);
    return fields === null ? null : { fields };
  }
  if (typeof value === 'number' || typeof value === 'string') {
    const id = await isIdOfKind(ctx, kind, value);
    return id === null ? null : { id };
  }
  return null;
}

/** Null when the value is not acceptable (400 `rest_invalid_param` on the field). */
async function readLinkedInput(ctx: CommandContext, kind: LinkedPostKind, value: unknown): Promise<LinkedInput | null> {
  if (typeof value === 'string' && CSV_OF_IDS.test(value)) {
    const ids = await Promise.all(value.split(',').map((id) => isIdOfKind(ctx, kind, id.trim())));
    return ids.every((id) => id !== null) ? { csv: true } : null;
  }
  const refs: LinkedRef[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    const ref = await readItem(ctx, kind, item);
    if (ref === null) return null;
    if (ref !== 'empty') refs.push(ref);
  }
  return { refs };
}

/**
 * D32: inline items follow `POST /venues` and `POST /organizers`: naming another user as `author` takes the right to
 * edit that user's items (`mayAssignAuthor`; a route permission, so 403). Their `status` is scaled back when the item
 * is created (posts/lifecycle.ts), as for the standalone create.
 */
export function inlineAuthorsAllowed(ctx: CommandContext, input: LinkedInput | null | undefined): boolean {
  if (!input || 'csv' in input) return true;
  return input.refs.every((ref) => 'id' in ref || mayAssignAuthor(ctx, optionalNumberArg(ref.fields, 'author')));
}

/** Read once per request: the validator and the handler share the answer. */
export const linkedInput = (ctx: CommandContext, kind: LinkedPostKind, value: unknown): Promise<LinkedInput | null> =>
  ctx.memo(`linked-input:${kind.type}`, () => readLinkedInput(ctx, kind, value));
