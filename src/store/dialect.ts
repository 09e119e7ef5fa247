export type Dialect = 'sqlite' | 'postgres';

/** Something a bulk load may do without and build again at its end, as the two statements that do that. */
export interface DeferredDefinition {
  drop: string;
  create: string;
}
