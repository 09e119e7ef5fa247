// D28: how a password-protected event stays unlocked after its form was posted. The answer to the POST shows the
// event and sets a cookie for that event's page only: HMAC-SHA256, keyed with the site's page-unlock key, of the
// event id and a digest of the event's password. It proves the password was given (as WordPress's `wp-postpass_`
// cookie holds a hash of it) and stops working when the password changes; and since its key is a server secret, a
// leaked cookie cannot be used to try passwords offline. The key is random, made once per database by its migration
// (`settings`), so that every process serving the database accepts the cookies of the others. It lasts for the
// browser session.
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { PostRow } from '../core/posts/store.ts';
import type { Store } from '../store/store.ts';

const UNLOCK_COOKIE_PREFIX = 'event_unlock_';
/** The `settings` row holding the key (made by store/migrations.ts). */
const PAGE_UNLOCK_KEY_SETTING = 'page_unlock_key';

export const unlockCookieName = (id: number) => `${UNLOCK_COOKIE_PREFIX}${id}`;

type Protected = Pick<PostRow, 'id' | 'password'>;

const keys = new WeakMap<Store, Promise<KeyObject>>();

/** The database's page-unlock key, read once per store. */
function unlockKey(store: Store): Promise<KeyObject> {
  let key = keys.get(store);
  if (!key) {
    key = store.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', PAGE_UNLOCK_KEY_SETTING)
      .executeTakeFirstOrThrow()
      .then((row) => createSecretKey(Buffer.from(row.value, 'base64url')));
    // A failed read is tried again by the next request.
    key.catch(() => keys.delete(store));
    keys.set(store, key);
  }
  return key;
}

/** The cookie's value for `post`: bound to its id and to its password as it is now. */
export async function unlockProof(store: Store, post: Protected): Promise<string> {
  const passwordDigest = createHash('sha256').update(post.password, 'utf8').digest('base64url');
  return createHmac('sha256', await unlockKey(store))
    .update(`${post.id}:${passwordDigest}`)
    .digest('base64url');
}

/** The `Set-Cookie` value that keeps event `id` unlocked on its page (`path`), HttpOnly, SameSite=Lax, Secure on https. */
export function unlockCookie(id: number, proof: string, path: string, secure: boolean): string {
  return `${unlockCookieName(id)}=${proof}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export async function unlockMatches(store: Store, post: Protected, cookies: Record<string, string>): Promise<boolean> {
  const sent = cookies[unlockCookieName(post.id)];
  if (sent === undefined) return false;
  const expected = Buffer.from(await unlockProof(store, post));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The request's cookies (`a=b; c=d`), values as sent. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = Object.create(null);
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return cookies;
}

/** Whether a request carries any unlock cookie (such requests are not answered from the shared read cache). */
export const hasUnlockCookie = (header: string | undefined) => header?.includes(UNLOCK_COOKIE_PREFIX);
