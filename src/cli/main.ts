import { keepCountsCurrent } from '../core/occurrences/follow-counts.ts';
import { keepDocumentsCurrent } from '../core/documents/follow.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { ImportFileError } from '../ical/import.ts';
import { runImportCommand } from '../ical/import-command.ts';
import { ROLES } from '../domain/access.ts';
import { openStore, type Store } from '../store/store.ts';
import { generateAppPassword } from '../core/users/secrets.ts';
import {
  createAppPassword,
  createUser,
  deleteUser,
  findAppPassword,
  findUserByLogin,
  listAppPasswords,
  parseRole,
  revokeAppPassword,
} from '../core/users/store.ts';

const USAGE = `Usage: npm run cli -- <command>

  user create <login> [--role <role>] [--name <display name>]   roles: ${ROLES.join(', ')} (default subscriber)
  user delete <login> --reassign <login>                         hands their events, venues and organizers over first
  user list
  app-password create <login> [--name <name>]                    prints the new password once
  app-password list <login>
  app-password revoke <id>
  import <file.ics> [--as <login>]                               creates or updates events from an iCalendar file
                                                                 (matched by UID; as the first administrator by default)

Reads the same configuration (DATABASE_URL, …) as the service and migrates the database first.`;

export class UsageError extends Error {}

async function userByLogin(store: Store, login: string | undefined) {
  if (!login) throw new UsageError('a login is required');
  const user = await findUserByLogin(store.db, login);
  if (!user) throw new UsageError(`no user named "${login}"`);
  return user;
}

/** Runs one command; output goes through `print` so tests can read it. */
export async function runCli(
  argv: string[],
  store: Store,
  print: (line: string) => void,
  config: Config = loadConfig(),
): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      name: { type: 'string' },
      reassign: { type: 'string' },
      as: { type: 'string' },
    },
  });
  const [noun, verb, target] = positionals;
  if (noun === 'import') {
    // D26: the progress bar goes to stderr, and only when it is a terminal.
    await runImportCommand(verb, store, config, print, { as: values.as, progressStream: process.stderr });
    return;
  }
  switch (`${noun} ${verb}`) {
    case 'user create': {
      if (!target) throw new UsageError('a login is required');
      if (!/^[A-Za-z0-9._@-]{1,60}$/.test(target)) throw new UsageError('a login is 1–60 letters, digits, . _ @ or -');
      const role = parseRole(values.role ?? 'subscriber');
      if (role === undefined) throw new UsageError(`unknown role "${values.role}"; use one of ${ROLES.join(', ')}`);
      if (await findUserByLogin(store.db, target)) throw new UsageError(`a user named "${target}" already exists`);
      const user = await createUser(store.db, target, role, values.name ?? target);
      print(`created user ${user.login} (id ${user.id}, ${user.role})`);
      return;
    }
    case 'user delete': {
      const user = await userByLogin(store, target);
      if (!values.reassign) throw new UsageError('--reassign <login> is required: their items need a new author');
      const heir = await userByLogin(store, values.reassign);
      if (heir.id === user.id) throw new UsageError('cannot reassign to the user being deleted');
      await deleteUser(store, user.id, heir.id);
      print(`deleted user ${user.login}; their items now belong to ${heir.login}`);
      return;
    }
    case 'user list': {
      const users = await store.db.selectFrom('users').selectAll().orderBy('id').execute();
      for (const user of users) print(`${user.id}\t${user.login}\t${user.role}\t${user.created_utc}`);
      return;
    }
    case 'app-password create': {
      const user = await userByLogin(store, target);
      const { secret, display } = generateAppPassword();
      const row = await createAppPassword(store.db, user.id, values.name ?? 'cli', secret);
      print(`application password ${row.id} for ${user.login}: ${display}`);
      print('It is shown only this once. Use it with HTTP Basic auth as <login>:<password>.');
      return;
    }
    case 'app-password list': {
      const user = await userByLogin(store, target);
      print('id\tname\tcreated (UTC)\tlast used (UTC)');
      for (const row of await listAppPasswords(store.db, user.id)) {
        print(`${row.id}\t${row.name}\t${row.created_utc}\t${row.last_used_utc ?? 'never'}`);
      }
      return;
    }
    case 'app-password revoke': {
      const id = Number(target);
      if (!Number.isSafeInteger(id) || id <= 0 || !(await findAppPassword(store.db, id)))
        throw new UsageError(`no application password with id "${target}"`);
      await revokeAppPassword(store.db, id);
      print(`revoked application password ${id}`);
      return;
    }
    default:
      throw new UsageError(noun ? `unknown command "${positionals.join(' ')}"` : 'no command given');
  }
}

/** node:util parseArgs's refusals (an unknown option, a missing value): TypeErrors with an `ERR_PARSE_ARGS_*` code. */
const isParseArgsError = (error: unknown): error is Error =>
  error instanceof Error &&
  'code' in error &&
  typeof error.code === 'string' &&
  error.code.startsWith('ERR_PARSE_ARGS');

async function main(): Promise<void> {
  let store: Store | undefined;
  try {
    const config = loadConfig();
    // Imports and upkeep are not requests: no statement time limit (D31 bounds the service's requests).
    store = await openStore(config.database, { withoutStatementTimeout: true });
    // D34: what the command writes renders its stored documents and counts its events, as the service does.
    keepDocumentsCurrent(store, config);
    keepCountsCurrent(store);
    await runCli(process.argv.slice(2), store, (line) => console.log(line), config);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || isParseArgsError(error)) {
      console.error(`error: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof ImportFileError) {
      console.error(`error: ${error.message}`);
      process.exitCode = 1;
    } else {
      throw error;
    }
  } finally {
    await store?.close();
  }
}

if (import.meta.main) await main();
