// A typed client made from `GET {api}/doc` as a user would make one (openapi-typescript's types, openapi-fetch's
// calls), then type-checked with the project's tsc and run against the service: the document must type what the
// service accepts (an inline venue, a date string, a list filter as an array…) and refuse, at compile time, what it
// does not (a venue without a name, an object for a date).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describeEachDatabase } from '../helpers/harness.ts';
import { generateTypes } from '../helpers/openapi-codegen/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The program a user would write: every call a correct one, so it must type-check without a single error. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

export async function run(baseUrl: string, authorization: string, endTimestamp: number) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: authorization } });
  const jazz = await client.POST('/categories', { body: { name: 'Client Jazz' } });
  const folk = await client.POST('/categories', { body: { name: 'Client Folk' } });
  const host = await client.POST('/organizers', { body: { organizer: 'Client Host', email: 'host@example.com' } });
  if (!jazz.data || !folk.data || !host.data) throw new Error('the terms and the organizer should have been created');

  const concert = await client.POST('/events', {
    body: {
      title: 'Typed concert',
      status: 'publish',
      start_date: '2030-03-10 20:00:00',
      end_date: endTimestamp,
      venue: { venue: 'Typed Hall', city: 'Rome', show_map: true, geo_lat: 41.9, geo_lng: '12.5' },
      organizer: [{ id: host.data.id }, { organizer: 'Typed Band', phone: 5550100 }],
      cost: 25,
      image: 'https://img.example/typed.jpg',
      categories: [jazz.data.id],
    },
  });
  const venue = concert.data?.venue;
  const dance = await client.POST('/events', {
    body: {
      title: 'Typed dance',
      status: 'publish',
      start_date: '2030-03-12',
      end_date: '2030-03-12T23:00:00+00:00',
      venue: venue === undefined || Array.isArray(venue) ? 0 : venue.id,
      organizer: String(host.data.id),
      cost: ['Free', 10],
      image: false,
      categories: 'Client Folk',
    },
  });
  const listed = await client.GET('/events', {
    params: { query: { start_date: '2030-03-01', end_date: 1901145600, categories: [String(jazz.data.id), String(folk.data.id)] } },
  });
  return {
    created: [concert.response.status, dance.response.status],
    concert: concert.data,
    dance: dance.data,
    listUrl: listed.response.url,
    listed: listed.data?.events.map((event) => event.title).sort(),
  };
}
`;

const WRONG_CALL_PRELUDE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
const when = { start_date: '2030-03-10 20:00:00', end_date: '2030-03-10 22:00:00' };
`;

/** Calls the service refuses: each must be a type error of its own file. */
const WRONG_CALLS: Record<string, string> = {
  'venue-without-fields': `client.POST('/events', { body: { title: 'x', ...when, venue: { nope: true } } });`,
  'date-as-object': `client.POST('/events', { body: { title: 'x', start_date: {}, end_date: '2030-03-10 22:00:00' } });`,
  'cost-as-object': `client.POST('/events', { body: { title: 'x', ...when, cost: { amount: 5 } } });`,
  'image-as-true': `client.POST('/events', { body: { title: 'x', ...when, image: true } });`,
  'organizer-as-boolean-list': `client.POST('/events', { body: { title: 'x', ...when, organizer: [true] } });`,
  'venue-date-as-object': `client.POST('/venues', { body: { venue: 'x', date: { year: 2030 } } });`,
  'list-date-as-boolean': `client.GET('/events', { params: { query: { starts_after: true } } });`,
  'list-filter-as-number': `client.GET('/events', { params: { query: { categories: 5 } } });`,
};

interface ClientReport {
  created: number[];
  concert: Record<string, any> | undefined;
  dance: Record<string, any> | undefined;
  listUrl: string;
  listed: string[] | undefined;
}

/** Runs the project's tsc over `directory`'s tsconfig; its diagnostics by file name (empty when it type-checks). */
function typeErrors(directory: string): Promise<Map<string, string[]>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSC, '--noEmit', '-p', join(directory, 'tsconfig.json'), '--pretty', 'false'],
      { cwd: directory },
      (error, stdout, stderr) => {
        const errors = new Map<string, string[]>();
        for (const line of stdout.split('\n')) {
          const match = /^([^(]+)\(\d+,\d+\): error /.exec(line);
          if (match) errors.set(match[1], [...(errors.get(match[1]) ?? []), line]);
        }
        // tsc exits 2 with diagnostics; any other failure (or output it could not be read from) is the test's own.
        if (error && errors.size === 0) reject(new Error(`tsc failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(errors);
      },
    );
  });
}

describeEachDatabase('A typed client generated from the OpenAPI document', (h) => {
  let directory: string;

  before(async () => {
    const doc = await h().request('GET', '/doc');
    assert.equal(doc.statusCode, 200, doc.body);
    directory = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    // The generated program resolves openapi-fetch (and Node's fetch types) from the project's dependencies.
    symlinkSync(join(ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
    writeFileSync(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(directory, 'schema.ts'), await generateTypes(doc.json()));
    writeFileSync(join(directory, 'client.ts'), CLIENT);
    for (const [name, call] of Object.entries(WRONG_CALLS))
      writeFileSync(join(directory, `wrong-${name}.ts`), `${WRONG_CALL_PRELUDE}\n${call}\n`);
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2024',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2024', 'dom'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
        },
        files: ['schema.ts', 'client.ts', ...Object.keys(WRONG_CALLS).map((name) => `wrong-${name}.ts`)],
      }),
    );
  });

  after(() => {
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('type-checks the correct calls and refuses each wrong one', async () => {
    const errors = await typeErrors(directory);
    assert.deepEqual(errors.get('client.ts') ?? [], [], 'the correct calls type-check');
    assert.equal(errors.get('schema.ts'), undefined, 'the generated types are valid TypeScript');
    const accepted = Object.keys(WRONG_CALLS).filter((name) => !errors.has(`wrong-${name}.ts`));
    assert.deepEqual(accepted, [], 'every wrong call is a type error');
  });

  it('runs the calls against the service: created (201), and a list filter sent as a repeated key', async () => {
    await h().app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h().app.server.address() as AddressInfo;
    const program = (await import(pathToFileURL(join(directory, 'client.ts')).href)) as {
      run(baseUrl: string, authorization: string, endTimestamp: number): Promise<ClientReport>;
    };
    const report = await program.run(
      `http://127.0.0.1:${port}${h().config.apiPath}`,
      h().users.administrator.authorization,
      Date.UTC(2030, 2, 11, 12) / 1000,
    );

    assert.deepEqual(report.created, [201, 201], JSON.stringify(report));
    const { concert, dance } = report;
    assert.equal(concert?.end_date, '2030-03-11 12:00:00', 'a Unix timestamp is an instant');
    assert.equal(concert?.venue.venue, 'Typed Hall');
    assert.deepEqual(
      concert?.organizer.map((organizer: { organizer: string }) => organizer.organizer),
      ['Client Host', 'Typed Band'],
    );
    assert.deepEqual(concert?.cost_details.values, ['25']);
    assert.equal(concert?.image.url, 'https://img.example/typed.jpg');
    assert.equal(dance?.start_date, '2030-03-12 00:00:00');
    assert.equal(dance?.venue.id, concert?.venue.id, 'the venue named by id');
    assert.equal(dance?.image, false);
    assert.deepEqual(
      dance?.categories.map((term: { name: string }) => term.name),
      ['Client Folk'],
    );

    const query = new URL(report.listUrl).searchParams;
    assert.equal(
      query.getAll('categories').length,
      2,
      `openapi-fetch sends the list as a repeated key: ${report.listUrl}`,
    );
    assert.deepEqual(report.listed, ['Typed concert', 'Typed dance'], 'both categories match');
  });
});
