// Real service processes (`node src/main.ts`, or a build's `node dist/main.js`) for tests that need what one process
// cannot show: start-up races, concurrent writes from several processes on one database, the build npm start runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe } from 'node:test';
import { eventually } from './eventually.ts';
import { createHarness, POSTGRES_AVAILABLE, type Harness } from './harness.ts';

const NODE = process.execPath;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts `entry` (the sources' entry point by default; a build's `dist/main.js`) with `env` on a free port. */
export async function startService(env: Record<string, string>, entry = 'src/main.ts'): Promise<Started> {
  const port = await freePort();
  let output = '';
  // JSON log lines, which tests read, whatever LOG_FORMAT the shell running the tests has.
  const child = spawn(NODE, [entry], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  return { child, port, output: () => output };
}

/** Waits for the service's readiness signal, /health answering, and answers its status. */
export async function waitForHealth(started: Started): Promise<number> {
  let status = 0;
  await eventually(
    async () => {
      if (started.child.exitCode !== null || started.child.signalCode !== null)
        throw new Error(`service exited: ${started.output()}`);
      try {
        status = (await fetch(`http://127.0.0.1:${started.port}/health`)).status;
        return true;
      } catch {
        return false; // not listening yet
      }
    },
    'the service answers /health',
    started.output,
  );
  return status;
}

export const stopService = (started: Started) =>
  new Promise<void>((resolve) => {
    if (started.child.exitCode !== null) return resolve();
    started.child.once('exit', () => resolve());
    started.child.kill('SIGTERM');
  });

/** `count` processes serving one database, started at once and answering /health. */
export async function startServices(count: number, env: Record<string, string>): Promise<Started[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startService(env)));
  try {
    for (const service of started)
      if ((await waitForHealth(service)) !== 200) throw new Error(`service unhealthy: ${service.output()}`);
  } catch (error) {
    await Promise.all(started.map(stopService));
    throw error;
  }
  return started;
}

/**
 * A suite run against two real service processes on one PostgreSQL database (a harness of its own, whose users the
 * processes share): what races across processes need. Skipped, loudly, only when PostgreSQL does not answer.
 */
export function describeOnTwoProcesses(
  title: string,
  suite: (h: () => Harness, services: () => Started[]) => void,
  env: Record<string, string> = {},
): void {
  describe(title, { skip: POSTGRES_AVAILABLE ? false : 'PostgreSQL does not answer' }, () => {
    let harness: Harness | undefined;
    let started: Started[] = [];
    before(async () => {
      harness = await createHarness('postgres');
      started = await startServices(2, { ...harness.serviceEnv(), ...env });
    });
    after(async () => {
      await Promise.all(started.map(stopService));
      await harness?.close();
    });
    suite(
      () => harness!,
      () => started,
    );
  });
}
