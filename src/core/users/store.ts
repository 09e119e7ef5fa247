import type { Selectable } from 'kysely';
import { isRowId, type Db, type Store } from '../../store/store.ts';
import type { UsersTable } from '../../store/schema.ts';
import { ROLES, type Role } from '../../domain/access.ts';
import { hashGeneratedSecret, hashSecret, isGeneratedShape } from './secrets.ts';
import { recordChange } from '../change-log/log.ts';
import { reassignListingAuthor } from '../occurrences/store.ts';
import { listedBefore } from '../posts/lifecycle.ts';
import { reassignPosts } from '../posts/store.ts';
import { DateTime } from 'luxon';

export interface UserRow {
  id: number;
  login: string;
  role: Role;
  display_name: string;
  created_utc: string;
}

export interface AppPasswordRow {
  id: number;
  user_id: number;
  name: string;
  hash: string;
  created_utc: string;
  last_used_utc: string | null;
}

/** A known role's name, else undefined (a command-line argument, say). */
export const parseRole = (text: string): Role | undefined => ROLES.find((role) => role === text);

/**
 * The role a `users` row holds. The column is plain text, written only from a `Role` (createUser, setUserRole), so
 * anything else is a damaged row: it fails here rather than further on, as a role without capabilities.
 */
export function storedRole(text: string): Role {
  const role = parseRole(text);
  if (role === undefined) throw new Error(`users.role holds an unknown role "${text}"`);
  return role;
}

const userRow = (row: Selectable<UsersTable>): UserRow => ({ ...row, role: storedRole(row.role) });

const nowUtc = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

export async function findUserByLogin(db: Db, login: string): Promise<UserRow | undefined> {
  const row = await db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
  return row && userRow(row);
}

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  if (!isRowId(id)) return undefined;
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && userRow(row);
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db.selectFrom('users').select(db.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function createUser(db: Db, login: string, role: Role, displayName = login): Promise<UserRow> {
  return userRow(
    await db
      .insertInto('users')
      .values({ login, role, display_name: displayName, created_utc: nowUtc() })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function setUserRole(db: Db, id: number, role: Role): Promise<void> {
  await db.updateTable('users').set({ role }).where('id', '=', id).execute();
}

/** Deletes a user; whatever they authored passes to `heirId` first, in one transaction. */
export async function deleteUser(store: Store, id: number, heirId: number): Promise<void> {
  await store.transaction(async (trx) => {
    const reassigned = await reassignPosts(trx, id, heirId);
    // Their `author` changed: sync clients and webhooks hear of every event, venue and organizer concerned, and who
    // could list each one before is the deleted user's.
    const now = DateTime.utc();
    for (const post of reassigned) {
      if (post.type !== 'event' && post.type !== 'venue' && post.type !== 'organizer') continue;
      // Read inside this short transaction, which commits within a minute of it.
      const before = listedBefore({ authorId: id, status: post.status, publishedUtc: post.date_utc }, now, 60_000);
      recordChange(trx, { type: post.type, id: post.id, action: 'updated', before });
    }
    await reassignListingAuthor(trx, id, heirId);
    await trx.deleteFrom('app_passwords').where('user_id', '=', id).execute();
    await trx.deleteFrom('users').where('id', '=', id).execute();
  });
}

/**
 * Stores an application password (D29): a `generated` one (from generateAppPassword) with the fast keyed hash, a
 * human-`chosen` one (ADMIN_PASSWORD) with scrypt. A secret that does not have the generated shape is always hashed
 * with scrypt, whatever it is called.
 */
export async function createAppPassword(
  db: Db,
  userId: number,
  name: string,
  secret: string,
  kind: 'generated' | 'chosen' = 'generated',
): Promise<AppPasswordRow> {
  const hash =
    kind === 'generated' && isGeneratedShape(secret) ? hashGeneratedSecret(secret) : await hashSecret(secret);
  return await db
    .insertInto('app_passwords')
    .values({ user_id: userId, name, hash, created_utc: nowUtc(), last_used_utc: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listAppPasswords(db: Db, userId: number): Promise<AppPasswordRow[]> {
  return await db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function findAppPassword(db: Db, id: number): Promise<AppPasswordRow | undefined> {
  return await db.selectFrom('app_passwords').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function revokeAppPassword(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('app_passwords').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function touchAppPassword(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('app_passwords').set({ last_used_utc: at }).where('id', '=', id).execute();
}

/**
 * Replaces a password's hash (an upgrade to the fast hash), only if it is still `previous`: a revocation or another
 * process's upgrade meanwhile wins. True when this call replaced it.
 */
export async function replaceAppPasswordHash(db: Db, id: number, previous: string, hash: string): Promise<boolean> {
  const result = await db
    .updateTable('app_passwords')
    .set({ hash })
    .where('id', '=', id)
    .where('hash', '=', previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
