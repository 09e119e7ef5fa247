// The writes of the meta rows of venues and organizers (`venues`, `organizers`): this module alone writes them
// (test/store/table-owners.test.ts). The two tables are written alike, by the kind's table name (the casts only name
// one of the two row types for Kysely); their posts rows are the post lifecycle's (posts/lifecycle.ts).
import { storeOf, type Trx } from '../../store/store.ts';
import type { Meta } from './kind.ts';

export type MetaTable = 'venues' | 'organizers';

/** The meta row of a new item, with its post's `id`. */
export async function insertMetaRow(trx: Trx, table: MetaTable, row: Meta & { id: number }): Promise<void> {
  // Kysely cannot type a table chosen at run time, nor a row built per kind: `table` is venues or organizers, and
  // `row` holds that kind's columns (its metaForCreate).
  const insert = trx.insertInto(table as 'venues').values(row as never);
  await insert.execute();
}

/** Meta rows of new items (the batch import), through the store's row writer: every row has the same columns. */
export async function insertMetaRows(
  trx: Trx,
  table: MetaTable,
  rows: ReadonlyArray<Meta & { id: number }>,
): Promise<void> {
  // As in insertMetaRow: the table is chosen at run time, each row holds that kind's columns.
  await storeOf(trx).insertRows(trx, table as 'venues', rows as never);
}

/** The item's meta columns in `changes`; nothing when none is. */
export async function updateMetaRow(trx: Trx, table: MetaTable, id: number, changes: Meta): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  // As in insertMetaRow: the table is chosen at run time, `changes` holds only that kind's columns (its metaChanges).
  const update = trx.updateTable(table as 'venues').set(changes as never);
  await update.where('id', '=', id).execute();
}
