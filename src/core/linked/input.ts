// What an event write asks of its `venue` and `organizer` fields, once the HTTP edge has read them
// (events/linked-input.ts): the core links existing items and creates (or de-duplicates) inline ones.
import type { Sent } from './service.ts';

/** An existing item, or the fields of one to create (or de-duplicate, §7.2). */
export type LinkedRef = { id: number } | { fields: Sent };

/**
 * What the field asks for: a list of items (empty means "none"), or a CSV string of ids, which the reference accepts
 * in validation and then refuses with `could-not-create-*`.
 */
export type LinkedInput = { refs: LinkedRef[] } | { csv: true };
