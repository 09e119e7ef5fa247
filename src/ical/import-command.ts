// `npm run cli -- import <file.ics> [--as <login>]`: the command-line surface of the .ics import (ical/import.ts):
// a progress bar on a terminal only, then a summary, and one line per refused component with its reason.
import cliProgress from 'cli-progress';
import type { Config } from '../config.ts';
import type { Store } from '../store/store.ts';
import { findUserByLogin, storedRole } from '../core/users/store.ts';
import { importCalendar, ImportFileError, parseCalendar, readIcsFile, type ImportReport } from './import.ts';

export interface ImportCommandOptions {
  /** The login the events are written as (their author); default: the first administrator. */
  as?: string;
  /** Where the progress bar goes; none unless it is a terminal. */
  progressStream?: NodeJS.WriteStream;
}

async function importingUser(store: Store, login: string | undefined) {
  if (login !== undefined) {
    const user = await findUserByLogin(store.db, login);
    if (!user) throw new ImportFileError(`no user named "${login}"`);
    return user;
  }
  const admin = await store.db
    .selectFrom('users')
    .selectAll()
    .where('role', '=', 'administrator')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!admin)
    throw new ImportFileError('there is no administrator to import as: create one, or name a user with --as <login>');
  return admin;
}

/** Runs the import; the report is printed and also returned (tests). A file-level problem throws ImportFileError. */
export async function runImportCommand(
  path: string | undefined,
  store: Store,
  config: Config,
  print: (line: string) => void,
  options: ImportCommandOptions = {},
): Promise<ImportReport> {
  if (!path) throw new ImportFileError('a file is required: npm run cli -- import <file.ics>');
  const user = await importingUser(store, options.as);
  // Everything is read and parsed before anything is written.
  const calendar = parseCalendar(await readIcsFile(path, config.ical.importMaxBytes));
  const stream = options.progressStream;
  const bar = stream?.isTTY
    ? new cliProgress.SingleBar(
        { stream, format: 'importing [{bar}] {value}/{total} events', hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(calendar.units.length, 0);
  let report: ImportReport;
  try {
    report = await importCalendar(store, config, calendar, {
      viewer: { id: user.id, role: storedRole(user.role) },
      progress: (done) => bar?.update(done),
    });
  } finally {
    bar?.stop();
  }
  print(
    `${path}: ${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} unchanged, ${report.refused.length} refused`,
  );
  for (const { uid, reason } of report.refused) print(`refused ${uid}: ${reason}`);
  return report;
}
