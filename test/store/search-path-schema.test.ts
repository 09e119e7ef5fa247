import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { firstSearchPathSchema } from '../../src/store/postgres/search-path.ts';
import { POSTGRES_AVAILABLE, TEST_DATABASE_URL } from '../helpers/harness.ts';
import { startService, stopService, waitForHealth } from '../helpers/service-process.ts';

describe('the schema a search_path creates tables in', () => {
  it('is its first entry, read as PostgreSQL reads identifiers', () => {
    assert.equal(firstSearchPathSchema('calendar'), 'calendar');
    assert.equal(firstSearchPathSchema('  calendar , public'), 'calendar');
    assert.equal(firstSearchPathSchema('Calendar,public'), 'calendar');
    assert.equal(firstSearchPathSchema('"Calendar"'), 'Calendar');
    assert.equal(firstSearchPathSchema('"Events, ""2026""" , public'), 'Events, "2026"');
  });

  it('is none for the names PostgreSQL resolves itself, or an empty path', () => {
    assert.equal(firstSearchPathSchema('"$user", public'), undefined);
    assert.equal(firstSearchPathSchema('$user'), undefined);
    assert.equal(firstSearchPathSchema('pg_temp, public'), undefined);
    assert.equal(firstSearchPathSchema(''), undefined);
    assert.equal(firstSearchPathSchema('""'), undefined);
  });
});

describe('start-up with DATABASE_URL naming a search_path schema that does not exist', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL does not answer',
}, () => {
  const suffix = randomBytes(4).toString('hex');
  const role = `nocreate_${suffix}`;
  const rolePassword = randomBytes(12).toString('hex');
  const schemas: string[] = [];
  // A role with LOGIN only: PostgreSQL grants PUBLIC no CREATE on a database, so it may not create schemas.
  const user = { name: role, password: rolePassword };
  let roleCreated = false;

  const asSuperuser = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const freshSchema = () => {
    const schema = `t_path_${suffix}_${schemas.length}`;
    schemas.push(schema);
    return schema;
  };
  const urlFor = (schema: string, login?: typeof user) => {
    const url = new URL(TEST_DATABASE_URL);
    if (login) {
      url.username = login.name;
      url.password = login.password;
    }
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.toString();
  };
  const schemaExists = (schema: string) =>
    asSuperuser(
      async (client) => (await client.query('select 1 from pg_namespace where nspname = $1', [schema])).rowCount === 1,
    );

  before(async () => {
    await asSuperuser(async (client) => {
      await client.query(`create role ${role} login password '${rolePassword}'`);
      roleCreated = true;
      const { rows } = await client.query<{ may: boolean }>(
        `select has_database_privilege($1, current_database(), 'CREATE') as may`,
        [role],
      );
      assert.equal(rows[0].may, false, `${role} must not have CREATE on the test database for these tests`);
    });
  });
  after(async () => {
    await asSuperuser(async (client) => {
      for (const schema of schemas) await client.query(`drop schema if exists "${schema}" cascade`);
      if (roleCreated) {
        await client.query(`drop owned by ${role}`);
        await client.query(`drop role ${role}`);
      }
    });
  });

  it('creates the schema, migrates into it and serves', async () => {
    const schema = freshSchema();
    const started = await startService({ DATABASE_URL: urlFor(schema) });
    try {
      assert.equal(await waitForHealth(started), 200);
      const venues = await fetch(`http://127.0.0.1:${started.port}/calendar/events/v1/venues`);
      assert.equal(venues.status, 200);
    } finally {
      await stopService(started);
    }
    const tables = await asSuperuser(async (client) =>
      (
        await client.query<{ table_name: string }>(
          `select table_name from information_schema.tables where table_schema = $1`,
          [schema],
        )
      ).rows.map((row) => row.table_name),
    );
    assert.ok(tables.includes('posts') && tables.includes('terms'), `tables in ${schema}: ${tables.join(', ')}`);
  });

  it('exits 78 with one message saying how to create it when the user may not', async () => {
    const schema = freshSchema();
    const started = await startService({ DATABASE_URL: urlFor(schema, user) });
    const code = await new Promise<number | null>((resolve) => started.child.once('exit', resolve));
    const output = started.output();
    assert.equal(code, 78, output);
    assert.match(output, new RegExp(`search_path "${schema}"`));
    assert.match(output, new RegExp(`CREATE SCHEMA "${schema}" AUTHORIZATION "${role}"`));
    assert.match(output, new RegExp(`GRANT CREATE ON DATABASE "[^"]+" TO "${role}"`));
    assert.doesNotMatch(output, /^\s+at /m, 'no stack trace');
    assert.equal(output.trim().split('\n').length, 1, output);
    assert.equal(await schemaExists(schema), false);
  });

  it('serves a schema created for that user, as the message advises', async () => {
    const schema = freshSchema();
    await asSuperuser((client) => client.query(`create schema "${schema}" authorization ${role}`));
    const started = await startService({ DATABASE_URL: urlFor(schema, user) });
    try {
      assert.equal(await waitForHealth(started), 200);
    } finally {
      await stopService(started);
    }
  });
});
