// D26: the .ics import measured as it is run, `npm run cli -- import <file>`, on a generated file (bench/ics.ts) of
// BENCH_IMPORT_EVENTS events (default 20,000), into an empty database of its own (the scenarios' seeded one is left as
// it is). The command runs in a process of its own, so the figure is the whole command's: reading and parsing the
// file, the import, and whatever follows its writes.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/store.ts';
import { createUser } from '../src/core/users/store.ts';
import { generateIcs } from './ics.ts';

/** The measurement's name, as `--only` matches it. */
export const IMPORT_MEASUREMENT = '.ics import (npm run cli -- import) of a generated file';

const SCHEMA = 'bench_import';

/** An empty database for the import: its own SQLite file, or its own PostgreSQL schema. */
async function emptyDatabase(database: 'sqlite' | 'postgres'): Promise<string> {
  if (database === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`bench/data/import.db${suffix}`, { force: true });
    return 'bench/data/import.db';
  }
  const base = process.env.DATABASE_URL?.startsWith('postgres')
    ? process.env.DATABASE_URL
    : 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${SCHEMA} cascade`);
    await client.query(`create schema ${SCHEMA}`);
  } finally {
    await client.end();
  }
  return `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${SCHEMA}`)}`;
}

/** Runs the command to its end; its standard output. */
function runCommand(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`the import exited with ${code}: ${stdout}`)),
    );
  });
}

/** Imports a generated file with the command and reports events/s; `cpuProfileDir`: profile the command there. */
export async function measureImport(
  database: 'sqlite' | 'postgres',
  options: { cpuProfileDir?: string } = {},
): Promise<number> {
  const events = Number(process.env.BENCH_IMPORT_EVENTS ?? 20_000);
  mkdirSync('bench/data', { recursive: true });
  const file = `bench/data/import-${events}.ics`;
  writeFileSync(file, generateIcs(events));
  const url = await emptyDatabase(database);
  // Migrated, with an administrator to import as, before the clock starts.
  const store = await openStore(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }).database);
  try {
    await createUser(store.db, 'bench-import', 'administrator');
  } finally {
    await store.close();
  }
  const flags = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const cpuBefore = { command: finishedChildrenCpuSeconds(), postgres: localPostgresCpuSeconds() };
  const started = performance.now();
  const stdout = await runCommand([...flags, 'src/cli/main.ts', 'import', file], { DATABASE_URL: url });
  const seconds = (performance.now() - started) / 1000;
  const commandCpu = finishedChildrenCpuSeconds() - cpuBefore.command;
  const postgresAfter = localPostgresCpuSeconds();
  const postgresCpu =
    database === 'postgres' && cpuBefore.postgres !== undefined && postgresAfter !== undefined
      ? `, PostgreSQL ${(postgresAfter - cpuBefore.postgres).toFixed(1)} s`
      : '';
  const summary = stdout.split('\n')[0];
  const counts = /: (\d+) created, (\d+) updated, (\d+) unchanged, (\d+) refused$/.exec(summary);
  if (!counts || Number(counts[1]) !== events) throw new Error(`the import did not create every event: ${stdout}`);
  const rate = Math.round(events / seconds);
  console.log(
    `${IMPORT_MEASUREMENT}, ${database}: ${events} events in ${seconds.toFixed(1)} s, ${rate} events/s (CPU: the command ${commandCpu.toFixed(1)} s${postgresCpu})`,
  );
  return rate;
}

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** The fields of a `/proc/…/stat` line after its process name (field 3 onwards), and that name. */
function statFields(stat: string): { name: string; fields: string[] } {
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    fields: stat.slice(stat.lastIndexOf(')') + 2).split(' '),
  };
}

/**
 * The CPU time (user + system) of this process's children that have ended and been waited for (`cutime` + `cstime`):
 * around the command, its own, since no other child of the benchmark ends meanwhile.
 */
function finishedChildrenCpuSeconds(): number {
  const { fields } = statFields(readFileSync('/proc/self/stat', 'utf8'));
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The CPU time of a PostgreSQL server on this machine: every running `postgres` process's own, and what the
 * server's ended processes (the import's connections, once closed) left to the one that waited for them. Undefined
 * where no such process can be read (a server elsewhere): the import's line then names the command's CPU alone.
 */
function localPostgresCpuSeconds(): number | undefined {
  let ticks = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile, or not ours to read
    }
    const { name, fields } = statFields(stat);
    if (name !== 'postgres') continue;
    found = true;
    // utime + stime, and cutime + cstime: only the server's first process has ended children to report.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return found ? ticks / CLOCK_TICKS_PER_SECOND : undefined;
}
