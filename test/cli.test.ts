import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runCli, UsageError } from '../src/cli/main.ts';
import { basicAuth, describeEachDatabase } from './helpers/harness.ts';

describeEachDatabase('command-line tool', (h) => {
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    await runCli(argv, h().store, (line) => lines.push(line));
    return lines;
  };

  it('creates users and application passwords that authenticate over HTTP', async () => {
    assert.match(
      (await run('user', 'create', 'carol', '--role', 'editor'))[0],
      /created user carol \(id \d+, editor\)/,
    );
    const [line] = await run('app-password', 'create', 'carol', '--name', 'laptop');
    const password = /: (.+)$/.exec(line)![1];
    assert.match(password, /^(\w{4} ){5}\w{4}$/);
    const response = await h().request('POST', '/venues', {
      as: basicAuth('carol', password),
      body: { venue: 'Carol Hall' },
    });
    assert.equal(response.statusCode, 201);
  });

  it('lists application passwords with id, name, created and last used', async () => {
    await run('user', 'create', 'dave', '--role', 'author');
    const password = /: (.+)$/.exec((await run('app-password', 'create', 'dave'))[0])![1];
    let listing = await run('app-password', 'list', 'dave');
    assert.equal(listing[0], 'id\tname\tcreated (UTC)\tlast used (UTC)');
    assert.match(listing[1], /^\d+\tcli\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\tnever$/);
    await h().request('GET', '/venues', { as: basicAuth('dave', password) });
    listing = await run('app-password', 'list', 'dave');
    assert.match(listing[1], /\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('revokes an application password', async () => {
    await run('user', 'create', 'erin', '--role', 'editor');
    const [line] = await run('app-password', 'create', 'erin');
    const id = /application password (\d+)/.exec(line)![1];
    const password = /: (.+)$/.exec(line)![1];
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('erin', password) })).statusCode, 200);
    assert.deepEqual(await run('app-password', 'revoke', id), [`revoked application password ${id}`]);
    assert.equal((await h().request('GET', '/venues', { as: basicAuth('erin', password) })).statusCode, 401);
  });

  it('deletes a user after handing their items to another', async () => {
    await run('user', 'create', 'frank', '--role', 'author');
    const password = /: (.+)$/.exec((await run('app-password', 'create', 'frank'))[0])![1];
    const venue = (
      await h().request('POST', '/venues', { as: basicAuth('frank', password), body: { venue: 'Frank Hall' } })
    ).json();
    await run('user', 'delete', 'frank', '--reassign', 'editor');
    const after = (await h().request('GET', `/venues/${venue.id}`)).json();
    assert.equal(after.author, String(h().users.editor.id));
  });

  it('refuses bad input with a usage error', async () => {
    await assert.rejects(run('user', 'create', 'gina', '--role', 'overlord'), UsageError);
    await assert.rejects(run('user', 'create', 'editor'), UsageError);
    await assert.rejects(run('user', 'delete', 'editor'), UsageError);
    await assert.rejects(run('app-password', 'create', 'ghost'), UsageError);
    await assert.rejects(run('app-password', 'revoke', '99999'), UsageError);
    await assert.rejects(run('launch', 'rockets'), UsageError);
  });
});
