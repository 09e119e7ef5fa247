import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/store.ts';
import { POSTGRES_AVAILABLE, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { startService, stopService as stop, waitForHealth } from '../helpers/service-process.ts';

describe('start-up', () => {
  const directories: string[] = [];
  const schemas: string[] = [];
  after(async () => {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    if (schemas.length > 0 && POSTGRES_AVAILABLE) {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  });
  const freshSqlite = () => {
    const directory = mkdtempSync(join(tmpdir(), 'calendar-startup-'));
    directories.push(directory);
    return join(directory, 'nested', 'calendar.db');
  };

  it('stops with a message naming a bad variable', async () => {
    const started = await startService({ DATABASE_URL: freshSqlite(), SITE_TIMEZONE: 'Nowhere/Special' });
    const code = await new Promise<number | null>((resolve) => started.child.once('exit', resolve));
    assert.equal(code, 78);
    assert.match(started.output(), /SITE_TIMEZONE/);
  });

  it('creates the schema on an empty SQLite database, serves, and says how to create an administrator', async () => {
    const started = await startService({ DATABASE_URL: freshSqlite() });
    try {
      assert.equal(await waitForHealth(started), 200);
      const response = await fetch(`http://127.0.0.1:${started.port}/calendar/events/v1/venues`);
      assert.equal(response.status, 200);
      const write = await fetch(`http://127.0.0.1:${started.port}/calendar/events/v1/venues`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ venue: 'x' }),
      });
      assert.equal(write.status, 401);
      assert.match(started.output(), /npm run cli -- user create/);
    } finally {
      await stop(started);
    }
  });

  it('lets several processes start at once on one new SQLite file', async () => {
    const path = freshSqlite();
    const services = await Promise.all(
      [1, 2, 3].map(() => startService({ DATABASE_URL: path, ADMIN_USER: 'admin', ADMIN_PASSWORD: 'pw' })),
    );
    try {
      assert.deepEqual(await Promise.all(services.map((service) => waitForHealth(service))), [200, 200, 200]);
      const auth = `Basic ${Buffer.from('admin:pw').toString('base64')}`;
      const created = await fetch(`http://127.0.0.1:${services[0].port}/calendar/events/v1/venues`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ venue: 'Shared Hall' }),
      });
      assert.equal(created.status, 201);
      const listed = (await (await fetch(`http://127.0.0.1:${services[2].port}/calendar/events/v1/venues`)).json()) as {
        total: number;
      };
      assert.equal(listed.total, 1);
    } finally {
      await Promise.all(services.map(stop));
    }
  });

  it('lets several processes start at once on one new PostgreSQL schema', {
    skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
  }, async () => {
    const schema = `t_startup_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`create schema "${schema}"`);
    await client.end();
    const url = `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const services = await Promise.all(
      [1, 2, 3].map(() => startService({ DATABASE_URL: url, ADMIN_USER: 'admin', ADMIN_PASSWORD: 'pw' })),
    );
    try {
      assert.deepEqual(await Promise.all(services.map((service) => waitForHealth(service))), [200, 200, 200]);
    } finally {
      await Promise.all(services.map(stop));
    }
  });

  it('answers /health with 503 when the database does not answer', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: freshSqlite() });
    const store = await openStore(config.database);
    const app = await buildApp({ config, store, clock: () => DateTime.utc() });
    await store.close();
    const response = await app.inject({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 503);
    assert.equal(response.json().code, 'database_unavailable');
    await app.close();
  });
});
