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

/**
 * Sets the setting to `value`, adding it when it is not there. The caller serialises writers of one name (a read,
 * then this, under a lock), so the row cannot appear between the check and the insert.
 */
export async function writeSetting(trx: Trx, name: string, value: string): Promise<void> {
  const updated = await trx.updateTable('settings').set({ value }).where('name', '=', name).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) await trx.insertInto('settings').values({ name, value }).execute();
}
