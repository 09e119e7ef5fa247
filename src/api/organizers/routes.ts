import { linkedPostRoutes, type ListFilter } from '../linked/routes.ts';
import { organizerKind } from '../../core/organizers/kind.ts';

export const organizerRoutes = (listFilters: ListFilter[] = []) => linkedPostRoutes(organizerKind, listFilters);
