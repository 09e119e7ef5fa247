// D28: how a password-protected event stays unlocked after its form was posted. The answer to the POST shows the
// event and sets a cookie for that event's page only: an HMAC of the event id keyed with the event's password, so it
// proves the password was given (as WordPress's `wp-postpass_` cookie holds a hash of it), stops working when the
// password changes, and needs no secret shared between processes. It lasts for the browser session.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PostRow } from '../resources/posts/store.ts';

const UNLOCK_COOKIE_PREFIX = 'event_unlock_';

export const unlockCookieName = (id: number) => `${UNLOCK_COOKIE_PREFIX}${id}`;

const proof = (post: Pick<PostRow, 'id' | 'password'>) =>
  createHmac('sha256', post.password).update(`calendar-events page unlock ${post.id}`).digest('base64url');

/** The `Set-Cookie` value that keeps `post` unlocked on its page (`path`), HttpOnly, SameSite=Lax, Secure on https. */
export function unlockCookie(post: Pick<PostRow, 'id' | 'password'>, path: string, secure: boolean): string {
  return `${unlockCookieName(post.id)}=${proof(post)}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function unlockMatches(post: Pick<PostRow, 'id' | 'password'>, cookies: Record<string, string>): boolean {
  const sent = cookies[unlockCookieName(post.id)];
  if (sent === undefined) return false;
  const expected = Buffer.from(proof(post));
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
export const hasUnlockCookie = (header: string | undefined) => header !== undefined && header.includes(UNLOCK_COOKIE_PREFIX);
