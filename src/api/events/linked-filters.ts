// The venue and organizer list filters that look at events (§6 `event`, `has_events`, `only_with_upcoming`; D11),
// added to the linked routes through their ListFilter hook.
import { numberArg, optionalBooleanArg, optionalNumberArg } from '../../core/input/values.ts';
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { listStatusesAllowed, type PostStatus } from '../../domain/access.ts';
import { formatWp } from '../../domain/dates/stored-format.ts';
import { arg } from '../../core/input/args.ts';
import type { RequestContext } from '../../http/context.ts';
import type { Database } from '../../store/schema.ts';
import type { Db } from '../../store/store.ts';
import type { ListFilter } from '../linked/routes.ts';
import { isPostOfType } from '../../core/posts/input.ts';
import { visibleInList } from '../../core/posts/visibility.ts';

/**
 * How a linked type hangs off events: the linked ids, one row per (event, linked item), with the event's post joined
 * as `posts` so that status conditions can be added. Typed by what the filters use.
 */
type LinkQuery = SelectQueryBuilder<Database, 'posts', { linked_id: number | null }>;
type Links = (db: Db) => LinkQuery;

const venueLinks: Links = (db) =>
  db
    .selectFrom('events')
    .innerJoin('posts', 'posts.id', 'events.id')
    .select('events.venue_id as linked_id')
    .where('events.venue_id', 'is not', null);

const organizerLinks: Links = (db) =>
  db
    .selectFrom('event_organizers')
    .innerJoin('posts', 'posts.id', 'event_organizers.event_id')
    .select('event_organizers.organizer_id as linked_id');

/** `has_events`: events that are out in the world, i.e. neither unfinished (draft, pending) nor trashed. */
const LIVE_STATUSES: readonly PostStatus[] = ['publish', 'future', 'private'];

/** The outer list's `posts` is the venue or organizer; inside the subquery `posts` is the event. */
const idIn = (links: LinkQuery) => sql<SqlBool>`${sql.ref('posts.id')} in (${links})`;

function eventFilters(type: 'venue' | 'organizer', links: Links): ListFilter[] {
  const plural = `${type}s`;
  return [
    {
      args: {
        event: arg.integer({ description: `Only the ${plural} of this event.`, validate: isPostOfType('event') }),
      },
      where: (params, ctx) =>
        params.event === undefined
          ? undefined
          : idIn(links(ctx.store.db).where('posts.id', '=', numberArg(params, 'event'))),
      echo: (params) => [['event', optionalNumberArg(params, 'event')]],
    },
    {
      args: {
        has_events: arg.truthy({
          description: `true: ${plural} with at least one event that is not a draft, pending or trashed; false: the others.`,
        }),
      },
      where(params, ctx) {
        if (params.has_events === undefined) return undefined;
        const linked = idIn(links(ctx.store.db).where('posts.status', 'in', LIVE_STATUSES));
        return params.has_events ? linked : sql<SqlBool>`not ${linked}`;
      },
      echo: (params) => [['has_events', optionalBooleanArg(params, 'has_events')]],
    },
    {
      args: {
        only_with_upcoming: arg.truthy({
          description: `true: only ${plural} with an upcoming event the caller can see (all of them are considered).`,
          default: false,
        }),
      },
      where: (params, ctx) => (params.only_with_upcoming ? idIn(upcoming(ctx, links)) : undefined),
      echo: (params) => [['only_with_upcoming', params.only_with_upcoming ? 'true' : undefined]],
    },
  ];
}

/** Links of events starting now or later that the caller could list (every one of them: D11). */
function upcoming(ctx: RequestContext, links: Links) {
  const nowUtc = formatWp(ctx.now);
  const access = listStatusesAllowed(ctx.viewer, undefined);
  const statuses = access.ok ? access.statuses : ['publish' as const];
  return links(ctx.store.db)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('occurrences')
          .select('occurrences.id')
          .whereRef('occurrences.event_id', '=', 'posts.id')
          .where('occurrences.start_utc', '>=', nowUtc),
      ),
    )
    .where((eb) => visibleInList(eb, ctx.viewer, statuses, nowUtc));
}

export const venueEventFilters = (): ListFilter[] => eventFilters('venue', venueLinks);
export const organizerEventFilters = (): ListFilter[] => eventFilters('organizer', organizerLinks);
