import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Two kinds of stored secret (D29):
// - generated application passwords (24 random characters, ~143 bits) are stored with a fast keyed hash,
//   `hmac-sha256$salt$mac` (HMAC-SHA-256 keyed with a per-record random salt), as WordPress 6.8 does: guessing
//   143 bits is hopeless however fast the hash, and a slow hash would cost every authenticated request;
// - human-chosen secrets (ADMIN_PASSWORD) keep a slow one, `scrypt$N$r$p$salt$key`.
// All parts are base64url. Verification reads the parameters from the stored hash itself.

const PRODUCTION_SCRYPT = { N: 16384, r: 8, p: 1 } as const;
let scryptCost: { N: number; r: number; p: number } = PRODUCTION_SCRYPT;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const FAST_SCHEME = 'hmac-sha256';

/**
 * Tests only: the scrypt work factor N of hashes made from now on (null restores the production value, 16384).
 * Verification always uses the parameters stored in each hash, so this changes nothing for existing hashes; the
 * service itself never calls it. test/helpers/harness.ts lowers it so that the suite's remaining scrypt checks
 * (ADMIN_PASSWORD, wrong human-typed passwords) are cheap.
 */
export function setScryptCostForTests(N: number | null): void {
  if (N !== null && (!Number.isInteger(N) || N < 2 || (N & (N - 1)) !== 0))
    throw new Error('scrypt N must be a power of two ≥ 2');
  scryptCost = N === null ? PRODUCTION_SCRYPT : { ...PRODUCTION_SCRYPT, N };
  dummySlowHash = undefined;
}

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

const mac = (secret: string, salt: Buffer) => createHmac('sha256', salt).update(secret, 'utf8').digest();

/** Slow hash for a human-chosen secret: `scrypt$N$r$p$salt$key`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const { N, r, p } = scryptCost;
  const key = await derive(secret, salt, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Fast keyed hash for a generated application password: `hmac-sha256$salt$mac`. */
export function hashGeneratedSecret(secret: string): string {
  const salt = randomBytes(SALT_LENGTH);
  return [FAST_SCHEME, salt.toString('base64url'), mac(secret, salt).toString('base64url')].join('$');
}

export type HashKind = 'fast' | 'slow';

/** Which kind a stored hash is, or null for a format this version does not know (it never verifies). */
export function hashKind(stored: string): HashKind | null {
  if (stored.startsWith(`${FAST_SCHEME}$`)) return 'fast';
  if (stored.startsWith('scrypt$')) return 'slow';
  return null;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts[0] === FAST_SCHEME) {
    const [, salt, key] = parts;
    if (!salt || !key || parts.length !== 3) return false;
    const expected = Buffer.from(key, 'base64url');
    const actual = mac(secret, Buffer.from(salt, 'base64url'));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
  const [scheme, n, r, p, salt, key] = parts;
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const dummyFastHash = hashGeneratedSecret(randomBytes(18).toString('base64url'));
let dummySlowHash: Promise<string> | undefined;

/**
 * A hash of the given kind that no secret matches in practice: a check for an unknown user verifies against it, so
 * that it costs what a wrong password costs (D33). The slow one follows the current scrypt cost.
 */
export function dummyHash(kind: HashKind): Promise<string> {
  if (kind === 'fast') return Promise.resolve(dummyFastHash);
  dummySlowHash ??= hashSecret(randomBytes(18).toString('base64url'));
  return dummySlowHash;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const GENERATED_LENGTH = 24;

/** 24 random characters (~143 bits), shown in groups of four as WordPress does; spaces are ignored when used. */
export function generateAppPassword(): { secret: string; display: string } {
  let secret = '';
  for (let index = 0; index < GENERATED_LENGTH; index++) secret += ALPHABET[randomInt(ALPHABET.length)];
  return { secret, display: secret.match(/.{4}/g)!.join(' ') };
}

/**
 * Whether a (normalised) secret has the shape of a generated application password: 24 letters and digits. Only such
 * secrets are ever stored with the fast hash, so a secret of another shape is never checked against one.
 */
export const isGeneratedShape = (secret: string) => secret.length === GENERATED_LENGTH && /^[A-Za-z0-9]+$/.test(secret);

/** Application passwords are shown with spaces; clients may send them either way. */
export const normalizeAppPassword = (password: string) => password.replace(/\s+/g, '');
