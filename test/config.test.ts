import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../src/config.ts';

function rejects(env: Record<string, string>, variable: string) {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
  );
}

describe('configuration', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.deepEqual(config.database, { dialect: 'sqlite', path: 'data/calendar.db' });
    assert.equal(config.siteUrl, 'http://127.0.0.1:8080');
    assert.equal(config.apiRoot, 'http://127.0.0.1:8080/calendar/events/v1');
    assert.equal(config.siteTimezone, 'UTC');
    assert.equal(config.perPageDefault, 10);
    assert.equal(config.perPageMax, 100);
    assert.equal(config.corsOrigins, '*');
    assert.equal(config.currencySymbol, '$');
    assert.equal(config.currencyPosition, 'prefix');
    assert.equal(config.currencyCode, 'USD');
    assert.equal(config.admin, null);
    assert.equal(config.logLevel, 'info');
  });

  it('derives SITE_URL from HOST and PORT, using 127.0.0.1 for wildcard hosts', () => {
    assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).siteUrl, 'http://127.0.0.1:9000');
    assert.equal(loadConfig({ HOST: 'events.local', PORT: '81' }).siteUrl, 'http://events.local:81');
  });

  it('strips the trailing slash of SITE_URL and puts API_PREFIX before the namespace', () => {
    const config = loadConfig({ SITE_URL: 'https://example.com/site/', API_PREFIX: '/wp-json' });
    assert.equal(config.siteUrl, 'https://example.com/site');
    assert.equal(config.apiRoot, 'https://example.com/site/wp-json/calendar/events/v1');
    assert.equal(config.apiPath, '/wp-json/calendar/events/v1');
  });

  it('reads every DATABASE_URL form', () => {
    assert.deepEqual(parseDatabaseUrl('sqlite:data/x.db'), { dialect: 'sqlite', path: 'data/x.db' });
    assert.deepEqual(parseDatabaseUrl('file:/tmp/x.db'), { dialect: 'sqlite', path: '/tmp/x.db' });
    assert.deepEqual(parseDatabaseUrl('/var/lib/events.db'), { dialect: 'sqlite', path: '/var/lib/events.db' });
    assert.deepEqual(parseDatabaseUrl('postgres://u@h/db'), { dialect: 'postgres', url: 'postgres://u@h/db' });
    assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db'), { dialect: 'postgres', url: 'postgresql://u@h/db' });
  });

  it('accepts a list of CORS origins', () => {
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, http://b.example:8080' }).corsOrigins, [
      'https://a.example',
      'http://b.example:8080',
    ]);
  });

  it('stops on a bad value, naming the variable', () => {
    rejects({ PORT: 'eighty' }, 'PORT');
    rejects({ PORT: '70000' }, 'PORT');
    rejects({ DATABASE_URL: 'mysql://x@y/z' }, 'DATABASE_URL');
    rejects({ SITE_URL: 'not a url' }, 'SITE_URL');
    rejects({ SITE_URL: 'ftp://example.com' }, 'SITE_URL');
    rejects({ API_PREFIX: 'wp-json' }, 'API_PREFIX');
    rejects({ API_PREFIX: '/wp-json/' }, 'API_PREFIX');
    rejects({ SITE_TIMEZONE: 'Mars/Olympus' }, 'SITE_TIMEZONE');
    rejects({ PER_PAGE_DEFAULT: '0' }, 'PER_PAGE_DEFAULT');
    rejects({ PER_PAGE_DEFAULT: '50', PER_PAGE_MAX: '20' }, 'PER_PAGE_DEFAULT');
    rejects({ PER_PAGE_MAX: '-1' }, 'PER_PAGE_MAX');
    rejects({ CORS_ORIGINS: 'https://a.example/path' }, 'CORS_ORIGINS');
    rejects({ CURRENCY_POSITION: 'before' }, 'CURRENCY_POSITION');
    rejects({ CURRENCY_CODE: 'dollars' }, 'CURRENCY_CODE');
    rejects({ ADMIN_USER: 'admin' }, 'ADMIN_PASSWORD');
    rejects({ ADMIN_PASSWORD: 'secret' }, 'ADMIN_USER');
    rejects({ ADMIN_USER: 'bad name!', ADMIN_PASSWORD: 'x' }, 'ADMIN_USER');
    rejects({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
  });

  it('reads the D31 limits, validated like the others', () => {
    assert.deepEqual(loadConfig({}).limits, { organizersPerEvent: 50, termsPerEvent: 100, filterIds: 1000 });
    assert.deepEqual(
      loadConfig({ MAX_ORGANIZERS_PER_EVENT: '5', MAX_TERMS_PER_EVENT: '7', MAX_FILTER_IDS: '20' }).limits,
      { organizersPerEvent: 5, termsPerEvent: 7, filterIds: 20 },
    );
    for (const name of ['MAX_ORGANIZERS_PER_EVENT', 'MAX_TERMS_PER_EVENT', 'MAX_FILTER_IDS']) {
      rejects({ [name]: '0' }, name);
      rejects({ [name]: 'many' }, name);
      rejects({ [name]: '1000000' }, name);
    }
  });

  it('reads the sizes of the caches, validated like the others', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.itemCacheBytes, defaults.readCacheBytes, defaults.icalCacheBytes],
      [0, 16 * 1024 * 1024, 48 * 1024 * 1024],
    );
    const set = loadConfig({ ITEM_CACHE_BYTES: '1000', READ_CACHE_BYTES: '0', ICAL_CACHE_BYTES: '65536' });
    assert.deepEqual([set.itemCacheBytes, set.readCacheBytes, set.icalCacheBytes], [1000, 0, 65536]);
    for (const name of ['ITEM_CACHE_BYTES', 'READ_CACHE_BYTES', 'ICAL_CACHE_BYTES']) {
      rejects({ [name]: '-1' }, name);
      rejects({ [name]: 'lots' }, name);
      rejects({ [name]: String(5 * 1024 * 1024 * 1024) }, name);
    }
  });

  it('reads the D31 deadlines and response budget, validated like the others', () => {
    assert.deepEqual(loadConfig({}).deadlines, {
      requestMs: 30_000,
      statementMs: 30_000,
      maxResponseBytes: 16 * 1024 * 1024,
    });
    assert.deepEqual(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).deadlines, {
      requestMs: 5000,
      statementMs: 5000,
      maxResponseBytes: 16 * 1024 * 1024,
    });
    assert.deepEqual(
      loadConfig({ REQUEST_TIMEOUT_MS: '5000', STATEMENT_TIMEOUT_MS: '2000', MAX_RESPONSE_BYTES: '65536' }).deadlines,
      { requestMs: 5000, statementMs: 2000, maxResponseBytes: 65536 },
    );
    // The statement limit reaches the PostgreSQL pool through the database configuration; SQLite has no such setting.
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u@h/db', STATEMENT_TIMEOUT_MS: '2000' }).database, {
      dialect: 'postgres',
      url: 'postgres://u@h/db',
      statementTimeoutMs: 2000,
      preparedStatements: true,
    });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u@h/db', PG_PREPARED_STATEMENTS: '0' }).database, {
      dialect: 'postgres',
      url: 'postgres://u@h/db',
      statementTimeoutMs: 30_000,
      preparedStatements: false,
    });
    rejects({ DATABASE_URL: 'postgres://u@h/db', PG_PREPARED_STATEMENTS: 'sometimes' }, 'PG_PREPARED_STATEMENTS');
    for (const name of ['REQUEST_TIMEOUT_MS', 'STATEMENT_TIMEOUT_MS', 'MAX_RESPONSE_BYTES']) {
      rejects({ [name]: '0' }, name);
      rejects({ [name]: 'soon' }, name);
      rejects({ [name]: '99999999999' }, name);
    }
  });
});
