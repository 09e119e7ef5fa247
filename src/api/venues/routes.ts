import { linkedPostRoutes, type ListFilter } from '../linked/routes.ts';
import { venueKind } from '../../core/venues/kind.ts';

export const venueRoutes = (listFilters: ListFilter[] = []) => linkedPostRoutes(venueKind, listFilters);
