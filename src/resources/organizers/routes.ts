import { linkedPostRoutes, type ListFilter } from '../linked/routes.ts';
import { organizerKind } from './kind.ts';

export const organizerRoutes = (listFilters: ListFilter[] = []) => linkedPostRoutes(organizerKind, listFilters);
