import { createHash, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Caller } from '../domain/access.ts';
import { preparedQuery } from '../store/prepared-query.ts';
import { outsideTransaction, type Db, type Store } from '../store/store.ts';
import { BOOTSTRAP_PASSWORD_NAME } from '../core/users/bootstrap.ts';
import {
  dummyHash,
  hashGeneratedSecret,
  hashKind,
  isGeneratedShape,
  normalizeAppPassword,
  verifySecret,
  type HashKind,
} from '../core/users/secrets.ts';
import {
  findUserByLogin,
  listAppPasswords,
  replaceAppPasswordHash,
  storedRole,
  touchAppPassword,
} from '../core/users/store.ts';
import { ApiError } from './errors.ts';

const unknownUser = () => new ApiError(401, 'invalid_username', 'Unknown user name.');
const wrongPassword = () =>
  new ApiError(401, 'incorrect_password', 'The user name or application password is incorrect.');
const tooManyAttempts = (seconds: number) =>
  new ApiError(
    429,
    'rest_too_many_login_attempts',
    'Too many failed login attempts. Try again later.',
    {},
    {
      headers: { 'Retry-After': String(seconds) },
    },
  );

/** `auth_failures.login` of the address's own counter. */
const ADDRESS_COUNTER = '';

/** The failure counters of an address and of one login from it whose window is still open (a credential's check). */
const failuresOf = preparedQuery((db, address: string, login: string, now: number) =>
  db
    .selectFrom('auth_failures')
    .select(['login', 'failures', 'window_end'])
    .where('address', '=', address)
    .where('login', 'in', [login, ADDRESS_COUNTER])
    .where('window_end', '>', now),
);

/** An app password and its user (a remembered credential's recheck, once the data version has moved). */
const appPasswordById = preparedQuery((db, id: number) =>
  db
    .selectFrom('app_passwords')
    .innerJoin('users', 'users.id', 'app_passwords.user_id')
    .select(['users.id as user_id', 'users.role', 'users.login', 'app_passwords.hash', 'app_passwords.last_used_utc'])
    .where('app_passwords.id', '=', id),
);

/** `auth_failures.login` of headers that name no login: another scheme, bad base64, no colon, an empty login. */
const NO_LOGIN = '-';

/** The `auth_failures.login` of a login tried: a digest, so that a password typed as a user name is not stored. */
const loginKey = (login: string | null) =>
  login === null || login === '' ? NO_LOGIN : createHash('sha256').update(login, 'utf8').digest('base64url');

interface FailureLimits {
  /** Failures a window allows per (client address, login): AUTH_FAILURES_PER_LOGIN, 0 = no limit. Default 10. */
  perLogin?: number;
  /** Failures a window allows per client address, whatever the login: AUTH_FAILURES_PER_ADDRESS, 0 = no limit. Default 100. */
  perAddress?: number;
}

export interface FailureLimiterOptions extends FailureLimits {
  /** Length of a window; one minute. */
  windowMs?: number;
  /** Milliseconds since the epoch (tests move it). Real time, not the service clock: limits are about real time. */
  clock?: () => number;
}

/** The failures one attempt counted before its check, to be given back when the check succeeds. */
interface Reservation {
  address: string;
  login: string;
  /** The window_end of the counter each failure went to; null when that limit is off. */
  loginWindow: number | null;
  addressWindow: number | null;
}

/**
 * D29: failed authentications per (client address, login) and per client address, in fixed one-minute windows kept
 * in the database (`auth_failures`), so that every process counts the same failures. A window starts with its first
 * failure; once a counter reaches its limit, every attempt it covers waits for that window to end (Retry-After),
 * correct credentials included. A locked (address, login) does not count towards its address, so one login's
 * failures lock out another login from the same address only through the address's own, higher limit.
 *
 * D33: an attempt is counted when its check starts ({@link reserve}, one atomic conditional upsert per counter), not
 * when its hash finishes, and given back ({@link release}) when it succeeds; so however many attempts arrive at once,
 * at most `limit` of them are checked in a window.
 */
export class FailureLimiter {
  readonly #db: Db;
  readonly #perLogin: number;
  readonly #perAddress: number;
  readonly #windowMs: number;
  readonly #clock: () => number;
  #lastCleanUp = 0;

  constructor(db: Db, options: FailureLimiterOptions = {}) {
    this.#db = db;
    this.#perLogin = options.perLogin ?? 10;
    this.#perAddress = options.perAddress ?? 100;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#clock = options.clock ?? Date.now;
  }

  get enabled(): boolean {
    return this.#perLogin > 0 || this.#perAddress > 0;
  }

  /** Seconds before (address, login) may try again, or 0 when it may try now. Reads only. */
  async retryAfter(address: string, login: string): Promise<number> {
    if (!this.enabled) return 0;
    const now = this.#clock();
    const rows = await failuresOf.rows(this.#db, address, login, now);
    let waitUntil = 0;
    for (const row of rows) {
      const limit = row.login === ADDRESS_COUNTER ? this.#perAddress : this.#perLogin;
      if (limit > 0 && row.failures >= limit) waitUntil = Math.max(waitUntil, Number(row.window_end));
    }
    return waitUntil === 0 ? 0 : Math.max(1, Math.ceil((waitUntil - now) / 1000));
  }

  /**
   * Counts the attempt as a failure before it is checked. Returns what it counted, or the seconds to wait when a
   * limit is reached (nothing counted then).
   */
  async reserve(address: string, login: string): Promise<Reservation | { retryAfter: number }> {
    const reservation: Reservation = { address, login, loginWindow: null, addressWindow: null };
    if (!this.enabled) return reservation;
    const wait = await this.retryAfter(address, login);
    if (wait > 0) return { retryAfter: wait };
    if (this.#perLogin > 0) {
      reservation.loginWindow = await this.#count(address, login, this.#perLogin);
      if (reservation.loginWindow === null) return { retryAfter: await this.#retryAfterRace(address, login) };
    }
    if (this.#perAddress > 0) {
      reservation.addressWindow = await this.#count(address, ADDRESS_COUNTER, this.#perAddress);
      if (reservation.addressWindow === null) {
        await this.release(reservation);
        return { retryAfter: await this.#retryAfterRace(address, login) };
      }
    }
    this.#cleanUp().catch(() => {});
    return reservation;
  }

  /** Gives back what {@link reserve} counted: the attempt succeeded (or was never really checked). */
  async release(reservation: Reservation): Promise<void> {
    const { address, login, loginWindow, addressWindow } = reservation;
    if (loginWindow === null && addressWindow === null) return;
    // Only in the window it was counted in: a window that has ended since starts again from its own failures.
    await this.#db
      .updateTable('auth_failures')
      .set({ failures: sql`failures - 1` })
      .where('address', '=', address)
      .where('failures', '>', 0)
      .where((eb) =>
        eb.or([
          ...(loginWindow === null ? [] : [eb.and([eb('login', '=', login), eb('window_end', '=', loginWindow)])]),
          ...(addressWindow === null
            ? []
            : [eb.and([eb('login', '=', ADDRESS_COUNTER), eb('window_end', '=', addressWindow)])]),
        ]),
      )
      .execute();
  }

  /**
   * One failure more on a counter, unless it has reached `limit` in its current window: one statement, so that
   * simultaneous attempts (in any process) cannot all pass. Returns the counter's window end, or null when refused.
   */
  async #count(address: string, login: string, limit: number): Promise<number | null> {
    const now = this.#clock();
    const end = now + this.#windowMs;
    const row = await this.#db
      .insertInto('auth_failures')
      .values({ address, login, failures: 1, window_end: end })
      .onConflict((conflict) =>
        conflict
          .columns(['address', 'login'])
          .doUpdateSet({
            failures: sql`case when auth_failures.window_end <= ${now} then 1 else auth_failures.failures + 1 end`,
            window_end: sql`case when auth_failures.window_end <= ${now} then ${end} else auth_failures.window_end end`,
          })
          .where(sql<boolean>`auth_failures.window_end <= ${now} or auth_failures.failures < ${limit}`),
      )
      .returning('window_end')
      .executeTakeFirst();
    return row ? Number(row.window_end) : null;
  }

  /** Another attempt filled the window between the read and the count. */
  async #retryAfterRace(address: string, login: string): Promise<number> {
    return Math.max(1, await this.retryAfter(address, login));
  }

  /** Ended windows are deleted at most once a window per process, by a range on an index, without waiting for it. */
  async #cleanUp(): Promise<void> {
    const now = this.#clock();
    if (now - this.#lastCleanUp < this.#windowMs) return;
    this.#lastCleanUp = now;
    await this.#db.deleteFrom('auth_failures').where('window_end', '<=', now).execute();
  }
}

interface AuthenticatorOptions extends FailureLimiterOptions {
  /** The hash check (tests count calls). */
  verify?: typeof verifySecret;
  /**
   * The store whose commits by this process may leave the credentials alone (Store.onOwnCommit): a confirmation
   * then holds across them.
   */
  ownCommits?: Pick<Store, 'onOwnCommit'>;
}

interface VerifiedCredential {
  appPasswordId: number;
  hash: string;
}

/** A remembered credential's outcome for one client address, and the data version it was read at. */
interface Confirmation {
  version: string;
  caller: Caller;
  /** The password's "last used" stamp then: a new minute is a write to make, so the reads are made again. */
  lastUsed: string;
}

/** Whether "last used" already holds this minute (the stamp is written at most once a minute). */
const stampedThisMinute = (lastUsed: string | null, nowUtc: string) =>
  lastUsed !== null && lastUsed.slice(0, 16) === nowUtc.slice(0, 16);

/** Whether an `Authorization` header asks for a check at all: without one (or empty), the request is anonymous. */
export const sendsCredentials = (header: string | undefined): header is string => header !== undefined && header !== '';

/** Login and secret of a well-formed Basic header, or null. */
function parseBasic(header: string): { login: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), secret: normalizeAppPassword(decoded.slice(colon + 1)) };
}

/**
 * HTTP Basic with application passwords (D15, D29, D33).
 *
 * Generated passwords have a fast keyed hash and human-chosen ones scrypt (core/users/secrets.ts). A secret shaped like a
 * generated password is checked against the user's hashes; any other secret only against the slow ones (a fast hash is
 * only ever made from a generated password). When no hash of the kind the secret calls for was checked (an unknown
 * user, or a user without one), a dummy of that kind is, so that an unknown user costs what a wrong password costs.
 * A scrypt hash of a generated password (stored before D29) is replaced by the fast hash on its next successful use;
 * ADMIN_PASSWORD's is not.
 *
 * A verified credential is remembered under a keyed digest of the header (never the secret itself). A remembered
 * credential is looked up by id again whenever the data version has moved, and must carry the same hash, so a password
 * revoked or changed by any process stops working at once.
 */
export class Authenticator {
  readonly #db: Db;
  readonly #limiter: FailureLimiter;
  readonly #verifySecret: typeof verifySecret;
  /** A key object made once: a raw key would be imported again on every request's digest. */
  readonly #cacheKey = createSecretKey(randomBytes(32));
  readonly #verified = new Map<string, VerifiedCredential>();
  /**
   * Remembered credentials confirmed, by header digest and client address. While the data version has not moved, the
   * password row and the failure counters are as they were (every revocation, password or role change, counted
   * failure and "last used" stamp is a write, by any process), and a window of failures only ever ends with time: so
   * the two reads a remembered credential costs are skipped. Only a confirmation with no wait to serve is kept.
   */
  readonly #confirmed = new Map<string, Confirmation>();
  /**
   * Checks under way, by header digest: a client opening several connections at once sends the same new header on
   * each, and one check (for scrypt, 16 MiB and tens of milliseconds) answers them all (see #join for how they count).
   */
  readonly #checking = new Map<string, Promise<Caller>>();

  constructor(db: Db, options: AuthenticatorOptions = {}) {
    this.#db = db;
    this.#limiter = new FailureLimiter(db, options);
    this.#verifySecret = options.verify ?? verifySecret;
    // A write of this process that said it leaves the credentials alone (an event's create or update) moves the data
    // version, not what a confirmation read: it goes on holding under the version after it.
    options.ownCommits?.onOwnCommit(({ before, after, leftAlone }) => {
      if (!leftAlone.has('credentials')) return;
      for (const confirmation of this.#confirmed.values())
        if (confirmation.version === before) confirmation.version = after;
    });
  }

  /**
   * null for anonymous requests; throws 401 for a bad credential and 429 while the (address, login) or the address
   * is over its limit (`address` is the client address: request.ip, which TRUST_PROXY makes the forwarded one).
   * `seen.dataVersion`: the data version, when the check read it and wrote nothing.
   */
  async authenticate(
    header: string | undefined,
    address: string | undefined,
    nowUtc: string,
    seen: { dataVersion?: string } = {},
  ): Promise<Caller | null> {
    if (!sendsCredentials(header)) return null;
    const client = address ?? '';
    const credentials = parseBasic(header);
    const login = loginKey(credentials?.login ?? null);
    const digest = createHmac('sha256', this.#cacheKey).update(header).digest('base64url');

    const remembered = credentials ? this.#verified.get(digest) : undefined;
    if (remembered) {
      // Read before the rows, so that a write after them moves it.
      const version = await outsideTransaction(this.#db)?.dataVersion();
      const confirmationKey = `${digest}\n${client}`;
      const confirmed = this.#confirmed.get(confirmationKey);
      if (confirmed && confirmed.version === version && stampedThisMinute(confirmed.lastUsed, nowUtc)) {
        // Confirmed without a read or a write of its own: the version stands for the rest of a read (plugins/auth.ts).
        seen.dataVersion = version;
        return { ...confirmed.caller };
      }
      // Known to be right, so nothing to count; but a locked-out pair gets 429 for right credentials too. Both reads
      // at once: one round trip on PostgreSQL.
      const [wait, row] = await Promise.all([
        this.#limiter.retryAfter(client, login),
        this.#lookUp(remembered, credentials!.login),
      ]);
      if (wait > 0) throw tooManyAttempts(wait);
      if (row) {
        const caller: Caller = { id: row.user_id, role: storedRole(row.role) };
        if (version !== undefined && stampedThisMinute(row.last_used_utc, nowUtc)) {
          if (this.#confirmed.size > 1000) this.#confirmed.clear();
          this.#confirmed.set(confirmationKey, { version, caller, lastUsed: row.last_used_utc! });
        }
        await this.#touch(remembered.appPasswordId, row.last_used_utc, nowUtc);
        return caller;
      }
      this.#verified.delete(digest);
    }

    if (!credentials) return this.#counted(client, login, () => Promise.reject(wrongPassword()));
    const inFlight = this.#checking.get(digest);
    if (inFlight) return this.#join(inFlight, client, login);
    // Registered before the first await, so that every simultaneous attempt with this header joins it.
    const attempt = this.#counted(client, login, () =>
      this.#check(digest, credentials.login, credentials.secret, nowUtc),
    );
    this.#checking.set(digest, attempt);
    attempt.finally(() => this.#checking.delete(digest)).catch(() => {});
    return attempt;
  }

  /** D33: the attempt is counted before its check starts, and given back if the credential was right. */
  async #counted(client: string, login: string, check: () => Promise<Caller>): Promise<Caller> {
    const reservation = await this.#limiter.reserve(client, login);
    if ('retryAfter' in reservation) throw tooManyAttempts(reservation.retryAfter);
    let caller: Caller;
    try {
      caller = await check();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401))
        await this.#limiter.release(reservation).catch(() => {});
      throw error;
    }
    await this.#limiter.release(reservation).catch(() => {});
    return caller;
  }

  /**
   * An attempt with a header whose check is under way shares its outcome: a client opening many connections with a
   * right credential is never refused for their number, while each attempt of a wrong one still counts as a failure
   * of its own (so a burst of identical wrong headers meets the limit as a burst of different ones does).
   */
  async #join(inFlight: Promise<Caller>, client: string, login: string): Promise<Caller> {
    try {
      return await inFlight;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      const reservation = await this.#limiter.reserve(client, login);
      if ('retryAfter' in reservation) throw tooManyAttempts(reservation.retryAfter);
      throw error;
    }
  }

  async #check(digest: string, login: string, secret: string, nowUtc: string): Promise<Caller> {
    // Verified meanwhile by an attempt that was counted first.
    const remembered = this.#verified.get(digest);
    if (remembered) {
      const caller = await this.#recheck(remembered, login, nowUtc);
      if (caller) return caller;
      this.#verified.delete(digest);
    }
    const user = await findUserByLogin(this.#db, login);
    if (secret === '') throw user ? wrongPassword() : unknownUser();
    const wanted: HashKind = isGeneratedShape(secret) ? 'fast' : 'slow';
    let checkedWanted = false;
    for (const candidate of user ? await listAppPasswords(this.#db, user.id) : []) {
      const kind = hashKind(candidate.hash);
      if (kind === null || (kind === 'fast' && wanted === 'slow')) continue;
      checkedWanted ||= kind === wanted;
      if (!(await this.#verifySecret(secret, candidate.hash))) continue;
      let hash = candidate.hash;
      if (kind === 'slow' && wanted === 'fast' && candidate.name !== BOOTSTRAP_PASSWORD_NAME) {
        // A generated password stored before D29: the fast hash from now on. Best effort: it is tried again next time.
        const upgraded = hashGeneratedSecret(secret);
        if (await replaceAppPasswordHash(this.#db, candidate.id, candidate.hash, upgraded).catch(() => false))
          hash = upgraded;
      }
      if (this.#verified.size > 1000) this.#verified.clear();
      this.#verified.set(digest, { appPasswordId: candidate.id, hash });
      await this.#touch(candidate.id, candidate.last_used_utc, nowUtc);
      return { id: user!.id, role: user!.role };
    }
    if (!checkedWanted) await this.#verifySecret(secret, await dummyHash(wanted));
    throw user ? wrongPassword() : unknownUser();
  }

  /** The remembered credential's user, if the password still exists unchanged and still belongs to `login`. */
  async #lookUp(remembered: VerifiedCredential, login: string) {
    const row = await appPasswordById.first(this.#db, remembered.appPasswordId);
    return row && row.hash === remembered.hash && row.login === login ? row : null;
  }

  async #recheck(remembered: VerifiedCredential, login: string, nowUtc: string): Promise<Caller | null> {
    const row = await this.#lookUp(remembered, login);
    if (!row) return null;
    await this.#touch(remembered.appPasswordId, row.last_used_utc, nowUtc);
    return { id: row.user_id, role: storedRole(row.role) };
  }

  /**
   * "Last used" is worth a write at most once a minute per credential, and never worth failing a request for: a
   * write that cannot get the database (SQLite busy with another process's long write) is skipped.
   */
  async #touch(id: number, lastUsed: string | null, nowUtc: string): Promise<void> {
    if (stampedThisMinute(lastUsed, nowUtc)) return;
    await touchAppPassword(this.#db, id, nowUtc).catch(() => {});
  }
}
