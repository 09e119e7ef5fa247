import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { IANAZone } from 'luxon';

export type DatabaseConfig =
  | { dialect: 'sqlite'; path: string }
  | {
      dialect: 'postgres';
      url: string;
      /** D31: PostgreSQL `statement_timeout` of every pooled connection (STATEMENT_TIMEOUT_MS); none when left out. */
      statementTimeoutMs?: number;
      /**
       * Whether each pooled connection keeps Kysely's statements prepared (PG_PREPARED_STATEMENTS, default 1;
       * store/postgres/prepared-client.ts); 0 parses every statement again, to measure what they save.
       */
      preparedStatements?: boolean;
    };

export interface Config {
  port: number;
  host: string;
  /**
   * WORKERS (default 1): how many processes serve requests, 1–64 or `auto` (os.availableParallelism()). With more
   * than one, a primary process migrates the database and ensures ADMIN_USER, then forks that many workers that share
   * the port (node:cluster) and cooperate through the database as separate service processes do.
   */
  workers: number;
  database: DatabaseConfig;
  siteUrl: string;
  /** D28: the name public pages show in their titles (SITE_NAME, default "Events"). */
  siteName: string;
  apiPrefix: string;
  /** `{siteUrl}{apiPrefix}/calendar/events/v1`, no trailing slash. */
  apiRoot: string;
  /** Path part of apiRoot, e.g. `/calendar/events/v1`. */
  apiPath: string;
  siteTimezone: string;
  perPageDefault: number;
  perPageMax: number;
  corsOrigins: '*' | string[];
  currencySymbol: string;
  currencyPosition: 'prefix' | 'postfix';
  currencyCode: string;
  admin: { user: string; password: string } | null;
  logLevel: string;
  /**
   * LOG_FORMAT: `json` (pino's JSON lines), `pretty` (pino-pretty's readable lines) or `auto` (the default): pretty on
   * a terminal when pino-pretty is installed, JSON otherwise (piped, under tests, to a log collector).
   */
  logFormat: LogFormat;
  /** Check every JSON response against its documented schema; a mismatch answers 500 (tests, staging). */
  validateResponses: boolean;
  /** D21: change-log rows older than this many days are pruned (CHANGES_RETENTION_DAYS, default 30). */
  changesRetentionDays: number;
  /**
   * D25: how far ahead open-ended series are materialised (RECURRENCE_HORIZON_DAYS, default 730; finite ones are
   * materialised in full), and the most occurrences a series may have when written: all of them for rules with COUNT
   * or UNTIL, those within the horizon for open-ended ones (RECURRENCE_MAX_OCCURRENCES, default 1000).
   */
  recurrence: { horizonDays: number; maxOccurrences: number };
  /**
   * D34: whether reads use the stored documents (STORED_DOCUMENTS, default 1). Writes keep them current either way, so
   * turning it back on needs no re-rendering; 0 renders every read live (to compare, or to rule the documents out).
   */
  storedDocuments: boolean;
  /** GET /events/{id} answers of public events kept per process, up to this many bytes (ITEM_CACHE_BYTES; 0, the default: off). */
  itemCacheBytes: number;
  /**
   * Whether each process keeps the embedded-term snapshot (TERM_SNAPSHOT, default 1): 0 reads the categories and tags
   * an answer embeds, with their counts, for every answer (to measure what the snapshot saves).
   */
  termSnapshot: boolean;
  /**
   * Whether each SQLite process keeps the venues' and organizers' stored documents that events embed, for one data
   * version (LINKED_SNAPSHOT, default 1): 0 reads them with the events' documents in every answer (to measure what
   * the snapshot saves). PostgreSQL always reads them with the events' (a round trip fewer than reading them apart).
   */
  linkedSnapshot: boolean;
  /**
   * D28: the most URLs one sitemap file lists (SITEMAP_URLS_PER_FILE, default and most 10,000): past that,
   * /sitemap.xml is an index of numbered files. 10,000 of the longest page addresses (200-character slugs, every
   * character percent-escaped) stay within the 50 MB a sitemap may weigh, and well within its 50,000 URLs.
   */
  sitemapUrlsPerFile: number;
  /** Anonymous GET answers kept per process for up to a second, up to this many bytes (READ_CACHE_BYTES; 0: off). */
  readCacheBytes: number;
  /** iCalendar VEVENT texts kept per process, up to this many characters (ICAL_CACHE_BYTES; 0: off). */
  icalCacheBytes: number;
  /**
   * D29: failed authentications allowed a minute per (client address, login) and per client address
   * (AUTH_FAILURES_PER_LOGIN, AUTH_FAILURES_PER_ADDRESS); 0 turns that limit off.
   */
  authFailures: { perLogin: number; perAddress: number };
  /**
   * TRUST_PROXY: the proxies (addresses, CIDRs, or proxy-addr's `loopback`/`linklocal`/`uniquelocal`) whose
   * X-Forwarded-For gives the client address (Fastify's `trustProxy`); empty: the socket address counts.
   */
  trustProxy: string[];
  /**
   * D31: how many items one request may name (over a limit: 400 `rest_invalid_param`, before any work):
   * organizers per event (MAX_ORGANIZERS_PER_EVENT), categories and tags per event, each (MAX_TERMS_PER_EVENT), ids or
   * slugs in one list filter (MAX_FILTER_IDS).
   */
  limits: { organizersPerEvent: number; termsPerEvent: number; filterIds: number };
  /** D31: the request deadline, the statement time limit and the response budget. */
  deadlines: Deadlines;
  /**
   * D27: WEBHOOKS_ALLOW_PRIVATE (default off) lets subscriptions target loopback, private, link-local and metadata
   * addresses; WEBHOOKS_POLL_MS (default 5,000) is how often the delivery worker looks for other processes' changes
   * and for retries that came due.
   */
  webhooks: { allowPrivate: boolean; pollMs: number };
  /**
   * D26: ICAL_MAX_EVENTS (default 10,000) events at most in one iCalendar feed (more: `X-Truncated: true`);
   * ICAL_IMPORT_MAX_BYTES (default 20 MiB): the largest .ics file `npm run cli -- import` reads.
   */
  ical: { maxEvents: number; importMaxBytes: number };
}

interface Deadlines {
  /**
   * D31 (REQUEST_TIMEOUT_MS, 30,000): a request not answered by then is 503 `rest_timeout`, its transaction rolled back;
   * a request whose headers and body have not all arrived by then is closed (Node's `requestTimeout`).
   */
  requestMs: number;
  /** D31 (STATEMENT_TIMEOUT_MS, default REQUEST_TIMEOUT_MS): PostgreSQL's `statement_timeout` (SQLite cannot interrupt). */
  statementMs: number;
  /** D31 (MAX_RESPONSE_BYTES, 16 MiB): a list (or /changes page) whose JSON would be larger is 400 `rest_response_too_large`. */
  maxResponseBytes: number;
}

export type LogFormat = 'json' | 'pretty' | 'auto';

export const NAMESPACE = 'calendar/events/v1';

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty', 'auto'];

function readLogFormat(env: Env): LogFormat {
  const raw = env.LOG_FORMAT === undefined || env.LOG_FORMAT === '' ? 'auto' : env.LOG_FORMAT;
  const format = LOG_FORMATS.find((known) => known === raw);
  if (format === undefined) throw new ConfigError('LOG_FORMAT', `must be json, pretty or auto, got "${raw}"`);
  return format;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

const MAX_WORKERS = 64;

/** WORKERS: a whole number, or `auto` for one process per core this process may use. */
function readWorkers(env: Env): number {
  const raw = (env.WORKERS ?? '').trim();
  if (raw.toLowerCase() === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  if (raw !== '' && !/^\d+$/.test(raw))
    throw new ConfigError('WORKERS', `must be auto or a whole number, got "${env.WORKERS}"`);
  return readInteger(env, 'WORKERS', 1, 1, MAX_WORKERS);
}

export function parseDatabaseUrl(raw: string | undefined): DatabaseConfig {
  const value = raw === undefined || raw === '' ? 'data/calendar.db' : raw;
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError('DATABASE_URL', `is not a valid PostgreSQL URL`);
    }
    return { dialect: 'postgres', url: value };
  }
  const path = value.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new ConfigError(
      'DATABASE_URL',
      `must be a file path, sqlite:<path>, file:<path> or postgres://…, got "${value}"`,
    );
  }
  if (path === '') throw new ConfigError('DATABASE_URL', 'names an empty SQLite path');
  return { dialect: 'sqlite', path };
}

function readSiteUrl(env: Env, host: string, port: number): string {
  const raw = env.SITE_URL;
  if (raw === undefined || raw === '') {
    const publicHost = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
    const hostPart = publicHost.includes(':') ? `[${publicHost}]` : publicHost;
    return `http://${hostPart}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SITE_URL', `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('SITE_URL', `must use http or https, got "${raw}"`);
  }
  if (url.search || url.hash) throw new ConfigError('SITE_URL', 'must not have a query or fragment');
  return raw.replace(/\/+$/, '');
}

function readApiPrefix(env: Env): string {
  const raw = env.API_PREFIX ?? '';
  if (raw === '') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
    throw new ConfigError('API_PREFIX', `must be empty or /segment… without a trailing slash, got "${raw}"`);
  }
  return raw;
}

function readCorsOrigins(env: Env): '*' | string[] {
  const raw = (env.CORS_ORIGINS ?? '*').trim();
  if (raw === '*' || raw === '') return '*';
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError('CORS_ORIGINS', `must be * or a comma-separated list of origins, got "${origin}"`);
    }
    if (url.origin !== origin)
      throw new ConfigError('CORS_ORIGINS', `"${origin}" is not an origin (scheme://host[:port])`);
  }
  return origins;
}

function readSwitch(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new ConfigError(name, `must be 1 or 0, got "${env[name]}"`);
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** One TRUST_PROXY entry: an IPv4 or IPv6 address, with an optional /prefix, or one of proxy-addr's names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return false;
  if (slash < 0) return true;
  const prefix = entry.slice(slash + 1);
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) takes an IPv6 prefix, as proxy-addr reads it.
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function readTrustProxy(env: Env): string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '') return [];
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!isProxyEntry(entry)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `must be a comma-separated list of proxy addresses or CIDRs (such as 10.0.0.1, 10.0.0.0/8, ` +
          `::1 or loopback), got "${entry}"`,
      );
    }
  }
  return entries;
}

export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST === undefined || env.HOST === '' ? '127.0.0.1' : env.HOST;
  const database = parseDatabaseUrl(env.DATABASE_URL);
  const siteUrl = readSiteUrl(env, host, port);
  const apiPrefix = readApiPrefix(env);

  const siteTimezone = env.SITE_TIMEZONE === undefined || env.SITE_TIMEZONE === '' ? 'UTC' : env.SITE_TIMEZONE;
  if (!IANAZone.isValidZone(siteTimezone)) {
    throw new ConfigError('SITE_TIMEZONE', `must be an IANA time zone such as Europe/Paris, got "${siteTimezone}"`);
  }

  const perPageMax = readInteger(env, 'PER_PAGE_MAX', 100, 1, 10_000);
  const perPageDefault = readInteger(env, 'PER_PAGE_DEFAULT', Math.min(10, perPageMax), 1, 10_000);
  if (perPageDefault > perPageMax) {
    throw new ConfigError('PER_PAGE_DEFAULT', `must not exceed PER_PAGE_MAX (${perPageMax}), got ${perPageDefault}`);
  }

  const currencyPosition =
    env.CURRENCY_POSITION === undefined || env.CURRENCY_POSITION === '' ? 'prefix' : env.CURRENCY_POSITION;
  if (currencyPosition !== 'prefix' && currencyPosition !== 'postfix') {
    throw new ConfigError('CURRENCY_POSITION', `must be prefix or postfix, got "${currencyPosition}"`);
  }
  const currencyCode = env.CURRENCY_CODE === undefined || env.CURRENCY_CODE === '' ? 'USD' : env.CURRENCY_CODE;
  if (!/^[A-Z]{3}$/.test(currencyCode))
    throw new ConfigError('CURRENCY_CODE', `must be a three-letter ISO 4217 code, got "${currencyCode}"`);

  const adminUser = env.ADMIN_USER ?? '';
  const adminPassword = env.ADMIN_PASSWORD ?? '';
  if ((adminUser === '') !== (adminPassword === '')) {
    throw new ConfigError(
      adminUser === '' ? 'ADMIN_USER' : 'ADMIN_PASSWORD',
      `must be set together with ${adminUser === '' ? 'ADMIN_PASSWORD' : 'ADMIN_USER'}`,
    );
  }
  if (adminUser !== '' && !/^[A-Za-z0-9._@-]{1,60}$/.test(adminUser)) {
    throw new ConfigError('ADMIN_USER', 'must be 1–60 characters of letters, digits, . _ @ or -');
  }

  const logLevel = env.LOG_LEVEL === undefined || env.LOG_LEVEL === '' ? 'info' : env.LOG_LEVEL;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const apiPath = `${apiPrefix}/${NAMESPACE}`;
  const requestMs = readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const deadlines: Deadlines = {
    requestMs,
    statementMs: readInteger(env, 'STATEMENT_TIMEOUT_MS', requestMs, 100, 3_600_000),
    maxResponseBytes: readInteger(env, 'MAX_RESPONSE_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
  return {
    port,
    host,
    workers: readWorkers(env),
    database:
      database.dialect === 'postgres'
        ? {
            ...database,
            statementTimeoutMs: deadlines.statementMs,
            preparedStatements: readSwitch({ PG_PREPARED_STATEMENTS: '1', ...env }, 'PG_PREPARED_STATEMENTS'),
          }
        : database,
    siteUrl,
    siteName: (env.SITE_NAME ?? '').trim() || 'Events',
    apiPrefix,
    apiRoot: `${siteUrl}${apiPath}`,
    apiPath,
    siteTimezone,
    perPageDefault,
    perPageMax,
    corsOrigins: readCorsOrigins(env),
    currencySymbol: env.CURRENCY_SYMBOL ?? '$',
    currencyPosition,
    currencyCode,
    admin: adminUser === '' ? null : { user: adminUser, password: adminPassword },
    logLevel,
    logFormat: readLogFormat(env),
    validateResponses: readSwitch(env, 'VALIDATE_RESPONSES'),
    changesRetentionDays: readInteger(env, 'CHANGES_RETENTION_DAYS', 30, 1, 36_500),
    storedDocuments: readSwitch({ STORED_DOCUMENTS: '1', ...env }, 'STORED_DOCUMENTS'),
    // Off by default since stored documents (D34): measured in one run, it saved 9 % of the CPU of an anonymous read by
    // id and nothing for authenticated reads and pages, for about 100 MB more per process (docs/performance.md).
    itemCacheBytes: readInteger(env, 'ITEM_CACHE_BYTES', 0, 0, 4 * 1024 * 1024 * 1024),
    termSnapshot: readSwitch({ TERM_SNAPSHOT: '1', ...env }, 'TERM_SNAPSHOT'),
    linkedSnapshot: readSwitch({ LINKED_SNAPSHOT: '1', ...env }, 'LINKED_SNAPSHOT'),
    sitemapUrlsPerFile: readInteger(env, 'SITEMAP_URLS_PER_FILE', 10_000, 1, 10_000),
    readCacheBytes: readInteger(env, 'READ_CACHE_BYTES', 16 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
    icalCacheBytes: readInteger(env, 'ICAL_CACHE_BYTES', 48 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
    recurrence: {
      horizonDays: readInteger(env, 'RECURRENCE_HORIZON_DAYS', 730, 1, 36_500),
      maxOccurrences: readInteger(env, 'RECURRENCE_MAX_OCCURRENCES', 1000, 1, 100_000),
    },
    authFailures: {
      perLogin: readInteger(env, 'AUTH_FAILURES_PER_LOGIN', 10, 0, 1_000_000),
      perAddress: readInteger(env, 'AUTH_FAILURES_PER_ADDRESS', 100, 0, 1_000_000),
    },
    trustProxy: readTrustProxy(env),
    limits: {
      organizersPerEvent: readInteger(env, 'MAX_ORGANIZERS_PER_EVENT', 50, 1, 10_000),
      termsPerEvent: readInteger(env, 'MAX_TERMS_PER_EVENT', 100, 1, 10_000),
      filterIds: readInteger(env, 'MAX_FILTER_IDS', 1_000, 1, 30_000),
    },
    deadlines,
    webhooks: {
      allowPrivate: readSwitch(env, 'WEBHOOKS_ALLOW_PRIVATE'),
      pollMs: readInteger(env, 'WEBHOOKS_POLL_MS', 5_000, 50, 3_600_000),
    },
    ical: {
      maxEvents: readInteger(env, 'ICAL_MAX_EVENTS', 10_000, 1, 1_000_000),
      importMaxBytes: readInteger(env, 'ICAL_IMPORT_MAX_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    },
  };
}
