import type { AppDeps } from '../http/context.ts';
import type { RouteGroup } from '../http/routes.ts';
import { organizerRoutes } from './organizers/routes.ts';
import { venueRoutes } from './venues/routes.ts';

/** Every route group under the namespace, in the order the discovery index lists them (§13). */
export function apiRouteGroups(_deps: AppDeps): RouteGroup[] {
  return [...venueRoutes(), ...organizerRoutes()];
}
