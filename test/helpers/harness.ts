import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { DateTime } from 'luxon';
import pg from 'pg';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Role } from '../../src/domain/access.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { generateAppPassword, setScryptCostForTests } from '../../src/core/users/secrets.ts';
import { createAppPassword, createUser } from '../../src/core/users/store.ts';

export type DatabaseName = 'sqlite' | 'postgres';
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let postgresAvailable: Promise<boolean> | undefined;

/** Whether the PostgreSQL suite can run; when it cannot, say so loudly, and fail when REQUIRE_POSTGRES is set (CI). */
export function checkPostgres(): Promise<boolean> {
  postgresAvailable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch (error) {
      const message = `PostgreSQL at ${TEST_DATABASE_URL} does not answer (${(error as Error).message}): the PostgreSQL suite is SKIPPED.`;
      if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`${message} REQUIRE_POSTGRES=1 makes this a failure.`);
      console.warn(`\n!!! ${message}\n`);
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgresAvailable;
}

export const POSTGRES_AVAILABLE = await checkPostgres();

// Human-chosen secrets (ADMIN_PASSWORD, wrong passwords typed by tests) are hashed with scrypt; production's cost is
// ~45 ms of CPU a hash, a test's is almost nothing. Hashes keep their own parameters, so checks follow.
setScryptCostForTests(16);

export interface Credentials {
  id: number;
  login: string;
  role: Role;
  authorization: string;
}

export interface InjectOptions {
  as?: Credentials | string | null;
  query?: Record<string, string | number | boolean | Array<string | number>>;
  body?: unknown;
  form?: Record<string, string | string[]>;
  headers?: Record<string, string>;
}

export interface Harness {
  database: DatabaseName;
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** `/calendar/events/v1`. */
  api: string;
  users: Record<Role, Credentials>;
  /**
   * Fixes the service's clock (ISO instant), or lets it run again with null. Under `describeEachDatabase` the clock
   * runs again after every test, so a suite whose tests all need one instant sets it in `beforeEach`.
   */
  setNow(iso: string | null): void;
  request(
    method: string,
    path: string,
    options?: InjectOptions,
  ): Promise<LightMyRequestResponse & { json<T = any>(): T }>;
  createUser(login: string, role: Role): Promise<Credentials>;
  /** Another connection to the same database, as a second service process would have. */
  openAnotherStore(): Promise<Store>;
  /** The environment a service process (`node src/main.ts`) needs to serve this harness's database. */
  serviceEnv(): Record<string, string>;
  close(): Promise<void>;
}

export const basicAuth = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

function toQueryString(query: InjectOptions['query']): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value))
      for (const item of value) parts.push(`${encodeURIComponent(key)}[]=${encodeURIComponent(String(item))}`);
    else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

export async function createHarness(
  database: DatabaseName,
  env: Record<string, string> = {},
  appOptions: AppOptions = {},
): Promise<Harness> {
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const directory = database === 'sqlite' ? mkdtempSync(join(tmpdir(), 'calendar-events-')) : undefined;
  const config = loadConfig({
    // TEST_LOG_LEVEL=error prints the errors behind a 500 while a test runs (the answers themselves never say).
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Every response of every test is checked against the OpenAPI document's schemas.
    VALIDATE_RESPONSES: '1',
    DATABASE_URL: database === 'sqlite' ? join(directory!, 'test.db') : TEST_DATABASE_URL,
    ...env,
  });
  const store = await openStore(config.database, database === 'postgres' ? { schema } : {});
  let fixedNow: DateTime | null = null;
  const app = await buildApp({ config, store, clock: () => fixedNow ?? DateTime.utc() }, appOptions);
  await app.ready();

  const users = {} as Record<Role, Credentials>;
  const harness: Harness = {
    database,
    app,
    store,
    config,
    api: config.apiPath,
    users,
    setNow(iso) {
      fixedNow = iso === null ? null : DateTime.fromISO(iso, { zone: 'utc' });
    },
    async createUser(login, role) {
      const user = await createUser(store.db, login, role);
      const { secret, display } = generateAppPassword();
      await createAppPassword(store.db, user.id, 'tests', secret);
      return { id: user.id, login, role, authorization: basicAuth(login, display) };
    },
    openAnotherStore: () => openStore(config.database, database === 'postgres' ? { schema } : {}),
    serviceEnv: () => ({
      DATABASE_URL:
        database === 'sqlite'
          ? join(directory!, 'test.db')
          : `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      ...env,
    }),
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const as = options.as;
      if (as) headers.authorization = typeof as === 'string' ? as : as.authorization;
      let payload: string | undefined;
      if (options.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      } else if (options.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = toQueryString(options.form).slice(1);
      }
      const url =
        (path.startsWith('/') && !path.startsWith(config.apiPath) && !path.startsWith('/health')
          ? config.apiPath + path
          : path) + toQueryString(options.query);
      const response = await app.inject({ method: method as 'GET', url, headers, payload });
      return response as LightMyRequestResponse & { json<T = any>(): T };
    },
    async close() {
      await app.close();
      await store.close();
      if (directory) rmSync(directory, { recursive: true, force: true });
      if (database === 'postgres') {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
    },
  };
  for (const role of ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const) {
    users[role] = await harness.createUser(role === 'administrator' ? 'admin' : role, role);
  }
  return harness;
}

/**
 * Runs the same suite once on SQLite and once on PostgreSQL, each on a fresh, isolated database.
 * `setup` receives a getter because the harness exists only once `before` has run.
 */
export function describeEachDatabase(
  title: string,
  setup: (harness: () => Harness) => void,
  env: Record<string, string> = {},
  appOptions: AppOptions = {},
): void {
  for (const database of ['sqlite', 'postgres'] as const) {
    const skip = database === 'postgres' && !POSTGRES_AVAILABLE ? 'PostgreSQL does not answer: suite skipped' : false;
    describe(`${title} [${database}]`, { skip }, () => {
      let current: Harness | undefined;
      before(async () => {
        current = await createHarness(database, env, appOptions);
      });
      after(async () => {
        await current?.close();
      });
      // A clock one test fixed must not leak into the next one.
      afterEach(() => {
        current?.setNow(null);
      });
      setup(() => current!);
    });
  }
}
