import type { TProperties } from 'typebox';
import type { FieldIssue } from '../../domain/errors.ts';
import type { Trx } from '../../store/store.ts';

/** A venue or organizer row of its own table, without the id. */
export type Meta = Record<string, string | number | null>;

/**
 * What makes venues and organizers differ; everything else about these "linked posts" (routes, de-duplication,
 * trash, serialization, visibility) is shared and lives in this folder.
 */
export interface LinkedPostKind {
  type: 'venue' | 'organizer';
  collection: 'venues' | 'organizers';
  /** The key that holds the item's name in requests and responses. */
  nameKey: 'venue' | 'organizer';
  metaTable: 'venues' | 'organizers';
  /** The item's own fields besides the name and the shared post fields (the HTTP edge reads each: linked/fields.ts). */
  fieldNames: readonly string[];
  /** Meta columns the list `search` looks into, besides title, content and excerpt (§6). */
  searchColumns: readonly string[];
  /** The meta row for a new item; `sent` holds only the fields the request carried. */
  metaForCreate(sent: Record<string, unknown>): Meta;
  /** The columns to change on an update or a de-duplicated create: only what was sent (D2, D4). */
  metaChanges(sent: Record<string, unknown>): Meta;
  /** The fields after `image`, in the contract's order; empty values are dropped by the caller. */
  fields(meta: Meta): Record<string, unknown>;
  /** The response schema of each field `fields` returns (the response marks them optional: empty ones are dropped). */
  fieldSchemas: TProperties;
  /** Fields kept even when "empty" (D13: coordinates are returned whenever stored, 0 included). */
  keepWhenEmpty: readonly string[];
  /** Fields always appended after `json_ld` and before `global_id` (venues: the map flags). */
  trailing(meta: Meta): Record<string, unknown>;
  trailingSchemas: TProperties;
  jsonLd(item: { name: string; description: string; url: string }, meta: Meta): Record<string, unknown>;
  /** §7.4: a trashed item leaves every event that referenced it (those are logged as updated); answers their ids. */
  unlinkFromEvents(trx: Trx, id: number): Promise<number[]>;
  /** Cross-field checks a schema cannot express (D13 coordinates); null when fine. */
  checkFields?(sent: Record<string, unknown>): Record<string, FieldIssue | null> | null;
  messages: {
    notAccessible: [code: string, message: string];
    inTrash: [code: string, message: string];
    pageNotFound: [code: string, message: string];
  };
}
