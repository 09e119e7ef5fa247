import Type from 'typebox';
import { POST_STATUSES } from '../../domain/access.ts';
import { absoluteUrl, wpDateTime } from '../../http/schemas.ts';

/** The head every post-like object (event, venue, organizer) starts with, in the contract's key order (`postHead`). */
export const postHeadProperties = (type: string) => ({
  id: Type.Integer({
    minimum: 1,
    description: `The ${type} id (events, venues, organizers and images share one id sequence).`,
  }),
  author: Type.String({ pattern: '^\\d+$', description: 'The id of the user who owns it, as a string.' }),
  status: Type.String({
    enum: [...POST_STATUSES],
    description: 'Publication status; a scheduled item whose date has passed reads publish.',
  }),
  date: wpDateTime('Publication date, in the site time zone.'),
  date_utc: wpDateTime('Publication date, in UTC.'),
  modified: wpDateTime('Last change, in the site time zone.'),
  modified_utc: wpDateTime('Last change, in UTC.'),
  url: absoluteUrl(`The public page of the ${type}; ?p=<id> while it is not published.`),
});

export const globalIdProperties = (type: string) => ({
  global_id: Type.String({
    description: `An id for the ${type} that is unique across sites: <site host and path>?id=<id>.`,
  }),
  global_id_lineage: Type.Array(Type.String(), {
    description: 'Where the item comes from: its own global_id (then any import sources).',
  }),
});

/** schema.org data (§3.9), best effort: only on single reads. */
export const jsonLdSchema = (type: string) =>
  Type.Object(
    {},
    { additionalProperties: true, description: `schema.org data describing the ${type}; only on single reads.` },
  );
