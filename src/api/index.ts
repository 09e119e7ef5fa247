import type { RouteGroup } from '../http/routes.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { organizerEventFilters, venueEventFilters } from './events/linked-filters.ts';
import { eventRoutes } from './events/routes.ts';
import { feedRoutes, type FeedCaches } from './events/feed-routes.ts';
import { fullCalendarRoutes } from './events/fullcalendar-routes.ts';
import { organizerRoutes } from './organizers/routes.ts';
import { termRoutes } from './terms/routes.ts';
import { venueRoutes } from './venues/routes.ts';
import { changeRoutes } from './changes/routes.ts';
import { modifiedListFilter } from './changes/modified-filter.ts';
import { webhookRoutes } from './webhooks/routes.ts';

/**
 * Every route group under the namespace, in the order the discovery index lists them (§13). `feedCaches`: the
 * process's VEVENT texts and feed tags, for the feeds (src/caches.ts).
 */
export function apiRouteGroups(feedCaches: FeedCaches): RouteGroup[] {
  // The discovery routes describe the whole table, themselves included, when they are asked.
  const groups: RouteGroup[] = [
    ...discoveryRoutes(() => groups),
    ...eventRoutes(),
    ...feedRoutes(feedCaches),
    ...fullCalendarRoutes(),
    ...venueRoutes([...venueEventFilters(), modifiedListFilter()]),
    ...organizerRoutes([...organizerEventFilters(), modifiedListFilter()]),
    ...termRoutes('event_category'),
    ...termRoutes('event_tag'),
    ...changeRoutes(),
    ...webhookRoutes(),
  ];
  return groups;
}
