// D27 Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
// base64-decoded part of the `whsec_` secret.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export const generateSecret = () => PREFIX + randomBytes(32).toString('base64');

/** The `webhook-signature` header for message `msgId` sent at `timestampSeconds` with `body`. */
export function signature(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64')}`;
}
