import { createHmac, randomBytes } from 'node:crypto';
import type { Caller, Role } from '../domain/access.ts';
import type { Db } from '../store/store.ts';
import { normalizeAppPassword, verifySecret } from '../users/secrets.ts';
import { findUserByLogin, listAppPasswords, touchAppPassword } from '../users/store.ts';
import { ApiError } from './errors.ts';

const unknownUser = () => new ApiError(401, 'invalid_username', 'Unknown user name.');
const wrongPassword = () => new ApiError(401, 'incorrect_password', 'The user name or application password is incorrect.');

interface VerifiedCredential {
  appPasswordId: number;
  hash: string;
}

/** Failed attempts per address in a fixed window; past the limit the address waits for the window to end. */
export class FailureLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #failures = new Map<string, { count: number; since: number }>();

  constructor(limit = 10, windowMs = 60_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Seconds to wait before trying again, or 0 when the address may try now. */
  retryAfter(address: string, now = Date.now()): number {
    const entry = this.#failures.get(address);
    if (!entry || now - entry.since >= this.#windowMs) return 0;
    return entry.count >= this.#limit ? Math.ceil((entry.since + this.#windowMs - now) / 1000) : 0;
  }

  recordFailure(address: string, now = Date.now()): void {
    const entry = this.#failures.get(address);
    if (!entry || now - entry.since >= this.#windowMs) this.#failures.set(address, { count: 1, since: now });
    else entry.count++;
    if (this.#failures.size > 10_000) this.#prune(now);
  }

  #prune(now: number): void {
    for (const [address, entry] of this.#failures) if (now - entry.since >= this.#windowMs) this.#failures.delete(address);
  }
}

/**
 * HTTP Basic with application passwords (D15). scrypt makes each check deliberately slow, so a verified credential is
 * remembered under a keyed digest of the header (never the secret itself). A remembered credential is still looked up
 * by id on every request and must carry the same hash, so a password revoked or changed by any process stops working
 * at once.
 */
export class Authenticator {
  readonly #db: Db;
  readonly #limiter: FailureLimiter;
  readonly #verifySecret: typeof verifySecret;
  readonly #cacheKey = randomBytes(32);
  readonly #verified = new Map<string, VerifiedCredential>();
  /**
   * Checks under way, by header digest: a client opening several connections at once sends the same new header on
   * each, and one scrypt (16 MiB and tens of milliseconds) answers them all.
   */
  readonly #checking = new Map<string, Promise<Caller>>();

  constructor(db: Db, limiter = new FailureLimiter(), verify = verifySecret) {
    this.#db = db;
    this.#limiter = limiter;
    this.#verifySecret = verify;
  }

  /** null for anonymous requests; throws 401 for a bad credential and 429 when the address is rate limited. */
  async authenticate(header: string | undefined, address: string, nowUtc: string): Promise<Caller | null> {
    if (header === undefined || header === '') return null;
    const wait = this.#limiter.retryAfter(address);
    if (wait > 0) {
      throw new ApiError(429, 'rest_too_many_login_attempts', 'Too many failed login attempts. Try again later.', {}, {
        headers: { 'Retry-After': String(wait) },
      });
    }
    try {
      return await this.#verify(header, nowUtc);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.#limiter.recordFailure(address);
      throw error;
    }
  }

  async #verify(header: string, nowUtc: string): Promise<Caller> {
    const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
    if (!match) throw wrongPassword();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw wrongPassword();
    const login = decoded.slice(0, colon);
    const secret = normalizeAppPassword(decoded.slice(colon + 1));

    const digest = createHmac('sha256', this.#cacheKey).update(header).digest('base64url');
    const remembered = this.#verified.get(digest);
    if (remembered) {
      const caller = await this.#recheck(remembered, login, nowUtc);
      if (caller) return caller;
      this.#verified.delete(digest);
    }

    let checking = this.#checking.get(digest);
    if (!checking) {
      checking = this.#check(digest, login, secret, nowUtc);
      this.#checking.set(digest, checking);
      checking.finally(() => this.#checking.delete(digest)).catch(() => {});
    }
    return checking;
  }

  async #check(digest: string, login: string, secret: string, nowUtc: string): Promise<Caller> {
    const user = await findUserByLogin(this.#db, login);
    if (!user) throw unknownUser();
    if (secret === '') throw wrongPassword();
    for (const candidate of await listAppPasswords(this.#db, user.id)) {
      if (await this.#verifySecret(secret, candidate.hash)) {
        if (this.#verified.size > 1000) this.#verified.clear();
        this.#verified.set(digest, { appPasswordId: candidate.id, hash: candidate.hash });
        await this.#touch(candidate.id, candidate.last_used_utc, nowUtc);
        return { id: user.id, role: user.role };
      }
    }
    throw wrongPassword();
  }

  async #recheck(remembered: VerifiedCredential, login: string, nowUtc: string): Promise<Caller | null> {
    const row = await this.#db.selectFrom('app_passwords')
      .innerJoin('users', 'users.id', 'app_passwords.user_id')
      .select(['users.id as user_id', 'users.role', 'users.login', 'app_passwords.hash', 'app_passwords.last_used_utc'])
      .where('app_passwords.id', '=', remembered.appPasswordId)
      .executeTakeFirst();
    if (!row || row.hash !== remembered.hash || row.login !== login) return null;
    await this.#touch(remembered.appPasswordId, row.last_used_utc, nowUtc);
    return { id: row.user_id, role: row.role as Role };
  }

  /** "Last used" is worth a write at most once a minute per credential. */
  async #touch(id: number, lastUsed: string | null, nowUtc: string): Promise<void> {
    if (lastUsed !== null && lastUsed.slice(0, 16) === nowUtc.slice(0, 16)) return;
    await touchAppPassword(this.#db, id, nowUtc);
  }
}
