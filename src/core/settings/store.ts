// Service-wide settings, one text value per name (the `settings` table): this module alone writes them
// (test/store/table-owners.test.ts).
import { preparedQuery } from '../../store/prepared-query.ts';
import type { Db, Trx } from '../../store/store.ts';

/** The setting's value (read in a transaction, or outside one); undefined when it was never written. */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  return (await settingValue.first(db, name))?.value;
}

const settingValue = preparedQuery((db, name: string) =>
  db.selectFrom('settings').select('value').where('name', '=', name),
);

/** Sets the setting to `value`, adding it when it is not there (one statement: two writers cannot both insert it). */
export async function writeSetting(trx: Trx, name: string, value: string): Promise<void> {
  await trx
    .insertInto('settings')
    .values({ name, value })
    .onConflict((conflict) => conflict.column('name').doUpdateSet({ value }))
    .execute();
}

/**
 * Sets the setting to `value` only if it still holds `expected` (undefined: it was never written); answers whether it
 * did. One statement, so two writers that read the same value cannot both replace it.
 */
export async function replaceSetting(
  trx: Trx,
  name: string,
  expected: string | undefined,
  value: string,
): Promise<boolean> {
  if (expected === undefined) {
    const inserted = await trx
      .insertInto('settings')
      .values({ name, value })
      .onConflict((c) => c.doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }
  const updated = await trx
    .updateTable('settings')
    .set({ value })
    .where('name', '=', name)
    .where('value', '=', expected)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}
