import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { prettyLogStream } from '../src/log-format.ts';
import { eventually } from './helpers/eventually.ts';
import { startService, stopService, waitForHealth } from './helpers/service-process.ts';

describe('LOG_FORMAT', () => {
  it('is auto unless set', () => {
    assert.equal(loadConfig({}).logFormat, 'auto');
    assert.equal(loadConfig({ LOG_FORMAT: '' }).logFormat, 'auto');
  });

  it('takes json, pretty or auto', () => {
    for (const format of ['json', 'pretty', 'auto'] as const)
      assert.equal(loadConfig({ LOG_FORMAT: format }).logFormat, format);
  });

  it('is a configuration error otherwise', () => {
    for (const value of ['text', 'JSON ', 'yes']) {
      assert.throws(
        () => loadConfig({ LOG_FORMAT: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === 'LOG_FORMAT' &&
          error.message.includes('json, pretty or auto'),
      );
    }
  });
});

describe('the log stream LOG_FORMAT chooses', () => {
  const prettyPrinter = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  const installed = async () => prettyPrinter;
  const missing = async () => undefined;
  const unexpected = async (): Promise<undefined> => assert.fail('pino-pretty need not be loaded');

  it('is pino-pretty for pretty, and for auto on a terminal', async () => {
    assert.ok((await prettyLogStream('pretty', false, installed)) instanceof Writable);
    assert.ok((await prettyLogStream('auto', true, installed)) instanceof Writable);
  });

  it("is pino's own JSON for json, and for auto when piped or without pino-pretty", async () => {
    assert.equal(await prettyLogStream('json', true, unexpected), undefined);
    assert.equal(await prettyLogStream('auto', false, unexpected), undefined);
    assert.equal(await prettyLogStream('auto', true, missing), undefined);
  });

  it('is a configuration error for pretty without pino-pretty', async () => {
    await assert.rejects(
      prettyLogStream('pretty', true, missing),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.variable === 'LOG_FORMAT' &&
        error.message.includes('npm install pino-pretty'),
    );
  });
});

describe("a service process's log lines", () => {
  const directory = mkdtempSync(join(tmpdir(), 'calendar-log-format-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  const logOfOneRun = async (env: Record<string, string>) => {
    const started = await startService({ DATABASE_URL: join(directory, 'calendar.db'), ...env });
    try {
      assert.equal(await waitForHealth(started), 200);
      await eventually(() => started.output().includes('API root: '), 'the service logs its API root', started.output);
    } finally {
      await stopService(started);
    }
    const lines = started
      .output()
      .split('\n')
      .filter((line) => line !== '');
    return { lines, startup: lines.find((line) => line.includes('API root: '))! };
  };
  const isJson = (line: string) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  };

  it('are readable text with LOG_FORMAT=pretty, even piped', async () => {
    const { startup } = await logOfOneRun({ LOG_FORMAT: 'pretty' });
    assert.equal(isJson(startup), false, startup);
    assert.match(startup, /INFO.*: API root: http:\/\/127\.0\.0\.1:\d+\/calendar\/events\/v1 \(sqlite\)$/);
  });

  it('are JSON lines by default when piped', async () => {
    // Empty is the default, auto (the helper itself asks for json).
    const { lines, startup } = await logOfOneRun({ LOG_FORMAT: '' });
    for (const line of lines) assert.ok(isJson(line), line);
    assert.match(JSON.parse(startup).msg, /^API root: /);
  });

  it('stop the service with exit status 78 for an unknown LOG_FORMAT', async () => {
    const started = await startService({ DATABASE_URL: join(directory, 'calendar.db'), LOG_FORMAT: 'colour' });
    try {
      const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
      const outcome = await Promise.race([exited, waitForHealth(started).then(() => 'serving')]);
      assert.equal(outcome, 78, started.output());
    } finally {
      await stopService(started);
    }
    assert.match(started.output(), /LOG_FORMAT must be json, pretty or auto, got "colour"/);
  });
});
