import type { Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** Something a bulk load may do without and build again at its end, as the two statements that do that. */
export interface DeferredDefinition {
  drop: string;
  create: string;
}

/** How a dialect lightens a bulk load into `tables` (see Store.bulkLoad). */
export interface BulkLoadUpkeep {
  /** What the load goes without; created again in this order. */
  deferrable(db: Kysely<any>, tables: readonly string[]): Promise<DeferredDefinition[]>;
  /** Runs once everything is built again: statistics the load made stale. */
  afterLoad?(db: Kysely<any>, tables: readonly string[]): Promise<void>;
}
